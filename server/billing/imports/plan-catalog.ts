// The catalog half of an import's plan, decided from what the processor holds and nothing else (no database): each
// meter, each product split by how it recurs (one till product per interval: a till product has one), each price in
// each of its currencies, each coupon and promotion code. What till cannot hold as it is gets a reason; the rest gets
// the body till's own create route would take, so it is checked by the same rules as the API's.
import { createHash } from "node:crypto";
import type { SourceAmount, SourceCoupon, SourceMeter, SourcePrice, SourceProduct, SourcePromotionCode, SourceSnapshot } from "../../payments/billing-import.js";
import { isCurrencyCode } from "../../../shared/currencies.js";
import { DiscountCreateInput } from "../discounts/input.js";
import { MeterCreateInput } from "../meters/service.js";
import { ProductCreateInput } from "../products/input.js";

/** A stable digest of what an object becomes: equal digests, nothing to write again. */
export const digestOf = (value: unknown): string => createHash("sha256").update(JSON.stringify(value)).digest("base64url").slice(0, 22);

/** The first message of a refused body, as the plan says it. */
function refusal(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  const first = error.issues[0];
  if (!first) return "till refuses it.";
  const where = first.path.filter((p) => typeof p !== "number").join(".");
  return `till refuses it: ${where ? `${where}: ` : ""}${first.message}`;
}

export interface PlannedMeter {
  source: SourceMeter;
  /** The create body (MeterCreateInput), or why the meter cannot be imported. */
  body: Record<string, unknown> | null;
  reason: string | null;
}

const AGGREGATIONS = { sum: (key: string) => ({ func: "sum", property: `metadata.${key}` }), count: () => ({ func: "count" }) } as const;

export function planMeter(meter: SourceMeter): PlannedMeter {
  if (meter.aggregation === "last") {
    return { source: meter, body: null, reason: "Stripe's `last` aggregation has no till equivalent (till sums, counts, or takes a maximum, minimum or mean)." };
  }
  const body = {
    name: meter.name,
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: meter.eventName }] },
    aggregation: AGGREGATIONS[meter.aggregation](meter.valueKey),
    metadata: { stripe_meter_id: meter.id, stripe_event_name: meter.eventName.slice(0, 500) },
  };
  const parsed = MeterCreateInput.safeParse(body);
  return parsed.success ? { source: meter, body, reason: null } : { source: meter, body: null, reason: refusal(parsed.error) };
}

/** How a till product recurs: `one_time`, or `month/1`, `year/1`, `month/3` … */
export const recurrenceOf = (p: Pick<SourcePrice, "type" | "interval" | "intervalCount">) =>
  p.type === "one_time" || !p.interval ? "one_time" : `${p.interval}/${p.intervalCount ?? 1}`;

const ADVERBS: Record<string, string> = { day: "daily", week: "weekly", month: "monthly", year: "yearly" };
/** A recurrence as a seller reads it: `one-time`, `monthly`, `every 3 months` … */
export function recurrenceLabel(recurrence: string): string {
  if (recurrence === "one_time") return "one-time";
  const [interval = "month", count = "1"] = recurrence.split("/");
  return count === "1" ? (ADVERBS[interval] ?? interval) : `every ${count} ${interval}s`;
}

export interface PlannedPrice {
  source: SourcePrice;
  currency: string;
  /** The link's id: `price_…/currency`. */
  key: string;
  /** catalog: offered by the product; archived: kept only for the subscriptions it still bills. */
  slot: "catalog" | "archived";
  /** The price's create body (PriceCreateInput), or null with `reason`. */
  body: Record<string, unknown> | null;
  reason: string | null;
}

export interface PlannedProduct {
  /** The link's id: `prod_…/recurrence`. */
  key: string;
  source: SourceProduct;
  recurrence: string;
  name: string;
  /** The product's create body without its prices. */
  body: Record<string, unknown>;
  prices: PlannedPrice[];
  /** Archived at the processor (imported only because a subscription bills it). */
  archived: boolean;
}

