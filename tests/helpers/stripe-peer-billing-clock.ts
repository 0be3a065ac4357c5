// The stand-in's time for Stripe Billing: a subscription's periods (from its billing cycle anchor, by its price's
// interval; a month from the 31st ends on the last day of a shorter month, as Stripe's do), what an invoice of a
// period charges (licensed items by quantity, per unit or through tiers; metered items bill nothing here, as no
// usage is recorded; the subscription's discounts off), and the test's controls: the account's clock moved forward
// (each subscription whose period ends by then ends or renews), a renewal's payment failed (past_due).
import type { Authed, PeerRoute } from "./stripe-peer.js";
import { StripeFailure } from "./stripe-peer.js";
import type { BillingCtx, BillingObjects, PeerInvoice } from "./stripe-peer-billing.js";
import type { PaymentMethod } from "./stripe-peer-payments.js";
import type { Json, Stored } from "./stripe-peer-store.js";
import { newId, now } from "./stripe-peer-util.js";

const DAY = 86_400;

/** `anchor` moved by `count` intervals; months and years keep the anchor's day, or the month's last. */
export function addInterval(anchor: number, interval: string, count: number): number {
  if (interval === "day") return anchor + count * DAY;
  if (interval === "week") return anchor + count * 7 * DAY;
  const months = interval === "year" ? 12 * count : count;
  const d = new Date(anchor * 1000);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return Math.floor(target.getTime() / 1000);
}

/** What `quantity` units of a price cost in its own currency (minor units, rounded). */
export function priceAmount(price: Stored, quantity: number): number {
  const t = price.transform_quantity as { divide_by: number; round: string } | null;
  const q = t ? (t.round === "up" ? Math.ceil(quantity / t.divide_by) : Math.floor(quantity / t.divide_by)) : quantity;
  if (price.billing_scheme !== "tiered") return Math.round(Number(price.unit_amount_decimal ?? 0) * q);
  const tiers = (price.tiers ?? []) as Array<{ up_to: number | null; unit_amount_decimal: string | null; flat_amount: number | null }>;
  if (price.tiers_mode === "volume") {
    const tier = tiers.find((x) => x.up_to === null || q <= x.up_to) ?? tiers.at(-1);
    return tier ? Math.round(Number(tier.unit_amount_decimal ?? 0) * q + (tier.flat_amount ?? 0)) : 0;
  }
  let total = 0;
  let below = 0;
  for (const tier of tiers) {
    if (q <= below) break;
    const inTier = Math.min(q, tier.up_to ?? Infinity) - below;
    total += Number(tier.unit_amount_decimal ?? 0) * inTier + (tier.flat_amount ?? 0);
    below = tier.up_to ?? Infinity;
  }
  return Math.round(total);
}

/** What one period of a subscription charges: its licensed items, less its discounts still running at `at`. */
export function periodAmount(b: BillingObjects, sub: Stored, at: number): number {
  let total = 0;
  for (const item of b.subscriptionItems.all(sub, `subscription:${sub.id}`)) {
    const price = b.prices.map.get(String(item.price));
    if (!price || (price.recurring as Json).usage_type === "metered") continue;
    total += priceAmount(price, Number(item.quantity ?? 1));
  }
  for (const id of sub.discounts as string[]) {
    const discount = b.discounts.get(id);
    const coupon = discount && b.coupons.map.get(String((discount.source as Json).coupon));
    if (!discount || !coupon || (discount.end !== null && Number(discount.end) <= at)) continue;
    const inCurrency = ((coupon.currency_options ?? {}) as Record<string, Json>)[String(sub.currency)]?.amount_off;
    const off = coupon.percent_off !== null ? (total * Number(coupon.percent_off)) / 100 : Number(inCurrency ?? coupon.amount_off ?? 0);
    total = Math.max(0, total - Math.round(off));
  }
  return total;
}

/** The payment method a subscription's invoice is charged to: its own default, else its customer's. */
export function chargedMethod(b: BillingObjects, sub: Stored): string | null {
  const customer = b.customers.map.get(String(sub.customer));
  return (sub.default_payment_method as string | null) ?? ((customer?.invoice_settings as Json | undefined)?.default_payment_method as string | null) ?? null;
}

/**
 * An invoice for one period of `sub`, charged to its payment method: paid, or open when the charge cannot be made
 * (no method, a declining one) or the subscription sends invoices to pay later.
 */
export function invoiceFor(ctx: BillingCtx, sub: Stored, reason: PeerInvoice["billing_reason"], start: number, end: number, forceFail = false): PeerInvoice {
  const { peer, b } = ctx;
  const amount = periodAmount(b, sub, start);
  const method = chargedMethod(b, sub);
  const pm = method ? (peer.payments.paymentMethods.get(method) as PaymentMethod | undefined) : undefined;
  const charged = sub.collection_method === "charge_automatically" && !forceFail && (amount === 0 || (pm !== undefined && !pm.behaviour.decline && !pm.behaviour.cardError));
  const invoice: PeerInvoice = {
    id: newId("in"), object: "invoice", account: sub.account, livemode: sub.livemode, created: start, customer: String(sub.customer),
    subscription: sub.id, billing_reason: reason, status: charged ? "paid" : "open", amount_due: amount, amount_paid: charged ? amount : 0,
    currency: String(sub.currency), period_start: start, period_end: end, payment_method: method,
  };
  b.invoices.push(invoice);
  ctx.invoiceById.set(invoice.id, invoice);
  sub.latest_invoice = invoice.id;
  return invoice;
}

