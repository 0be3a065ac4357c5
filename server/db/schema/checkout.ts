// Tables of the purchase flow: checkouts, the orders and subscriptions they create, the outbox
// that records side effects in the same transaction, and the per-organization invoice counter.
// Wire-shaped nested values (addresses, custom field data) are jsonb, like the catalog tables.
import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, numeric, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.js";
import { customer, type CollectionMethod } from "./billing.js";
import { id, org, cascadeRef, createdAt, modifiedAt, timestamptz, metadata } from "./columns.js";
import type { UsageLineFacts } from "../../../shared/tiers.js";

export type AddressValue = Record<string, string | null>;

/**
 * A proration line's facts, kept with the line so that a document says it in its reader's language;
 * its stored label says the same in English ("Unused time on Basic", "Remaining time on 6 seats").
 */
export interface ProrationFacts {
  /**
   * `unused`: the credit for the old terms' unused time; `remaining`: the charge for the rest of the period on the new
   * ones.
   */
  kind: "unused" | "remaining";
  /** The product's name; null when the previous product is no longer found ("the previous plan"). */
  product: string | null;
  /** A seat change's seats on these terms; null for a product change. */
  seats: number | null;
  /** The time prorated, from the change to the end of the period (ISO 8601). */
  from: string;
  to: string;
}

/**
 * What a wallet top-up order's one line is (the wallet movement's reason): the seller's top-up or the
 * auto-recharge. Its stored label says the same in English ("Wallet top-up", "Wallet auto-recharge").
 */
export type WalletCredit = "top_up" | "auto_recharge";

/**
 * A plan change that waits for the period's end (`proration_behavior: next_period`): the terms it will write,
 * decided when it was asked for, and applied by the renewal that starts the next period (`applies_at`).
 */
export interface PendingUpdateValue {
  id: string;
  createdAt: string;
  appliesAt: string;
  /** The product the subscription moves to (null: the seats change only). */
  productId: string | null;
  seats: number | null;
  priceIds: string[];
  amount: number;
  recurringInterval: string;
  recurringIntervalCount: number;
  /** The add-ons as the change leaves them (absent: they stay as they are). */
  addOns?: SubscriptionAddOn[];
}

/** An add-on chosen on a checkout: its product's price for the quantity, `amount` per period in minor units. */
export type CheckoutAddOn = Omit<SubscriptionAddOn, "id" | "createdAt">;

/**
 * An add-on on a subscription: another product's price billed with the base product every period. `amount` is
 * what it adds per period (the fixed price × quantity, or the seat price for `quantity` seats), in minor units.
 */
export interface SubscriptionAddOn {
  id: string;
  productId: string;
  priceId: string;
  quantity: number;
  amount: number;
  createdAt: string;
}
export interface OrderItemTax {
  rate: number;
  jurisdiction: string | null;
  reverse_charge: boolean;
  components: Array<{ jurisdiction: string; type: string; rate: number; amount: number }>;
}
export type CustomFieldData = Record<string, string | number | boolean | null>;

/** Who marked an order paid: a member (their user id) or an organization access token (its id), and their note. */
export interface MarkedPaidBy {
  kind: "user" | "token";
  id: string;
  /** The member's email or the token's name, as they were then. */
  name: string | null;
  note: string | null;
}