export const priceKey = (priceId: string, currency: string) => `${priceId}/${currency}`;

const integral = (amount: string | null) => (amount !== null && /^\d+$/.test(amount) ? Number(amount) : null);

/** One currency of a price as a till price body, or why it cannot be one. */
function priceBody(p: SourcePrice, amount: SourceAmount, currency: string, seats: boolean, meterOf: (id: string) => string | null): Record<string, unknown> | string {
  if (!isCurrencyCode(currency)) return `till does not accept the currency ${currency.toUpperCase()}.`;
  if (p.transformQuantity) return "The price divides its quantity before billing (transform_quantity): till has no such price.";
  const base = { price_currency: currency, ...(p.taxBehavior ? { tax_behavior: p.taxBehavior } : {}) };
  if (p.usage === "metered") {
    const meterId = p.meterId ? meterOf(p.meterId) : null;
    if (!meterId) return p.meterId ? `Its meter ${p.meterId} cannot be imported.` : "A metered price without a Billing Meter (legacy usage records): till meters usage events.";
    if (amount.tiers) {
      const tiers = amount.tiers.tiers.map((t) => ({ up_to: t.upTo, unit_amount: t.unitAmount, flat_amount: t.flatAmount }));
      return { ...base, amount_type: "metered_unit", meter_id: meterId, unit_tiers: { tier_type: amount.tiers.mode, tiers } };
    }
    return { ...base, amount_type: "metered_unit", meter_id: meterId, unit_amount: amount.unitAmount ?? "0" };
  }
  if (p.custom) {
    return { ...base, amount_type: "custom", ...(p.custom.minimum !== null ? { minimum_amount: p.custom.minimum } : {}), maximum_amount: p.custom.maximum, preset_amount: p.custom.preset };
  }
  if (amount.tiers) {
    const tiers: Array<{ min_seats: number; max_seats: number | null; price_per_seat: number }> = [];
    for (const [i, t] of amount.tiers.tiers.entries()) {
      const perSeat = integral(t.unitAmount);
      if (perSeat === null) return "A tier charges a fraction of a minor unit per unit: till's seat tiers charge whole minor units.";
      if (t.flatAmount !== 0) return "A tier has a flat fee: till's seat tiers charge per seat only.";
      tiers.push({ min_seats: i === 0 ? 1 : (tiers[i - 1]?.max_seats ?? 0) + 1, max_seats: t.upTo, price_per_seat: perSeat });
    }
    return { ...base, amount_type: "seat_based", seat_tiers: { seat_tier_type: amount.tiers.mode, tiers } };
  }
  const unit = integral(amount.unitAmount);
  if (unit === null) return "The price charges a fraction of a minor unit: till's fixed prices charge whole minor units.";
  if (seats) return { ...base, amount_type: "seat_based", seat_tiers: { seat_tier_type: "volume", tiers: [{ min_seats: 1, max_seats: null, price_per_seat: unit }] } };
  return unit === 0 ? { ...base, amount_type: "free" } : { ...base, amount_type: "fixed", price_amount: unit };
}

export interface CatalogUse {
  /** Prices some subscription bills (kept even when archived), with the currencies they bill in. */
  billed: Map<string, Set<string>>;
  /** Prices billed with a quantity other than 1: till sells those as seats. */
  seats: Set<string>;
}