/** The current period's end of a subscription (its items': all share one period). */
export const periodEndOf = (b: BillingObjects, sub: Stored) => {
  for (const item of b.subscriptionItems.all(sub, `subscription:${sub.id}`)) return Number(item.current_period_end);
  return Number(sub.billing_cycle_anchor);
};

function setPeriod(b: BillingObjects, sub: Stored, start: number, end: number): void {
  for (const item of b.subscriptionItems.all(sub, `subscription:${sub.id}`)) [item.current_period_start, item.current_period_end] = [start, end];
}

export function registerBillingClock(ctx: BillingCtx, route: PeerRoute, offsets: Map<string, number>): Pick<BillingObjects, "advance" | "failPayment"> {
  const { peer, b } = ctx;
  const show = (auth: Authed, sub: Stored) => b.expander.show(auth, "subscription", sub, []);
  b.expander.kinds.set("invoice", {
    show: ({ account: _a, ...invoice }) => invoice,
    find: (auth, id) => {
      const found = ctx.invoiceById.get(id);
      return found && found.account === auth.account.id && found.livemode === auth.livemode ? found : undefined;
    },
    links: { customer: "customer", subscription: "subscription", payment_method: "payment_method" },
  });

  /** One subscription brought to `to`: ended at its period's end, or renewed period after period. */
  const bringTo = (auth: Authed, sub: Stored, to: number): boolean => {
    let changed = false;
    for (let guard = 0; guard < 10_000 && ["trialing", "active", "past_due"].includes(String(sub.status)); guard++) {
      const end = periodEndOf(b, sub);
      if (end > to) break;
      changed = true;
      if (sub.cancel_at_period_end === true || (sub.cancel_at !== null && Number(sub.cancel_at) <= end)) {
        Object.assign(sub, { status: "canceled", ended_at: end, canceled_at: sub.canceled_at ?? end });
        peer.emit(auth, "customer.subscription.deleted", show(auth, sub));
        break;
      }
      const interval = sub.interval as { interval: string; count: number };
      sub.cycle = Number(sub.cycle) + 1;
      const next = addInterval(Number(sub.billing_cycle_anchor), interval.interval, interval.count * Number(sub.cycle));
      setPeriod(b, sub, end, next);
      const invoice = invoiceFor(ctx, sub, "subscription_cycle", end, next);
      sub.status = invoice.status === "paid" || sub.collection_method === "send_invoice" ? "active" : "past_due";
      peer.emit(auth, "customer.subscription.updated", show(auth, sub));
    }
    return changed;
  };
  const advance = (account: string, to: number, livemode = false) => {
    const auth = peer.authOf(account, livemode);
    offsets.set(account, Math.max(offsets.get(account) ?? 0, to - now()));
    const changed: Json[] = [];
    for (const sub of b.subscriptions.all({ account, livemode })) if (bringTo(auth, sub, to)) changed.push(show(auth, sub));
    return changed;
  };
  const failPayment = (subscriptionId: string) => {
    const sub = b.subscriptions.map.get(subscriptionId);
    if (!sub) throw new Error(`no subscription ${subscriptionId}`);
    const auth = peer.authOf(sub.account, sub.livemode);
    const end = periodEndOf(b, sub);
    const start = Number([...b.subscriptionItems.all(sub, `subscription:${sub.id}`)][0]?.current_period_start ?? sub.start_date);
    invoiceFor(ctx, sub, "subscription_cycle", start, end, true);
    sub.status = "past_due";
    peer.emit(auth, "customer.subscription.updated", show(auth, sub));
    return show(auth, sub);
  };
  controlRoutes(ctx, route, { advance, failPayment });
  return { advance, failPayment };
}

function controlRoutes({ peer, b }: BillingCtx, route: PeerRoute, c: Pick<BillingObjects, "advance" | "failPayment">): void {
  // the test's controls over HTTP, with any key of the account (its own account only)
  route("POST", "/test-control/billing/advance", "subscription_write", (auth, req) => {
    const p = peer.allow(req, ["account", "to"]);
    if (p.account !== undefined && p.account !== auth.account.id) throw new StripeFailure(400, { type: "invalid_request_error", param: "account", message: "Not this key's account." });
    const to = Number(p.to);
    if (!Number.isInteger(to)) throw new StripeFailure(400, { type: "invalid_request_error", param: "to", message: "Invalid integer: to" });
    return { object: "list", data: c.advance(auth.account.id, to, auth.livemode), has_more: false, url: "/test-control/billing/advance" };
  });
  route("POST", "/test-control/billing/subscriptions/:id/past_due", "subscription_write", (auth, req) => {
    peer.allow(req, []);
    const sub = b.subscriptions.own(auth, (req.params as { id: string }).id, "subscription");
    return c.failPayment(sub.id);
  });
  route("GET", "/test-control/billing/invoices", "subscription_read", (auth, req) => {
    const p = peer.allow(req, ["subscription", "customer"]);
    const data = b.invoices.filter((i) => i.account === auth.account.id && i.livemode === auth.livemode && (p.subscription === undefined || i.subscription === p.subscription) &&
      (p.customer === undefined || i.customer === p.customer));
    return { object: "list", data: data.map(({ account: _a, ...i }) => i), has_more: false, url: "/test-control/billing/invoices" };
  });
}