export const checkout = pgTable(
  "checkout",
  {
    id: id(),
    organizationId: org(),
    /** open | confirmed | succeeded | failed; "expired" is read from expires_at */
    status: text("status").default("open").notNull(),
    /** Sealed with the server secret (server/seal.ts); a row from before sealing holds it in clear until start. */
    clientSecret: text("client_secret").notNull(),
    /**
     * The client secret's keyed hash (seal.ts, lookupHash): `/v1/checkouts/client/{client_secret}` finds the checkout
     * by it.
     */
    clientSecretHash: text("client_secret_hash"),
    expiresAt: timestamptz("expires_at").notNull(),
    paymentProcessor: text("payment_processor").default("stripe").notNull(),
    paymentProcessorMetadata: jsonb("payment_processor_metadata").$type<Record<string, string>>().default({}).notNull(),
    /**
     * the confirm that completed the checkout: the request's hex SHA-256 (its confirmation token included) and its
     * answer's portal session token, sealed with a key derived from the token (billing/checkouts/confirm-retry.ts)
     */
    confirmationHash: text("confirmation_hash"),
    successUrl: text("success_url"),
    returnUrl: text("return_url"),
    embedOrigin: text("embed_origin"),
    locale: text("locale"),
    allowDiscountCodes: boolean("allow_discount_codes").default(true).notNull(),
    requireBillingAddress: boolean("require_billing_address").default(false).notNull(),
    allowTrial: boolean("allow_trial").default(true).notNull(),
    trialInterval: text("trial_interval"),
    trialIntervalCount: integer("trial_interval_count"),
    trialEnd: timestamptz("trial_end"),
    /** The chosen price's amount before discount (minor units); seats × per-seat for seat-based prices. */
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    seats: integer("seats"),
    minSeats: integer("min_seats"),
    maxSeats: integer("max_seats"),
    /** The tax (billing/tax): null until the billing address tells where the buyer is. */
    taxAmount: integer("tax_amount"),
    /** Whether that tax is inside the price (taken out of it) rather than added to it. */
    taxInclusive: boolean("tax_inclusive").default(false).notNull(),
    /** The products offered, in order; product_id / product_price_id is the customer's choice among them. */
    productIds: uuid("product_ids").array().notNull(),
    productId: uuid("product_id"),
    productPriceId: uuid("product_price_id"),
    discountId: uuid("discount_id"),
    customerId: uuid("customer_id").references(() => customer.id, { onDelete: "set null" }),
    subscriptionId: uuid("subscription_id"),
    isBusinessCustomer: boolean("is_business_customer").default(false).notNull(),
    externalCustomerId: text("external_customer_id"),
    customerName: text("customer_name"),
    customerEmail: text("customer_email"),
    customerIpAddress: text("customer_ip_address"),
    customerBillingName: text("customer_billing_name"),
    customerBillingAddress: jsonb("customer_billing_address").$type<AddressValue>(),
    /** [value, format], like customer.tax_id */
    customerTaxId: jsonb("customer_tax_id").$type<[string, string]>(),
    customerMetadata: metadata("customer_metadata"),
    customFieldData: jsonb("custom_field_data").$type<CustomFieldData>().default({}).notNull(),
    /** The buyer's purchase order number (migration 0089): printed on the order's invoice and the renewals'. */
    purchaseOrder: text("purchase_order"),
    /** The add-ons chosen with the subscription product (migration 0091): the subscription it starts holds them. */
    addOns: jsonb("add_ons").$type<CheckoutAddOn[]>().default([]).notNull(),
    metadata: metadata(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    uniqueIndex("checkout_client_secret_hash_uq").on(t.clientSecretHash),
    index("checkout_org_created_idx").on(t.organizationId, t.createdAt),
    index("checkout_org_customer_idx").on(t.organizationId, t.customerId, t.createdAt),
    // the expiry pass's claim (migration 0035)
    index("checkout_expiry_due_idx").on(t.expiresAt, t.id).where(sql`${t.status} = 'open'`),
  ],
);

export const subscription = pgTable(
  "subscription",
  {
    id: id(),
    organizationId: org(),
    status: text("status").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    recurringInterval: text("recurring_interval").notNull(),
    recurringIntervalCount: integer("recurring_interval_count").default(1).notNull(),
    currentPeriodStart: timestamptz("current_period_start").notNull(),
    currentPeriodEnd: timestamptz("current_period_end").notNull(),
    trialStart: timestamptz("trial_start"),
    trialEnd: timestamptz("trial_end"),
    cancelAtPeriodEnd: boolean("cancel_at_period_end").default(false).notNull(),
    canceledAt: timestamptz("canceled_at"),
    startedAt: timestamptz("started_at"),
    endsAt: timestamptz("ends_at"),
    endedAt: timestamptz("ended_at"),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customer.id),
    productId: uuid("product_id").notNull(),
    /**
     * The product the subscription started on, once its product changed (migration 0078, kept by a trigger);
     * null while it never changed. Metrics count a subscription as new under it.
     */
    startedProductId: uuid("started_product_id"),
    /** The prices billed: the static price chosen at checkout and the product's metered prices. */
    priceIds: uuid("price_ids").array().notNull(),
    discountId: uuid("discount_id"),
    checkoutId: uuid("checkout_id"),
    seats: integer("seats"),
    customerCancellationReason: text("customer_cancellation_reason"),
    customerCancellationComment: text("customer_cancellation_comment"),
    /**
     * How the last product change is to be billed (invoice | prorate | next_period | reset): recorded when the
     * seller changes the product, for the renewal that bills the period; null when the product never changed.
     */
    prorationBehavior: text("proration_behavior"),
    /** The add-ons billed with the base product (migration 0088), each with its price, quantity and amount. */
    addOns: jsonb("add_ons").$type<SubscriptionAddOn[]>().default([]).notNull(),
    /** The plan change waiting for the period's end (migration 0056); null when none. */
    pendingUpdate: jsonb("pending_update").$type<PendingUpdateValue>(),
    /** When the customer was told that the trial ends soon (migration 0056): once per trial. */
    trialRemindedAt: timestamptz("trial_reminded_at"),
    /** How renewals are collected (migration 0089); null: the customer's. */
    collectionMethod: text("collection_method").$type<CollectionMethod>(),
    /** With send_invoice: the days an invoice is due after it is issued; null: the customer's. */
    daysUntilDue: integer("days_until_due"),
    /** The buyer's purchase order number, printed on each renewal's invoice. */
    purchaseOrder: text("purchase_order"),
    customFieldData: jsonb("custom_field_data").$type<CustomFieldData>().default({}).notNull(),
    metadata: metadata(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    index("subscription_org_created_idx").on(t.organizationId, t.createdAt),
    index("subscription_org_customer_idx").on(t.organizationId, t.customerId),
    // the list's default order, -started_at (nulls last) then id (migration 0032)
    index("subscription_org_started_idx").on(t.organizationId, t.startedAt.desc().nullsLast(), t.id),
    // the renewal schedule's claim: renewing subscriptions by period end (migration 0033)
    index("subscription_renewal_due_idx").on(t.currentPeriodEnd, t.id).where(sql`${t.status} IN ('trialing', 'active')`),
  ],
);

export const order = pgTable(
  "order",
  {
    id: id(),
    organizationId: org(),
    /** pending | paid | refunded | partially_refunded | void (a wallet top-up whose bank debit was refused) */
    status: text("status").notNull(),
    subtotalAmount: integer("subtotal_amount").notNull(),
    discountAmount: integer("discount_amount").default(0).notNull(),
    netAmount: integer("net_amount").notNull(),
    taxAmount: integer("tax_amount").default(0).notNull(),
    totalAmount: integer("total_amount").notNull(),
    appliedBalanceAmount: integer("applied_balance_amount").default(0).notNull(),
    refundedAmount: integer("refunded_amount").default(0).notNull(),
    refundedTaxAmount: integer("refunded_tax_amount").default(0).notNull(),
    platformFeeAmount: integer("platform_fee_amount").default(0).notNull(),
    platformFeeCurrency: text("platform_fee_currency"),
    currency: text("currency").notNull(),
    /** purchase | subscription_create | subscription_cycle | subscription_update */
    billingReason: text("billing_reason").notNull(),
    billingName: text("billing_name"),
    billingAddress: jsonb("billing_address").$type<AddressValue>(),
    /** The buyer's tax id at the sale, [value, format], for the invoice. */
    billingTaxId: jsonb("billing_tax_id").$type<[string, string]>(),
    /** The legal note the invoice carries (reverse charge), from the tax of the sale. */
    taxNote: text("tax_note"),
    invoiceNumber: text("invoice_number").notNull(),
    isInvoiceGenerated: boolean("is_invoice_generated").default(false).notNull(),
    seats: integer("seats"),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customer.id),
    productId: uuid("product_id"),
    discountId: uuid("discount_id"),
    subscriptionId: uuid("subscription_id").references(() => subscription.id, { onDelete: "set null" }),
    checkoutId: uuid("checkout_id").references(() => checkout.id, { onDelete: "set null" }),
    /** A subscription_cycle order's: the start of the period it renewed (ended). One renewal per period. */
    renewedPeriodStart: timestamptz("renewed_period_start"),
    /** The buyer's purchase order number, printed on the invoice (migration 0089). */
    purchaseOrder: text("purchase_order"),
    /** An invoice with terms (send_invoice): when it is due; null for an order charged at once. */
    dueAt: timestamptz("due_at"),
    /** When the customer was reminded that the invoice is due soon (once). */
    remindedAt: timestamptz("reminded_at"),
    /** When the invoice went past its due date and the organization's dunning took over (once). */
    overdueAt: timestamptz("overdue_at"),
    /** When the customer was reminded once more that the overdue invoice is still owed (migration 0090). */
    overdueRemindedAt: timestamptz("overdue_reminded_at"),
    /** Marked paid by the seller for money received outside the processor: when, and by whom. */
    markedPaidAt: timestamptz("marked_paid_at"),
    markedPaidBy: jsonb("marked_paid_by").$type<MarkedPaidBy>(),
    customFieldData: jsonb("custom_field_data").$type<CustomFieldData>().default({}).notNull(),
    metadata: metadata(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    // the list's default order, -created_at then id (migration 0032)
    index("order_org_created_idx").on(t.organizationId, t.createdAt.desc(), t.id),
    index("order_org_customer_idx").on(t.organizationId, t.customerId),
    uniqueIndex("order_org_invoice_number_uq").on(t.organizationId, t.invoiceNumber),
    // one order per checkout: the last guard against a double confirm
    uniqueIndex("order_checkout_uq").on(t.checkoutId).where(sql`${t.checkoutId} IS NOT NULL`),
    // one renewal order per subscription and period: the last guard against a period billed twice
    uniqueIndex("order_subscription_renewed_period_uq")
      .on(t.subscriptionId, t.renewedPeriodStart)
      .where(sql`${t.renewedPeriodStart} IS NOT NULL`),
    // the invoice reminders' claim (migration 0089)
    index("order_invoice_due_idx").on(t.dueAt, t.id).where(sql`${t.status} = 'pending' AND ${t.dueAt} IS NOT NULL`),
  ],
);

export const orderItem = pgTable(
  "order_item",
  {
    id: id(),
    organizationId: org(),
    orderId: cascadeRef("order_id", () => order.id),
    label: text("label").notNull(),
    amount: integer("amount").notNull(),
    taxAmount: integer("tax_amount").default(0).notNull(),
    /**
     * How the line's tax was computed (rate, jurisdiction, reverse charge, each tax); null: untaxed, or sold before
     * tax.
     */
    tax: jsonb("tax").$type<OrderItemTax>(),
    proration: boolean("proration").default(false).notNull(),
    /** A metered line's billed units (after meter credits); null on a line without units. */
    quantity: integer("quantity"),
    /** A metered line's unit price as its price had it (minor units, may be fractional: "1.5"); null without units. */
    unitAmount: numeric("unit_amount"),
    /** A metered line's consumed, credited and billed units, tiers and cap (shared/tiers.ts); null on other lines. */
    usage: jsonb("usage").$type<UsageLineFacts>(),
    /** A proration line's kind, product, seats and span (0066); null on other lines and on lines made before. */
    prorationFacts: jsonb("proration_facts").$type<ProrationFacts>(),
    /** A wallet top-up order's line: which credit it is (0067); null on other lines. */
    walletCredit: text("wallet_credit").$type<WalletCredit>(),
    /** The service period a subscription's line covers (the invoice's date of supply); null on a one-time line. */
    periodStart: timestamptz("period_start"),
    periodEnd: timestamptz("period_end"),
    productPriceId: uuid("product_price_id"),
    position: integer("position").default(0).notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("order_item_order_idx").on(t.orderId)],
);

/** The last invoice number given per organization; incremented in the confirming transaction. */
export const invoiceCounter = pgTable("invoice_counter", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  prefix: text("prefix").notNull(),
  lastNumber: integer("last_number").default(0).notNull(),
});