/** Plans one product: one till product per way its prices recur, each with its prices in every currency. */
export function planProduct(product: SourceProduct, use: CatalogUse, meterOf: (id: string) => string | null): PlannedProduct[] {
  const groups = new Map<string, SourcePrice[]>();
  for (const price of product.prices) {
    if (!price.active && !use.billed.has(price.id)) continue;
    const recurrence = recurrenceOf(price);
    groups.set(recurrence, [...(groups.get(recurrence) ?? []), price]);
  }
  const out: PlannedProduct[] = [];
  for (const [recurrence, prices] of groups) {
    const name = groups.size > 1 ? `${product.name} (${recurrenceLabel(recurrence)})` : product.name;
    const [interval, count] = recurrence === "one_time" ? [null, null] : recurrence.split("/");
    const body = {
      name: name.length < 3 ? name.padEnd(3, ".") : name.slice(0, 64),
      description: product.description,
      metadata: { stripe_product_id: product.id, ...(groups.size > 1 ? { stripe_recurrence: recurrence } : {}) },
      ...(interval ? { recurring_interval: interval, recurring_interval_count: Number(count) } : {}),
    };
    // the catalog price of a currency: the product's default price, else its newest active one; the rest are kept
    // archived for the subscriptions that still bill them
    const ordered = [...prices].sort((a, b) => Number(b.id === product.defaultPriceId) - Number(a.id === product.defaultPriceId) || Number(b.active) - Number(a.active));
    const staticTaken = new Set<string>();
    const planned: PlannedPrice[] = [];
    for (const price of ordered) {
      const currencies: Array<[string, SourceAmount]> = [[price.currency, price], ...Object.entries(price.currencyOptions).filter(([c]) => c !== price.currency)];
      for (const [currency, amount] of currencies) {
        const billedHere = use.billed.get(price.id)?.has(currency) ?? false;
        const made = priceBody(price, amount, currency, use.seats.has(price.id), meterOf);
        const isStatic = price.usage === "licensed";
        const catalog = price.active && (!isStatic || !staticTaken.has(currency));
        if (!catalog && !billedHere) continue;
        if (catalog && isStatic && typeof made !== "string") staticTaken.add(currency);
        const checked = typeof made === "string" ? made : checkPrice(body, made);
        planned.push({
          source: price,
          currency,
          key: priceKey(price.id, currency),
          slot: catalog ? "catalog" : "archived",
          body: typeof checked === "string" ? null : checked,
          reason: typeof checked === "string" ? checked : null,
        });
      }
    }
    // nothing it offers can be sold in till, but an older price is still billed: offered by an archived product
    const sellable = planned.filter((x) => x.body);
    let archived = !product.active;
    if (sellable.length > 0 && !sellable.some((x) => x.slot === "catalog")) {
      sellable.forEach((x) => (x.slot = "catalog"));
      archived = true;
    }
    out.push({ key: `${product.id}/${recurrence}`, source: product, recurrence, name: body.name, body, prices: planned, archived });
  }
  return out;
}

/** A meter imported in the same run, named by its link until it is made (apply.ts resolves it). */
export const PENDING_METER = "meter:";
/** Stands in for a meter not made yet when a price is checked: any well-formed id passes the same rules. */
const SOME_METER_ID = "00000000-0000-4000-8000-000000000000";

/** What a product's link remembers of it: its body and its prices' (a rerun writes it again when they change). */
export const productDigest = (p: PlannedProduct) => digestOf({ body: p.body, prices: p.prices.map((x) => [x.key, x.slot, x.body]) });

/** A price checked as till's create route would check it (a product of that one price). */
function checkPrice(product: Record<string, unknown>, price: Record<string, unknown>): Record<string, unknown> | string {
  const meter = typeof price.meter_id === "string" && price.meter_id.startsWith(PENDING_METER) ? { meter_id: SOME_METER_ID } : {};
  const parsed = ProductCreateInput.safeParse({ ...product, prices: [{ ...price, ...meter }] });
  return parsed.success ? price : refusal(parsed.error);
}

export interface PlannedDiscount {
  /** The coupon's id, or the promotion code's. */
  key: string;
  label: string;
  body: Record<string, unknown> | null;
  reason: string | null;
  /** The processor's products it is limited to (mapped to till's when applied); null: every product. */
  productIds: string[] | null;
}

