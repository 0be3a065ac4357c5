// The books of proration and wallets: a customer's balance per currency as a ledger (one row per movement, never an
// updated number), and the proration lines a plan change carries to the subscription's next renewal.
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";

import { customer } from "./billing.js";
import { order, subscription, type ProrationFacts } from "./checkout.js";
import { id, org, cascadeRef, createdAt, modifiedAt, timestamptz } from "./columns.js";

/**
 * One movement of a customer's balance in a currency: positive credits the customer (a downgrade's prorated
 * credit), negative uses it (applied to an order). The balance is the sum.
 */
export const customerBalanceEntry = pgTable(
  "customer_balance_entry",
  {
    id: id(),
    organizationId: org(),
    customerId: cascadeRef("customer_id", () => customer.id),
    currency: text("currency").notNull(),
    amount: integer("amount").notNull(),
    /** proration_credit | order_applied | top_up | auto_recharge | credit_purchase | usage | refund | adjustment */
    reason: text("reason").notNull(),
    /** One movement per key and organization (a credit pack's order, a top-up, a recharge); null: none. */
    idempotencyKey: text("idempotency_key"),
    /** What the wallet's history shows for it ("Top-up", "Credits: 1,000 pack"); null: from the reason. */
    description: text("description"),
    /** The product a usage movement paid for (0066): the portal says the line from it in the customer's language. */
    productName: text("product_name"),
    orderId: uuid("order_id").references(() => order.id, { onDelete: "set null" }),
    subscriptionId: uuid("subscription_id").references(() => subscription.id, { onDelete: "set null" }),
    /** When the movement was written (clock_timestamp(), 0071: not its transaction's start), unless given. */
    createdAt: timestamptz("created_at").default(sql`clock_timestamp()`).notNull(),
  },
  (t) => [
    index("customer_balance_entry_customer_idx").on(t.organizationId, t.customerId, t.currency),
    uniqueIndex("customer_balance_entry_key").on(t.organizationId, t.idempotencyKey).where(sql`${t.idempotencyKey} IS NOT NULL`),
    // the usage a prepaid subscription's wallet paid in its current period, not yet on a renewal order (0057)
    index("customer_balance_entry_usage_idx").on(t.organizationId, t.subscriptionId).where(sql`${t.reason} = 'usage' AND ${t.orderId} IS NULL`),
  ],
);

/**
 * A customer's wallet in a currency (Polar's CustomerWallet): its balance is the sum of its ledger's movements,
 * kept here by the trigger of migration 0055 (every movement inserted moves it and, since 0057, records the
 * `till.wallet.transaction.created` and `till.wallet.updated` outbox events), and its auto-recharge settings
 * (till's own): below `threshold`, the saved card is charged `amount`; a decline sets `rechargeBlockedAt` and
 * recharging waits for a card saved after it.
 */
export const customerWallet = pgTable(
  "customer_wallet",
  {
    id: id(),
    organizationId: org(),
    customerId: cascadeRef("customer_id", () => customer.id),
    currency: text("currency").notNull(),
    balance: integer("balance").default(0).notNull(),
    autoRechargeEnabled: boolean("auto_recharge_enabled").default(false).notNull(),
    autoRechargeThreshold: integer("auto_recharge_threshold").default(0).notNull(),
    autoRechargeAmount: integer("auto_recharge_amount").default(0).notNull(),
    rechargeBlockedAt: timestamptz("recharge_blocked_at"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [uniqueIndex("customer_wallet_customer_currency").on(t.organizationId, t.customerId, t.currency)],
);

/**
 * A prorated line waiting for the subscription's next renewal (`proration_behavior: prorate`): a credit for the
 * unused time of the old terms (negative) or a charge for the rest of the period on the new ones. The renewal
 * bills it as its own order line and records that order here.
 */
export const subscriptionProration = pgTable(
  "subscription_proration",
  {
    id: id(),
    organizationId: org(),
    subscriptionId: cascadeRef("subscription_id", () => subscription.id),
    label: text("label").notNull(),
    amount: integer("amount").notNull(),
    productPriceId: uuid("product_price_id"),
    /** The line's kind, product, seats and span (0066; null on lines made before), for its order item. */
    facts: jsonb("facts").$type<ProrationFacts>(),
    /** Its place among the lines of its change (the credit first). */
    position: integer("position").default(0).notNull(),
    /** The renewal order that billed it; null while pending. */
    orderId: uuid("order_id").references(() => order.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("subscription_proration_pending_idx").on(t.organizationId, t.subscriptionId, t.orderId)],
);
