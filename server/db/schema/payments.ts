// Tables of payments: the payment methods a customer saved with the processor (brand, last
// four digits and expiry only — never a card number), every charge attempt (`payment`, Polar's Payment), and
// the dunning state of a renewal order whose charge failed (its retries, scheduled by stored due times).
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";

import { customer } from "./billing.js";
import { order, subscription } from "./checkout.js";
import { id, org, cascadeRef, createdAt, modifiedAt, timestamptz } from "./columns.js";

export const paymentMethod = pgTable(
  "payment_method",
  {
    id: id(),
    organizationId: org(),
    customerId: cascadeRef("customer_id", () => customer.id),
    /** till's processor id ("test", "stripe"). */
    processor: text("processor").notNull(),
    /** The processor's reference to the saved method (the test processor's pm_test_…). */
    processorMethodId: text("processor_method_id").notNull(),
    type: text("type").default("card").notNull(),
    brand: text("brand").notNull(),
    last4: text("last4").notNull(),
    expMonth: integer("exp_month").notNull(),
    expYear: integer("exp_year").notNull(),
    isDefault: boolean("is_default").default(false).notNull(),
    /** Removed by the customer: kept so the checkout that saved it does not bring it back. */
    deletedAt: timestamptz("deleted_at"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [uniqueIndex("payment_method_customer_method_uq").on(t.organizationId, t.customerId, t.processorMethodId)],
);

/**
 * The parts of a charge request that are not the order's own (amount, currency, method): see payment.unansweredCharge.
 */
export interface UnansweredCharge {
  idempotencyKey: string;
  description: string;
  metadata: Record<string, string>;
}

export const payment = pgTable(
  "payment",
  {
    id: id(),
    organizationId: org(),
    customerId: uuid("customer_id").references(() => customer.id, { onDelete: "set null" }),
    orderId: uuid("order_id").references(() => order.id, { onDelete: "set null" }),
    checkoutId: uuid("checkout_id"),
    paymentMethodId: uuid("payment_method_id"),
    processor: text("processor").notNull(),
    processorPaymentId: text("processor_payment_id"),
    /** pending | succeeded | failed */
    status: text("status").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    method: text("method").default("card").notNull(),
    brand: text("brand"),
    last4: text("last4"),
    declineReason: text("decline_reason"),
    declineMessage: text("decline_message"),
    /**
     * What made the attempt: checkout | renewal | update (a plan change billed now) | retry (the schedule) | manual
     * (the customer, from the portal).
     */
    attempt: text("attempt").notNull(),
    /**
     * A charge whose answer never came (the connection lost after the client's own retries), as it was sent: the
     * processor may have taken the money. The order's next charge is this request again, under its Idempotency-Key
     * and with the same parameters, so the processor answers what it did instead of charging twice.
     */
    unansweredCharge: jsonb("unanswered_charge").$type<UnansweredCharge>(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    index("payment_org_created_idx").on(t.organizationId, t.createdAt),
    index("payment_order_idx").on(t.orderId),
    // (0068) the processor's id (its events, a late bank answer), and the few charges still processing, by customer
    index("payment_processor_payment_idx").on(t.organizationId, t.processorPaymentId).where(sql`${t.processorPaymentId} IS NOT NULL`),
    index("payment_processing_idx").on(t.organizationId, t.customerId).where(sql`${t.status} = 'pending' AND ${t.declineReason} = 'processing'`),
    // bank transfers still awaiting the money: an order paid another way has their intents canceled (migration 0092)
    index("payment_pending_transfer_idx").on(t.organizationId, t.orderId).where(sql`${t.status} = 'pending' AND ${t.method} = 'customer_balance'`),
  ],
);

/** A renewal order whose charge failed: how often it was tried, and when the schedule tries it next. */
export const orderDunning = pgTable(
  "order_dunning",
  {
    orderId: uuid("order_id")
      .primaryKey()
      .references(() => order.id, { onDelete: "cascade" }),
    organizationId: org(),
    subscriptionId: cascadeRef("subscription_id", () => subscription.id),
    /** Charges made so far (the renewal's own included). */
    attempts: integer("attempts").default(1).notNull(),
    /** Retries the customer asked for from the portal. */
    manualAttempts: integer("manual_attempts").default(0).notNull(),
    /**
     * Attempts the processor could not process (not the customer's decline: a seller's or till's error, an outage):
     * the subscription stays active and is charged again with backoff; `attempts` counts declines only.
     */
    processorErrors: integer("processor_errors").default(0).notNull(),
    /** When the schedule charges again; null: no more automatic retries (paid, or given up). */
    nextAttemptAt: timestamptz("next_attempt_at"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("order_dunning_due_idx").on(t.nextAttemptAt).where(sql`${t.nextAttemptAt} IS NOT NULL`)],
);
