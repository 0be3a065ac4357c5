// Refunds of orders: one row per refund the seller issued, with the processor's reference. The
// order's refunded_amount / refunded_tax_amount are the sums of its succeeded refunds, kept on the order row
// by the refunding transaction (which locks the order).
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { customer, type Metadata } from "./billing.js";
import { order } from "./checkout.js";
import { id, org, cascadeRef, createdAt, modifiedAt } from "./columns.js";

export const refund = pgTable(
  "refund",
  {
    id: id(),
    organizationId: org(),
    /** pending | succeeded | failed | canceled */
    status: text("status").notNull(),
    /** duplicate | fraudulent | customer_request | service_disruption | satisfaction_guarantee | other */
    reason: text("reason").notNull(),
    /** Minor units, before tax (Polar's `amount`); the processor refunded amount + tax_amount. */
    amount: integer("amount").notNull(),
    taxAmount: integer("tax_amount").notNull(),
    currency: text("currency").notNull(),
    /** The seller's internal note; not on the wire. */
    comment: text("comment"),
    revokeBenefits: boolean("revoke_benefits").default(false).notNull(),
    orderId: cascadeRef("order_id", () => order.id),
    subscriptionId: uuid("subscription_id"),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customer.id),
    /** The processor's id for the refund (Stripe's `re_…`). */
    processorRefundId: text("processor_refund_id"),
    /** Why the processor failed or canceled the refund (Stripe's `failure_reason`, 0074); null otherwise. */
    failureReason: text("failure_reason"),
    metadata: jsonb("metadata").$type<Metadata>().default({}).notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    index("refund_org_created_idx").on(t.organizationId, t.createdAt),
    index("refund_order_idx").on(t.orderId),
    index("refund_org_customer_idx").on(t.organizationId, t.customerId),
    index("refund_processor_idx").on(t.processorRefundId).where(sql`${t.processorRefundId} IS NOT NULL`),
    // a refund made in Stripe's dashboard is recorded once (migration 0047)
    uniqueIndex("refund_org_processor_uq").on(t.organizationId, t.processorRefundId).where(sql`${t.processorRefundId} IS NOT NULL`),
  ],
);
