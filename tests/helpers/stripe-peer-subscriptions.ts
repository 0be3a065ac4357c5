// The stand-in's subscriptions (https://docs.stripe.com/api/subscriptions) and their items
// (/api/subscription_items), as API version 2026-10-28.endive shows them: the period on each ITEM
// (`current_period_start/end`), `discounts` an array of discount ids (expandable; each from a coupon or a
// promotion code), `cancel_at` set with `cancel_at_period_end`. Made active at once (the first invoice paid with
// the subscription's or the customer's default payment method) or trialing until `trial_end`; a charge that cannot
// be made leaves it `incomplete`. Updated (cancel_at_period_end, metadata merged, default payment method, discounts),
// canceled, listed (by status — by default not canceled — customer, price). Sends customer.subscription.* events.
import type { FastifyRequest } from "fastify";
import type { Authed, Params, PeerRoute } from "./stripe-peer.js";
import { StripeFailure } from "./stripe-peer.js";
import type { BillingCtx } from "./stripe-peer-billing.js";
import { addInterval, chargedMethod, invoiceFor, periodEndOf } from "./stripe-peer-billing-clock.js";
import { redeem } from "./stripe-peer-coupons.js";
import { missing, str } from "./stripe-peer-instruments.js";
import { expandOf, mergeMetadata, visible, type Json, type Stored } from "./stripe-peer-store.js";
import { newId } from "./stripe-peer-util.js";

const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;
const int = (v: unknown) => (v === undefined || v === "" ? null : Number(v));
const invalid = (message: string, param?: string) => new StripeFailure(400, { type: "invalid_request_error", ...(param ? { param } : {}), message });
/** The subscription's bookkeeping, not Stripe's fields: its interval and how many periods since its anchor. */
const INTERNAL = ["interval", "cycle"];

/** A plan (the legacy shape every item still carries) from a recurring price. */
function planOf(price: Json): Json {
  const r = price.recurring as Json;
  return {
    id: price.id, object: "plan", active: price.active, amount: price.unit_amount, amount_decimal: price.unit_amount_decimal,
    billing_scheme: price.billing_scheme, created: price.created, currency: price.currency, interval: r.interval,
    interval_count: r.interval_count, livemode: price.livemode, metadata: price.metadata, meter: r.meter, nickname: price.nickname,
    product: price.product, tiers_mode: price.tiers_mode, transform_usage: price.transform_quantity, trial_period_days: r.trial_period_days,
    usage_type: r.usage_type,
  };
}

function registerKinds({ b }: BillingCtx): void {
  const mine = (map: Map<string, Stored>) => (auth: Authed, id: string) => {
    const o = map.get(id);
    return o && o.account === auth.account.id && o.livemode === auth.livemode ? o : undefined;
  };
  const priceKind = () => b.expander.kinds.get("price");
  const showItem = (o: Stored) => {
    const price = b.prices.map.get(String(o.price));
    const shownPrice = price ? (priceKind()?.show(price, new Set()) ?? {}) : {};
    return { ...visible(o), price: shownPrice, plan: planOf(shownPrice) };
  };
  b.expander.kinds.set("subscription_item", { show: showItem, find: mine(b.subscriptionItems.map), nested: { price: "price" } });
  b.expander.kinds.set("subscription", {
    show: (o) => {
      const data = [...b.subscriptionItems.all(o, `subscription:${o.id}`)].map(showItem);
      const items = { object: "list", data, has_more: false, total_count: data.length, url: `/v1/subscription_items?subscription=${o.id}` };
      return { ...visible(o, [], new Set(), INTERNAL), items };
    },
    find: mine(b.subscriptions.map),
    links: { customer: "customer", default_payment_method: "payment_method", default_source: "payment_method", discounts: "discount", latest_invoice: "invoice" },
    nested: { "items.data": "subscription_item" },
  });
  b.expander.kinds.set("discount", {
    show: (o) => visible(o), find: mine(b.discounts),
    links: { customer: "customer", promotion_code: "promotion_code", "source.coupon": "coupon", subscription: "subscription" },
  });
}

