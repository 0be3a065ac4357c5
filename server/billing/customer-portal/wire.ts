// The customer portal's shapes (Polar's Customer* models): what a customer may see of their own orders,
// subscriptions, benefit grants and the seller. Built from the seller-side wires by picking fields, so a
// customer never sees the seller's metadata, custom field data, fees or other customers.
import { assertNever, isBenefitType } from "../../../shared/kinds.js";
import { type BenefitGrantWire, type BenefitWire, toBenefitPublicWire } from "../benefits/wire.js";
import { meterCreditExtensions } from "../benefits/meter-credit.js";
import { toCheckoutProductWire } from "../checkouts/wire.js";
import type { CustomerWire } from "../customers/wire.js";
import { toFileReadWire, type FileRow } from "../files/wire.js";
import { uuidV5 } from "../ids.js";
import type { OrderWire } from "../orders/wire.js";
import { toOrganizationSummaryWire, type OrganizationWire } from "../organizations/wire.js";
import { addOnPrice } from "../products/add-ons.js";
import type { ProductWire } from "../products/wire.js";
import type { SubscriptionWire } from "../subscriptions/wire.js";

/** BenefitSubscriberOrganization. */
export const toSubscriberOrganizationWire = toOrganizationSummaryWire;

/** CustomerOrganization. */
export const toCustomerOrganizationWire = (o: OrganizationWire) => ({
  ...toSubscriberOrganizationWire(o),
  customer_portal_settings: o.customer_portal_settings,
  organization_features: { member_model_enabled: false },
});
export type CustomerOrganizationWire = ReturnType<typeof toCustomerOrganizationWire>;

/** CustomerProduct: the same fields as the checkout's product (no metadata, public benefits). */
export const toCustomerProductWire = toCheckoutProductWire;

/** CustomerOrderProduct / CustomerSubscriptionProduct: the product with its seller. */
export const toCustomerProductWithOrganizationWire = (p: ProductWire, o: OrganizationWire) => ({
  ...toCustomerProductWire(p),
  organization: toCustomerOrganizationWire(o),
});

/** CustomerPortalCustomer. */
export function toPortalCustomerWire(c: CustomerWire) {
  return {
    created_at: c.created_at,
    modified_at: c.modified_at,
    id: c.id,
    email: c.email,
    email_verified: c.email_verified,
    name: c.name,
    billing_name: c.billing_name ?? c.name,
    billing_address: c.billing_address,
    tax_id: c.tax_id,
    oauth_accounts: {},
    default_payment_method_id: null,
  };
}
export type PortalCustomerWire = ReturnType<typeof toPortalCustomerWire>;

/**
 * The subscription fields a customer sees (CustomerOrderSubscription; CustomerSubscription adds embeds), with what SDK
 * 0.49.0 also requires.
 */
function subscriptionFields(s: SubscriptionWire | NonNullable<OrderWire["subscription"]>) {
  return {
    created_at: s.created_at,
    modified_at: s.modified_at,
    id: s.id,
    amount: s.amount,
    currency: s.currency,
    recurring_interval: s.recurring_interval,
    recurring_interval_count: s.recurring_interval_count,
    status: s.status,
    current_period_start: s.current_period_start,
    current_period_end: s.current_period_end,
    current_meter_period_start: s.current_meter_period_start,
    current_meter_period_end: s.current_meter_period_end,
    trial_start: s.trial_start,
    trial_end: s.trial_end,
    cancel_at_period_end: s.cancel_at_period_end,
    pause_at_period_end: s.pause_at_period_end,
    canceled_at: s.canceled_at,
    started_at: s.started_at,
    ends_at: s.ends_at,
    ended_at: s.ended_at,
    paused_at: s.paused_at,
    resumes_at: s.resumes_at,
    customer_id: s.customer_id,
    product_id: s.product_id,
    discount_id: s.discount_id,
    checkout_id: s.checkout_id,
    seats: s.seats,
    customer_cancellation_reason: s.customer_cancellation_reason,
    customer_cancellation_comment: s.customer_cancellation_comment,
    // till's own (the SDKs drop it): the purchase order number the customer gave for its invoices
    purchase_order: s.purchase_order,
  };
}

/**
 * CustomerSubscription. `product` is null only for a product deleted since (never: products are archived).
 * `offered`: the add-ons the customer may add (availableAddOns); none for a seat holder, who changes nothing.
 */
export function toCustomerSubscriptionWire(s: SubscriptionWire, product: ProductWire, o: OrganizationWire, offered: ProductWire[] = []) {
  return {
    ...subscriptionFields(s),
    product: toCustomerProductWithOrganizationWire(product, o),
    prices: s.prices,
    meters: s.meters.map((m) => ({
      created_at: m.created_at,
      modified_at: m.modified_at,
      id: m.id,
      consumed_units: m.consumed_units,
      credited_units: m.credited_units,
      amount: m.amount,
      meter_id: m.meter_id,
      meter: { created_at: m.meter.created_at, modified_at: m.meter.modified_at, id: m.meter.id, name: m.meter.name },
    })),
    pending_update: s.pending_update,
    // till's own: the add-ons held with the base product, as the seller's wire has them
    items: s.items,
    // till's own: the add-ons the base product offers that this subscription can be billed for (the checkout's list)
    available_add_ons: offered.map(toCustomerProductWire),
  };
}
export type CustomerSubscriptionWire = ReturnType<typeof toCustomerSubscriptionWire>;

/**
 * The add-ons a subscription may hold, in the order the seller lists them: the base product's `add_on_ids` that are
 * live and priced in the subscription's currency (`products` holds them by id).
 */
