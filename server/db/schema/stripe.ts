// An organization's Stripe account: the keys till charges with and the webhook endpoint till made on
// the account, secrets sealed with the server secret; and the Stripe events received on that endpoint, one row
// per Stripe event id (a redelivery is recognised and changes nothing).
import { sql } from "drizzle-orm";
import { index, integer, boolean, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.js";
import { org, timestamptz } from "./columns.js";
import { customer } from "./billing.js";

export const stripeConnection = pgTable("stripe_connection", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  /** Stripe's account id (acct_…); null when the (restricted) key may not read the account. */
  accountId: text("account_id"),
  /** Test-mode keys (sk_test_/rk_test_) or live ones. */
  livemode: boolean("livemode").notNull(),
  /** The secret or restricted key, sealed. */
  secretKey: text("secret_key").notNull(),
  publishableKey: text("publishable_key").notNull(),
  /** The endpoint till made on the account; null when events come through the Stripe CLI (its own secret). */
  webhookEndpointId: text("webhook_endpoint_id"),
  webhookUrl: text("webhook_url").notNull(),
  /** The endpoint's signing secret (whsec_…), sealed. */
  webhookSecret: text("webhook_secret").notNull(),
  createdAt: timestamptz("created_at").defaultNow().notNull(),
  /**
   * The last payment Stripe could not process for a reason that is not the customer's (a refused request, a revoked
   * key, an outage): its code and Stripe's developer message, for the seller's eyes (`till stripe status`); cleared by
   * a new connection.
   */
  lastErrorCode: text("last_error_code"),
  lastErrorDetail: text("last_error_detail"),
  lastErrorAt: timestamptz("last_error_at"),
  /** When the owners were last emailed about such an error (at most one email a day). */
  lastErrorMailedAt: timestamptz("last_error_mailed_at"),
});

export const stripeEvent = pgTable(
  "stripe_event",
  {
    organizationId: org(),
    /** Stripe's event id (evt_…). */
    id: text("id").notNull(),
    type: text("type").notNull(),
    livemode: boolean("livemode").notNull(),
    /** When Stripe made the event. */
    stripeCreatedAt: timestamptz("stripe_created_at").notNull(),
    receivedAt: timestamptz("received_at").defaultNow().notNull(),
    /** The id of the event's object (ch_…, re_…, dp_…, pi_…): what a handler reads the current state of. */
    objectId: text("object_id"),
    /** The event as Stripe sent it (verified). */
    payload: jsonb("payload").$type<Record<string, unknown>>(),
    /** Processing (billing/processor-events): attempts made, when the next is due (null until the outbox asks). */
    attempts: integer("attempts").default(0).notNull(),
    nextAttemptAt: timestamptz("next_attempt_at"),
    lockedUntil: timestamptz("locked_until"),
    lockedBy: text("locked_by"),
    processedAt: timestamptz("processed_at"),
    /** handled | ignored (no handler, or nothing of till's) | failed (given up) */
    outcome: text("outcome"),
    error: text("error"),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("stripe_event_received_idx").on(t.organizationId, t.receivedAt),
    index("stripe_event_due_idx").on(t.nextAttemptAt).where(sql`${t.processedAt} IS NULL AND ${t.nextAttemptAt} IS NOT NULL`),
  ],
);

/**
 * The processor's own customer for a till customer (Stripe's cus_…), made at the first payment and kept for later
 * charges.
 */
export const processorCustomer = pgTable(
  "processor_customer",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customer.id, { onDelete: "cascade" }),
    /** till's processor id ("stripe"). */
    processor: text("processor").notNull(),
    processorCustomerId: text("processor_customer_id").notNull(),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.processor] })],
);
