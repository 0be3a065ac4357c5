// Customer emails: one row per message the worker owes a customer, made from an outbox event in
// the transaction that fans the event out. The unique (outbox event, type, recipient) key makes a message exist
// once however often its event is looked at; `sent_at` is set once it was handed to the mail transport, and
// the row's id is the message's Message-ID, so a resend after a crash between sending and recording is
// recognisable by the receiver.
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";

import { id, org, timestamptz } from "./columns.js";

export const customerEmail = pgTable(
  "customer_email",
  {
    id: id(),
    organizationId: org(),
    /** The outbox event that caused it (no foreign key: processed outbox rows are cleaned up). */
    outboxId: uuid("outbox_id").notNull(),
    /** order_confirmation, subscription_confirmation, … (server/billing/customer-emails/types.ts) */
    type: text("type").notNull(),
    recipient: text("recipient").notNull(),
    /** The event's resource as the API returned it (an order or a subscription): what the message renders. */
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    attempts: integer("attempts").default(0).notNull(),
    nextAttemptAt: timestamptz("next_attempt_at").defaultNow().notNull(),
    lockedUntil: timestamptz("locked_until"),
    lockedBy: text("locked_by"),
    lastError: text("last_error"),
    sentAt: timestamptz("sent_at"),
    /** Attempts ran out: never sent. */
    failedAt: timestamptz("failed_at"),
  },
  (t) => [
    uniqueIndex("customer_email_key").on(t.outboxId, t.type, t.recipient),
    index("customer_email_due_idx").on(t.nextAttemptAt).where(sql`${t.sentAt} IS NULL AND ${t.failedAt} IS NULL`),
    index("customer_email_org_idx").on(t.organizationId, t.createdAt),
  ],
);