/** The discounts of a create or an update (`[{coupon}|{promotion_code}]`), redeemed and made. */
function discountsOf(ctx: BillingCtx, auth: Authed, sub: { id: string; customer: string }, v: unknown, at: number): string[] {
  return (Array.isArray(v) ? (v as Params[]) : []).map((d) => {
    const { coupon, promotion } = redeem(ctx.b, auth, { coupon: str(d.coupon), promotion_code: str(d.promotion_code) }, at);
    const months = coupon.duration === "repeating" ? Number(coupon.duration_in_months) : null;
    const discount: Stored = {
      id: newId("di"), object: "discount", checkout_session: null, customer: sub.customer, customer_account: null,
      end: months === null ? null : addInterval(at, "month", months), invoice: null, invoice_item: null,
      promotion_code: promotion?.id ?? null, source: { coupon: coupon.id, type: "coupon" }, start: at, subscription: sub.id,
      subscription_item: null, account: auth.account.id, livemode: auth.livemode, created: at,
    };
    ctx.b.discounts.set(discount.id, discount);
    return discount.id;
  });
}

/** The items of a create: each a recurring price of the caller's, all of one currency and one interval. */
function itemsOf(ctx: BillingCtx, auth: Authed, p: Params) {
  if (!Array.isArray(p.items) || p.items.length === 0) throw missing("items");
  const items = (p.items as Params[]).map((item, i) => {
    const price = ctx.b.prices.own(auth, String(item.price ?? ""), "price", `items[${i}][price]`);
    if (price.type !== "recurring") throw invalid(`The price specified is set to \`type=one_time\` but this field only accepts prices with \`type=recurring\`.`, `items[${i}][price]`);
    return { price, quantity: int(item.quantity), metadata: mergeMetadata({}, item.metadata) };
  });
  const [first] = items;
  const interval = (first?.price.recurring ?? {}) as Json;
  const differs = (r: Json) => r.interval !== interval.interval || r.interval_count !== interval.interval_count;
  if (items.some((i) => i.price.currency !== first?.price.currency || differs(i.price.recurring as Json))) {
    throw invalid("Currency and interval fields must match across all plans on this subscription.", "items");
  }
  return { items, currency: String(first?.price.currency), interval: { interval: String(interval.interval), count: Number(interval.interval_count) } };
}