export function availableAddOns(s: Pick<SubscriptionWire, "currency">, base: ProductWire, products: Map<string, ProductWire>): ProductWire[] {
  return base.add_on_ids.flatMap((id) => {
    const p = products.get(id);
    return p && !p.is_archived && addOnPrice(p, s.currency) ? [p] : [];
  });
}

/** CustomerOrder. */
export function toCustomerOrderWire(w: OrderWire, product: ProductWire | null, o: OrganizationWire) {
  return {
    id: w.id,
    created_at: w.created_at,
    modified_at: w.modified_at,
    status: w.status,
    paid: w.paid,
    subtotal_amount: w.subtotal_amount,
    discount_amount: w.discount_amount,
    net_amount: w.net_amount,
    tax_amount: w.tax_amount,
    total_amount: w.total_amount,
    applied_balance_amount: w.applied_balance_amount,
    due_amount: w.due_amount,
    refunded_amount: w.refunded_amount,
    refunded_tax_amount: w.refunded_tax_amount,
    refundable_amount: w.refundable_amount,
    refundable_tax_amount: w.refundable_tax_amount,
    currency: w.currency,
    billing_reason: w.billing_reason,
    billing_name: w.billing_name,
    billing_address: w.billing_address,
    invoice_number: w.invoice_number,
    receipt_number: w.receipt_number,
    is_invoice_generated: w.is_invoice_generated,
    seats: w.seats,
    customer_id: w.customer_id,
    product_id: w.product_id,
    discount_id: w.discount_id,
    subscription_id: w.subscription_id,
    checkout_id: w.checkout_id,
    product: product ? toCustomerProductWithOrganizationWire(product, o) : null,
    subscription: w.subscription ? subscriptionFields(w.subscription) : null,
    items: w.items,
    description: w.description,
    next_payment_attempt_at: null,
    // till's own (the SDKs drop them): the buyer's purchase order number, and when an invoice with terms is due
    purchase_order: w.purchase_order,
    due_at: w.due_at,
  };
}
export type CustomerOrderWire = ReturnType<typeof toCustomerOrderWire>;

/** A downloadables benefit's files that are not archived, in the benefit's order. */
export function activeFilesOf(properties: Record<string, unknown>): string[] {
  const archived = (properties.archived ?? {}) as Record<string, unknown>;
  const files = Array.isArray(properties.files) ? properties.files.filter((f): f is string => typeof f === "string") : [];
  return files.filter((f) => archived[f] !== true);
}

/**
 * The benefit's properties a customer may see (Benefit*SubscriberProperties): no tokens, no private notes of other
 * types.
 */
function subscriberProperties(b: BenefitWire): Record<string, unknown> {
  const p = b.properties;
  const type = b.type;
  if (!isBenefitType(type)) return {};
  switch (type) {
    case "custom":
      return { note: typeof p.note === "string" ? p.note : null };
    case "discord":
      return { guild_id: p.guild_id };
    case "github_repository":
      return { repository_owner: p.repository_owner, repository_name: p.repository_name };
    case "downloadables":
      return { active_files: activeFilesOf(p) };
    case "license_keys":
      return { prefix: p.prefix, expires: p.expires, activations: p.activations, limit_usage: p.limit_usage };
    case "meter_credit":
      return { units: p.units, rollover: p.rollover, meter_id: p.meter_id, ...meterCreditExtensions(p) };
    case "feature_flag":
      return {};
    default:
      return assertNever(type, "benefit type");
  }
}

/**
 * A grant's error as the customer reads it: what they can do (connect an account), else that access follows
 * once the seller has set it up; the seller's own message (which names `till` commands) is the seller's.
 */
function customerGrantError(g: BenefitGrantWire): BenefitGrantWire["error"] {
  if (!g.error) return null;
  const platform = g.benefit.type === "discord" ? "Discord" : "GitHub";
  const message =
    g.error.type === "account_not_connected"
      ? `Connect your ${platform} account in the customer portal to get access.`
      : "Access will follow once the seller has finished setting up this benefit.";
  return { ...g.error, message };
}

/** CustomerBenefitGrant* (by benefit type). */
export function toCustomerBenefitGrantWire(g: BenefitGrantWire, o: OrganizationWire) {
  const b = g.benefit;
  return {
    created_at: g.created_at,
    modified_at: g.modified_at,
    id: g.id,
    granted_at: g.granted_at,
    revoked_at: g.revoked_at,
    customer_id: g.customer_id,
    member_id: g.member_id,
    benefit_id: g.benefit_id,
    subscription_id: g.subscription_id,
    order_id: g.order_id,
    is_granted: g.is_granted,
    is_revoked: g.is_revoked,
    error: customerGrantError(g),
    customer: toPortalCustomerWire(g.customer),
    benefit: {
      ...toBenefitPublicWire(b),
      metadata: b.metadata,
      organization: toSubscriberOrganizationWire(o),
      properties: subscriberProperties(b),
    },
    properties: g.properties,
  };
}

/** DownloadableRead: a file of a granted downloadables benefit, with a signed URL that serves its bytes. */
export function toDownloadableWire(grant: { id: string; benefit_id: string }, file: FileRow, download: { url: string; expiresAt: Date }, baseURL: string) {
  return {
    // till keeps no downloadable rows: the id is named by the grant and the file
    id: uuidV5(grant.id, file.id),
    benefit_id: grant.benefit_id,
    file: { ...toFileReadWire(file, baseURL), download: { url: download.url, headers: {}, expires_at: download.expiresAt.toISOString() } },
  };
}
