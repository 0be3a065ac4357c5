// Stripe's customers and subscriptions in the importer's neutral words (payments/billing-import.ts): saved payment
// methods by reference, tax ids, and each subscription's items, coupons and current period. In this API version
// (2026-10-28.endive) the period is the items' (`current_period_start/end` on each item) and a subscription's coupons
// are in its `discounts` (each discount's `source.coupon`).
import type Stripe from "stripe";
import { BillingSourceError, type SourceCustomer, type SourcePaymentMethod, type SourceSubscription, type SourceSubscriptionItem } from "../../billing-import.js";
import { dateOf, dateOrNull, idOf, known, metadataOf } from "./map-catalog.js";

/** The metadata key the hand-over leaves on a subscription: till's subscription it moved to. */
export const MOVED_TO_KEY = "till_subscription_id";
/** The metadata key of when it moves (the end of the period it was handed over in). */
export const MOVED_AT_KEY = "moved_to_till_at";

/** A saved PaymentMethod: a card's brand and expiry; a bank account's bank (else its type), no expiry. */
export function mapPaymentMethod(pm: Stripe.PaymentMethod): SourcePaymentMethod {
  if (pm.card) return { id: pm.id, type: pm.type, brand: pm.card.brand, last4: pm.card.last4, expMonth: pm.card.exp_month, expYear: pm.card.exp_year };
  const bank = pm.us_bank_account ?? pm.acss_debit ?? pm.nz_bank_account ?? pm.sepa_debit ?? pm.au_becs_debit ?? pm.bacs_debit;
  const bankName = bank && "bank_name" in bank ? bank.bank_name : null;
  return { id: pm.id, type: pm.type, brand: bankName || pm.type, last4: bank?.last4 ?? "", expMonth: 0, expYear: 0 };
}

/**
 * The method of an expanded `default_payment_method`; null when none. A legacy `default_source` (a card saved before
 * PaymentMethods) is not read: such a customer comes without a default method.
 */
export function defaultMethodOf(pm: string | Stripe.PaymentMethod | null): SourcePaymentMethod | null {
  if (pm === null) return null;
  if (typeof pm === "string") throw new BillingSourceError(`Stripe answered the payment method ${pm} unexpanded.`, false);
  return mapPaymentMethod(pm);
}

/** A customer; `taxIds` are its tax ids read in full (the list's first page is on `tax_ids`). */
export function mapCustomer(customer: Stripe.Customer, taxIds: Stripe.TaxId[] = customer.tax_ids?.data ?? []): SourceCustomer {
  const a = customer.address;
  return {
    id: customer.id,
    email: customer.email,
    name: customer.name ?? null,
    address: a
      ? { line1: a.line1, line2: a.line2, postalCode: a.postal_code, city: a.city, state: a.state, country: a.country ? a.country.toUpperCase() : null }
      : null,
    taxIds: taxIds.map((t) => ({ type: t.type, value: t.value })),
    metadata: metadataOf(customer.metadata),
    defaultPaymentMethod: defaultMethodOf(customer.invoice_settings.default_payment_method),
    created: dateOf(customer.created),
  };
}

function mapItem(item: Stripe.SubscriptionItem): SourceSubscriptionItem {
  const metered = item.price.recurring?.usage_type === "metered";
  return { id: item.id, priceId: item.price.id, quantity: metered ? null : (item.quantity ?? 1) };
}

/** The subscription's current period: the items' (when they disagree, the one that ends first). */
export function periodOf(id: string, items: Stripe.SubscriptionItem[]): { start: number; end: number } {
  let first: Stripe.SubscriptionItem | undefined;
  for (const item of items) if (!first || item.current_period_end < first.current_period_end) first = item;
  if (!first) throw new BillingSourceError(`Stripe answered the subscription ${id} without items.`, false);
  return { start: first.current_period_start, end: first.current_period_end };
}

/** The coupons of the subscription as a whole (an item's own discounts are not the subscription's). */
export function couponIdsOf(subscription: Stripe.Subscription): string[] {
  const ids: string[] = [];
  for (const discount of subscription.discounts) {
    if (typeof discount === "string") throw new BillingSourceError(`Stripe answered the discounts of the subscription ${subscription.id} unexpanded.`, false);
    if (discount.subscription_item) continue;
    const coupon = idOf(discount.source.coupon);
    if (coupon && !ids.includes(coupon)) ids.push(coupon);
  }
  return ids;
}

/** A subscription; `items` are its items read in full (the list's first page is on `items`). */
export function mapSubscription(subscription: Stripe.Subscription, items: Stripe.SubscriptionItem[] = subscription.items.data): SourceSubscription {
  const s = subscription;
  const period = periodOf(s.id, items);
  const customerId = idOf(s.customer);
  if (!customerId) throw new BillingSourceError(`Stripe answered the subscription ${s.id} without its customer.`, false);
  const metadata = metadataOf(s.metadata);
  const mark = metadata[MOVED_TO_KEY];
  return {
    id: s.id,
    customerId,
    status: s.status,
    collection: known(s.collection_method, ["charge_automatically", "send_invoice"], "a collection method") === "send_invoice" ? "send_invoice" : "automatic",
    daysUntilDue: s.collection_method === "send_invoice" ? s.days_until_due : null,
    items: items.map(mapItem),
    couponIds: couponIdsOf(s),
    currency: s.currency.toLowerCase(),
    currentPeriodStart: dateOf(period.start),
    currentPeriodEnd: dateOf(period.end),
    trialStart: dateOrNull(s.trial_start),
    trialEnd: dateOrNull(s.trial_end),
    cancelAtPeriodEnd: s.cancel_at_period_end,
    // Stripe also sets cancel_at to the period's end when the subscription ends with it: that is no other date
    cancelAt: s.cancel_at !== null && s.cancel_at !== period.end ? dateOf(s.cancel_at) : null,
    paused: s.pause_collection !== null,
    defaultPaymentMethod: defaultMethodOf(s.default_payment_method),
    metadata,
    movedTo: mark && s.cancel_at_period_end ? mark : null,
    created: dateOf(s.created),
  };
}

/** Ended subscriptions (nothing renews there) are not the importer's. */
export const isEnded = (s: Stripe.Subscription) => s.status === "canceled" || s.status === "incomplete_expired";