/**
 * Side effects (webhook events) written in the transaction that caused them; a worker claims pending rows
 * with FOR UPDATE SKIP LOCKED. `payload` is the event's `data`, the resource in its API shape.
 */
export const outbox = pgTable(
  "outbox",
  {
    id: id(),
    organizationId: org(),
    type: text("type").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    availableAt: timestamptz("available_at").defaultNow().notNull(),
    attempts: integer("attempts").default(0).notNull(),
    processedAt: timestamptz("processed_at"),
    lastError: text("last_error"),
    /**
     * The id of the transaction that processed the row, set by a trigger (migration outbox_listen_cursor) when
     * processed_at is: `till listen` streams in this order, and only once every smaller id has finished.
     */
    processedXid: bigint("processed_xid", { mode: "bigint" }),
    /**
     * A customer email the cause asks for beyond what the event's type tells (a plan change's
     * `subscription_updated`, a renewal ending a trial): read by the customer email subscriber, never sent out.
     */
    mail: text("mail"),
  },
  (t) => [
    index("outbox_pending_idx").on(t.availableAt).where(sql`${t.processedAt} IS NULL`),
    // the retention cleanup (jobs/cleanup.ts)
    index("outbox_processed_at_idx").on(t.processedAt).where(sql`${t.processedAt} IS NOT NULL`),
    index("outbox_org_created_idx").on(t.organizationId, t.createdAt),
    index("outbox_org_processed_idx").on(t.organizationId, t.processedXid, t.id).where(sql`${t.processedXid} IS NOT NULL`),
  ],
);