function create(ctx: BillingCtx, auth: Authed, p: Params): Stored {
  const { peer, b, nowOf } = ctx;
  const at = nowOf(auth);
  const customer = b.customers.own(auth, String(p.customer ?? ""), "customer", "customer");
  const { items, currency, interval } = itemsOf(ctx, auth, p);
  const collection = str(p.collection_method) ?? "charge_automatically";
  if (collection === "send_invoice" && p.days_until_due === undefined) throw missing("days_until_due");
  const method = str(p.default_payment_method);
  if (method && peer.payments.paymentMethods.get(method)?.customer !== customer.id) {
    throw invalid(`The customer does not have a payment method with the ID ${method}. The payment method must be attached to the customer.`, "default_payment_method");
  }
  if (typeof p.trial_end === "string" && p.trial_end !== "now" && Number(p.trial_end) <= at) {
    throw invalid("Invalid timestamp: must be an integer Unix timestamp in the future.", "trial_end");
  }
  const trialEnd = p.trial_end === "now" ? null : p.trial_end !== undefined ? Number(p.trial_end) : p.trial_period_days !== undefined ? at + Number(p.trial_period_days) * 86_400 : null;
  const trialing = trialEnd !== null && trialEnd > at;
  const anchor = trialing ? trialEnd : at;
  const sub: Stored = {
    id: newId("sub"), object: "subscription", application: null, application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null }, billing_cycle_anchor: anchor, billing_cycle_anchor_config: null,
    billing_mode: { type: "flexible", flexible: { proration_discounts: "included" }, updated_at: at }, billing_schedules: [],
    billing_thresholds: null, cancel_at: null, cancel_at_period_end: false, canceled_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null }, collection_method: collection, created: at, currency,
    customer: customer.id, customer_account: null, days_until_due: int(p.days_until_due), default_payment_method: method ?? null,
    default_source: null, default_tax_rates: [], description: str(p.description) ?? null, discounts: [], ended_at: null,
    invoice_settings: { account_tax_ids: null, issuer: { type: "self" } }, latest_invoice: null, livemode: auth.livemode,
    managed_payments: null, metadata: mergeMetadata({}, p.metadata), next_pending_invoice_item_invoice: null, on_behalf_of: null,
    pause_collection: null, payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: "off" },
    pending_invoice_item_interval: null, pending_setup_intent: null, pending_update: null, schedule: null, start_date: at,
    status: trialing ? "trialing" : "active", test_clock: null, transfer_data: null, trial_end: trialing ? trialEnd : null,
    trial_settings: { end_behavior: { missing_payment_method: "create_invoice" } }, trial_start: trialing ? at : null,
    interval, cycle: trialing ? 0 : 1, account: auth.account.id,
  };
  if (!trialing && collection === "charge_automatically" && !chargedMethod(b, sub)) {
    throw invalid("This customer has no attached payment source or default payment method. Please consider adding a default payment method.");
  }
  sub.discounts = discountsOf(ctx, auth, { id: sub.id, customer: customer.id }, p.discounts, at);
  b.subscriptions.add(sub);
  const end = trialing ? anchor : addInterval(anchor, interval.interval, interval.count);
  for (const item of items) {
    const metered = (item.price.recurring as Json).usage_type === "metered";
    b.subscriptionItems.add({
      id: newId("si"), object: "subscription_item", billing_thresholds: null, created: at, current_period_end: end, current_period_start: at,
      current_trial: null, discounts: [], metadata: item.metadata, price: item.price.id, ...(metered ? {} : { quantity: item.quantity ?? 1 }),
      subscription: sub.id, tax_rates: [], account: auth.account.id, livemode: auth.livemode,
    });
  }
  const invoice = invoiceFor(ctx, sub, "subscription_create", at, end, false);
  // a trial's first invoice is of nothing; a charge that fails leaves the subscription incomplete
  if (trialing) Object.assign(invoice, { amount_due: 0, amount_paid: 0, status: "paid" });
  else if (invoice.status === "open" && collection === "charge_automatically") sub.status = "incomplete";
  // made to end with its first period (Stripe sets cancel_at to that end too)
  if (p.cancel_at_period_end === "true") Object.assign(sub, { cancel_at_period_end: true, cancel_at: end, canceled_at: at });
  return sub;
}

function update(ctx: BillingCtx, auth: Authed, sub: Stored, p: Params): void {
  const { b, nowOf } = ctx;
  const at = nowOf(auth);
  const touched = Object.keys(p).filter((k) => !["metadata", "cancellation_details", "expand"].includes(k));
  if (["canceled", "incomplete_expired"].includes(String(sub.status)) && touched.length > 0) {
    throw invalid("A canceled subscription can only update its cancellation_details and metadata.", touched[0]);
  }
  sub.metadata = mergeMetadata(sub.metadata as Record<string, string>, p.metadata);
  if (p.cancel_at_period_end !== undefined) {
    const cancel = p.cancel_at_period_end === "true";
    Object.assign(sub, { cancel_at_period_end: cancel, cancel_at: cancel ? periodEndOf(b, sub) : null, canceled_at: cancel ? at : null });
  }
  if (p.cancel_at !== undefined) Object.assign(sub, { cancel_at: int(p.cancel_at), cancel_at_period_end: false, canceled_at: p.cancel_at === "" ? null : at });
  if (p.default_payment_method !== undefined) sub.default_payment_method = str(p.default_payment_method) || null;
  if (p.description !== undefined) sub.description = str(p.description) || null;
  if (p.collection_method !== undefined) sub.collection_method = String(p.collection_method);
  if (p.days_until_due !== undefined) sub.days_until_due = int(p.days_until_due);
  if (p.discounts !== undefined) sub.discounts = discountsOf(ctx, auth, { id: sub.id, customer: String(sub.customer) }, p.discounts, at);
  if (p.trial_end === "now" && sub.status === "trialing") {
    const interval = sub.interval as { interval: string; count: number };
    Object.assign(sub, { status: "active", trial_end: at, billing_cycle_anchor: at, cycle: 1 });
    const end = addInterval(at, interval.interval, interval.count);
    for (const item of b.subscriptionItems.all(sub, `subscription:${sub.id}`)) [item.current_period_start, item.current_period_end] = [at, end];
    if (invoiceFor(ctx, sub, "subscription_cycle", at, end).status === "open" && sub.collection_method === "charge_automatically") sub.status = "past_due";
  }
}

