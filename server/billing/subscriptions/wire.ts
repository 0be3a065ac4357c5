// The Polar `Subscription` shape and the `OrderSubscription` part orders embed, from subscription rows.
// Emits the superset of SDK 0.47.1 and 0.49.0 (0.49.0 adds pause and meter-period fields).
import type { InferSelectModel } from "drizzle-orm";
import type { subscription } from "../../db/schema/index.js";
import { uuidV5 } from "../ids.js";
import type { CustomerWire } from "../customers/wire.js";
import type { MeterWire } from "../meters/wire.js";
import { productSummaryOf, type PriceWire, type ProductWire } from "../products/wire.js";

export type SubscriptionRow = InferSelectModel<typeof subscription>;

export const SUBSCRIPTION_STATUSES = ["incomplete", "incomplete_expired", "trialing", "active", "past_due", "canceled", "unpaid"] as const;
/** Statuses that give the customer access (Polar's active statuses). */
export const ACTIVE_STATUSES = ["trialing", "active"] as const;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** `OrderSubscription`: the subscription without its customer, product and prices. */
export function toSubscriptionBaseWire(row: SubscriptionRow) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: iso(row.modifiedAt),
    id: row.id,
    // the whole recurring amount, as Polar's: the base price's and every add-on's
    amount: row.amount + addOnsAmount(row),
    currency: row.currency,
    recurring_interval: row.recurringInterval,
    recurring_interval_count: row.recurringIntervalCount,
    status: row.status,
    current_period_start: row.currentPeriodStart.toISOString(),
    current_period_end: row.currentPeriodEnd.toISOString(),
    // metered usage is billed over the same period as the subscription
    current_meter_period_start: row.currentPeriodStart.toISOString(),
    current_meter_period_end: row.currentPeriodEnd.toISOString(),
    trial_start: iso(row.trialStart),
    trial_end: iso(row.trialEnd),
    cancel_at_period_end: row.cancelAtPeriodEnd,
    pause_at_period_end: false,
    canceled_at: iso(row.canceledAt),
    started_at: iso(row.startedAt),
    ends_at: iso(row.endsAt),
    ended_at: iso(row.endedAt),
    paused_at: null,
    resumes_at: null,
    past_due_at: null,
    customer_id: row.customerId,
    product_id: row.productId,
    discount_id: row.discountId ?? null,
    checkout_id: row.checkoutId ?? null,
    seats: row.seats ?? null,
    customer_cancellation_reason: row.customerCancellationReason ?? null,
    customer_cancellation_comment: row.customerCancellationComment ?? null,
    metadata: row.metadata,
    custom_field_data: row.customFieldData,
    // till's own (the SDKs drop them): the subscription's own collection terms (null: its customer's) and the
    // buyer's purchase order number for its invoices
    collection_method: row.collectionMethod ?? null,
    days_until_due: row.daysUntilDue ?? null,
    purchase_order: row.purchaseOrder ?? null,
  };
}

/**
 * A UUID (version 5, named by the meter in the subscription's namespace) for a subscription's meter: till keeps
 * no subscription-meter rows, and the id stays the same across reads and periods.
 */
export const subscriptionMeterId = (subscriptionId: string, meterId: string): string => uuidV5(subscriptionId, meterId);

/** `SubscriptionMeter`: a metered price's usage over the current period and what it adds to the bill. */
export function toSubscriptionMeterWire(row: SubscriptionRow, u: { meter: MeterWire; consumed: number; credited: number; amount: number }) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: null,
    id: subscriptionMeterId(row.id, u.meter.id),
    consumed_units: u.consumed,
    credited_units: u.credited,
    amount: u.amount,
    meter_id: u.meter.id,
    meter: u.meter,
  };
}
export type SubscriptionMeterWire = ReturnType<typeof toSubscriptionMeterWire>;

/** What the add-ons add to the base amount per period. */
export const addOnsAmount = (row: Pick<SubscriptionRow, "addOns">) => row.addOns.reduce((sum, a) => sum + a.amount, 0);

/** The add-ons' products and prices, by id (subscriptions/add-ons.ts loads them). */
export interface AddOnEmbeds {
  products: Map<string, ProductWire>;
  prices: Map<string, PriceWire>;
}

/**
 * till's `items` extension: the add-ons billed with the base product (`product`), each with its product, price and
 * quantity; `amount` is what it adds per period. Their prices are in `prices` too (Polar's wire: every price billed).
 */
export function addOnItemsWire(row: SubscriptionRow, e: AddOnEmbeds | undefined) {
  return row.addOns.map((a) => {
    const product = e?.products.get(a.productId);
    return {
      id: a.id,
      created_at: a.createdAt,
      product_id: a.productId,
      product: product ? productSummaryOf(product) : null,
      price_id: a.priceId,
      price: e?.prices.get(a.priceId) ?? null,
      quantity: a.quantity,
      amount: a.amount,
    };
  });
}
export type SubscriptionItemWire = ReturnType<typeof addOnItemsWire>[number];

export interface SubscriptionEmbeds {
  customer: CustomerWire;
  product: ProductWire;
  discount: Record<string, unknown> | null;
  /** The base product's prices billed (the add-ons' are added from `addOns`). */
  prices: PriceWire[];
  /** The add-ons' products and prices; left out, the items name their ids only. */
  addOns?: AddOnEmbeds | undefined;
  /** The metered prices' usage (see usage.ts); left out, none is reported (a subscription just created). */
  meters?: SubscriptionMeterWire[] | undefined;
}

export function toSubscriptionWire(row: SubscriptionRow, e: SubscriptionEmbeds) {
  return {
    ...toSubscriptionBaseWire(row),
    customer: e.customer,
    product: e.product,
    discount: e.discount,
    prices: [...e.prices, ...row.addOns.flatMap((a) => e.addOns?.prices.get(a.priceId) ?? [])],
    meters: e.meters ?? [],
    pending_update: pendingUpdateWire(row),
    items: addOnItemsWire(row, e.addOns),
  };
}

/** `PendingSubscriptionUpdate`: the plan change waiting for the period's end (next_period), or null. */
export function pendingUpdateWire(row: SubscriptionRow) {
  const p = row.pendingUpdate;
  if (!p) return null;
  // till's own `items`: the add-ons the renewal writes (null: they stay as they are)
  const items = p.addOns?.map((a) => ({ product_id: a.productId, price_id: a.priceId, quantity: a.quantity, amount: a.amount })) ?? null;
  return { created_at: p.createdAt, modified_at: null, id: p.id, applies_at: p.appliesAt, product_id: p.productId, seats: p.seats, items };
}
export type SubscriptionWire = ReturnType<typeof toSubscriptionWire>;