function couponBody(c: SourceCoupon, name: string): Record<string, unknown> | string {
  const duration = { duration: c.duration, ...(c.duration === "repeating" ? { duration_in_months: c.durationInMonths } : {}) };
  const ends = c.redeemBy ? { ends_at: c.redeemBy.toISOString() } : {};
  if (c.percentOff !== null) {
    const basisPoints = Math.round(c.percentOff * 100);
    if (Math.abs(basisPoints - c.percentOff * 100) > 1e-6) return "till's percentages have two decimals at most.";
    return { type: "percentage", basis_points: basisPoints, name, ...duration, ...ends };
  }
  if (!c.amountOff) return "The coupon takes nothing off.";
  const amounts = { [c.amountOff.currency]: c.amountOff.amount, ...c.amountOffOptions };
  const bad = Object.keys(amounts).find((cur) => !isCurrencyCode(cur));
  if (bad) return `till does not accept the currency ${bad.toUpperCase()}.`;
  return { type: "fixed", amount: c.amountOff.amount, currency: c.amountOff.currency, amounts, name, ...duration, ...ends };
}

function checkDiscount(body: Record<string, unknown> | string): Pick<PlannedDiscount, "body" | "reason"> {
  if (typeof body === "string") return { body: null, reason: body };
  const parsed = DiscountCreateInput.safeParse(body);
  return parsed.success ? { body, reason: null } : { body: null, reason: refusal(parsed.error) };
}

/** A coupon as a discount without a code (what a subscription carries), and one discount per promotion code. */
export function planDiscounts(coupon: SourceCoupon, codes: SourcePromotionCode[]): PlannedDiscount[] {
  const name = (coupon.name ?? coupon.id).slice(0, 200);
  const base = couponBody(coupon, name);
  const limits = { ...(coupon.maxRedemptions !== null ? { max_redemptions: coupon.maxRedemptions } : {}) };
  const out: PlannedDiscount[] = [
    {
      key: coupon.id,
      label: `coupon ${name}`,
      productIds: coupon.productIds,
      ...checkDiscount(typeof base === "string" ? base : { ...base, ...limits, metadata: { stripe_coupon_id: coupon.id } }),
    },
  ];
  for (const code of codes) {
    const label = `promotion code ${code.code}`;
    const restricted = code.firstTimeOnly
      ? "first-time customers only"
      : code.minimumAmount
        ? "a minimum order amount"
        : code.customerId
          ? "one customer"
          : null;
    if (restricted) {
      const reason = `The code is restricted to ${restricted}: till's discount codes have no such restriction. Make it in till by hand if you still need it.`;
      out.push({ key: code.id, label, productIds: coupon.productIds, body: null, reason });
      continue;
    }
    const ends = code.expiresAt ?? coupon.redeemBy;
    const max = code.maxRedemptions ?? coupon.maxRedemptions;
    const body = typeof base === "string" ? base : {
      ...base,
      name: `${name} (${code.code})`.slice(0, 200),
      code: code.code,
      ...(ends ? { ends_at: ends.toISOString() } : {}),
      ...(max !== null ? { max_redemptions: max } : {}),
      metadata: { stripe_coupon_id: coupon.id, stripe_promotion_code_id: code.id },
    };
    out.push({ key: code.id, label, productIds: coupon.productIds, ...checkDiscount(body) });
  }
  return out;
}

/** Which prices subscriptions bill, in which currencies, and which with a quantity (seats). */
export function catalogUse(snapshot: SourceSnapshot): CatalogUse {
  const billed = new Map<string, Set<string>>();
  const seats = new Set<string>();
  for (const sub of snapshot.subscriptions) {
    for (const item of sub.items) {
      billed.set(item.priceId, (billed.get(item.priceId) ?? new Set()).add(sub.currency));
      if (item.quantity !== null && item.quantity !== 1) seats.add(item.priceId);
    }
  }
  return { billed, seats };
}