const LISTED_BY_DEFAULT = (status: string) => status !== "canceled" && status !== "incomplete_expired";

export function registerSubscriptions(ctx: BillingCtx, route: PeerRoute): void {
  const { peer, b, nowOf } = ctx;
  registerKinds(ctx);
  const show = (auth: Authed, o: Stored, p: Params) => b.expander.show(auth, "subscription", o, expandOf(p));
  const emit = (auth: Authed, type: string, o: Stored) => peer.emit(auth, type, b.expander.show(auth, "subscription", o, []));
  route("POST", "/v1/subscriptions", "subscription_write", (auth, req) => {
    const p = peer.params(req);
    const sub = create(ctx, auth, p);
    emit(auth, "customer.subscription.created", sub);
    return show(auth, sub, p);
  });
  route("GET", "/v1/subscriptions/:id", "subscription_read", (auth, req) => show(auth, b.subscriptions.own(auth, idOf(req), "subscription"), peer.params(req)));
  route("POST", "/v1/subscriptions/:id", "subscription_write", (auth, req) => {
    const p = peer.params(req);
    const sub = b.subscriptions.own(auth, idOf(req), "subscription");
    update(ctx, auth, sub, p);
    emit(auth, "customer.subscription.updated", sub);
    return show(auth, sub, p);
  });
  route("DELETE", "/v1/subscriptions/:id", "subscription_write", (auth, req) => {
    const p = peer.params(req);
    const sub = b.subscriptions.own(auth, idOf(req), "subscription");
    if (sub.status === "canceled") throw invalid(`A canceled subscription can't be canceled again.`);
    const at = nowOf(auth);
    const details = (p.cancellation_details ?? {}) as Params;
    Object.assign(sub, {
      status: "canceled", canceled_at: at, ended_at: at, cancel_at_period_end: false, cancel_at: null,
      cancellation_details: { comment: str(details.comment) ?? null, feedback: str(details.feedback) ?? null, reason: "cancellation_requested" },
    });
    emit(auth, "customer.subscription.deleted", sub);
    return show(auth, sub, p);
  });
  route("GET", "/v1/subscriptions", "subscription_read", (auth, req) => {
    const p = peer.params(req);
    const status = str(p.status);
    const byStatus = (s: string) => (status === undefined ? LISTED_BY_DEFAULT(s) : status === "all" || (status === "ended" ? !LISTED_BY_DEFAULT(s) : s === status));
    const hasPrice = (o: Stored) => p.price === undefined || [...b.subscriptionItems.all(o, `subscription:${o.id}`)].some((i) => i.price === p.price);
    const keep = (o: Stored) => byStatus(String(o.status)) && hasPrice(o) && (p.collection_method === undefined || o.collection_method === p.collection_method);
    const key = typeof p.customer === "string" ? `customer:${p.customer}` : undefined;
    return b.expander.list(auth, "subscription", b.subscriptions.page(auth, p, "subscription", { key, keep }), "/v1/subscriptions", p);
  });
  route("GET", "/v1/subscription_items/:id", "subscription_read", (auth, req) => {
    const item = b.subscriptionItems.own(auth, idOf(req), "subscription item");
    return b.expander.show(auth, "subscription_item", item, expandOf(peer.params(req)));
  });
  route("GET", "/v1/subscription_items", "subscription_read", (auth, req) => {
    const p = peer.params(req);
    const subscription = b.subscriptions.own(auth, String(p.subscription ?? ""), "subscription", "subscription");
    const page = b.subscriptionItems.page(auth, p, "subscription item", { key: `subscription:${subscription.id}` });
    return b.expander.list(auth, "subscription_item", page, "/v1/subscription_items", p);
  });
}
