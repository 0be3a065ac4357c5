// Invoices and credit notes: one row per PDF document the worker owes or made for an order. An
// invoice row per order (unique), a credit note row per succeeded refund (unique). A request writes the row
// `pending` in the causing transaction (generateInvoice, the fan-out of order.paid / refund.created); the jobs
// worker leases pending rows (locked_until, FOR UPDATE SKIP LOCKED), renders the PDF, stores its bytes with the
// files (FileStorage) and marks the row generated. A regeneration (billing details corrected) sets it pending
// again with a bumped `version`; the stored path carries the version, so a signed URL never serves half a file.
import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";

import { order } from "./checkout.js";
import { refund } from "./refunds.js";
import { id, org, cascadeRef, timestamptz } from "./columns.js";

export const invoice = pgTable(
  "invoice",
  {
    id: id(),
    organizationId: org(),
    orderId: cascadeRef("order_id", () => order.id),
    /** invoice | credit_note */
    kind: text("kind").notNull(),
    /** The credit note's refund; null for an invoice. */
    refundId: uuid("refund_id").references(() => refund.id, { onDelete: "cascade" }),
    /** The document's number: the order's invoice number, or "{invoice number}-CN{n}" for its n-th credit note. */
    number: text("number").notNull(),
    /** pending | generated */
    status: text("status").default("pending").notNull(),
    /** Bumped by each regeneration; part of the stored path. */
    version: integer("version").default(1).notNull(),
    /** Where the bytes are in the file storage; null until generated. */
    path: text("path"),
    size: integer("size"),
    attempts: integer("attempts").default(0).notNull(),
    nextAttemptAt: timestamptz("next_attempt_at").defaultNow().notNull(),
    lockedUntil: timestamptz("locked_until"),
    lockedBy: text("locked_by"),
    lastError: text("last_error"),
    generatedAt: timestamptz("generated_at"),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    modifiedAt: timestamptz("modified_at"),
    /** Asked for (POST …/invoice): announced with order.updated once made. Invoices till makes unasked are not. */
    asked: boolean("asked").default(false).notNull(),
    /** The locale the document was first made in (0063); a re-render keeps it. Null until then. */
    locale: text("locale"),
  },
  (t) => [
    uniqueIndex("invoice_order_key").on(t.orderId).where(sql`${t.kind} = 'invoice'`),
    uniqueIndex("invoice_refund_key").on(t.refundId).where(sql`${t.refundId} IS NOT NULL`),
    index("invoice_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("invoice_org_order_idx").on(t.organizationId, t.orderId),
    // a credit note's number is made from its order's count of credit notes: two made at once cannot both win
    uniqueIndex("invoice_number_key").on(t.organizationId, t.number),
  ],
);
