// The arithmetic of a checkout, without I/O: which price a product offers by default, what a price costs
// (fixed, pay what you want, free, seats × tiers, metered = nothing up front), what a discount takes off,
// when a trial ends, which billing address fields the page asks for, and the payment flags.
import type { PriceWire, ProductWire } from "../products/service.js";
import type { DiscountWire } from "../discounts/wire.js";

/** What a custom (pay-what-you-want) price defaults to when it has no preset nor minimum (Polar's). */
export const CUSTOM_PRICE_FALLBACK = 1000;

export type FieldMode = "required" | "optional" | "disabled";
export interface BillingAddressFields {
  country: FieldMode;
  state: FieldMode;
  city: FieldMode;
  postal_code: FieldMode;
  line1: FieldMode;
  line2: FieldMode;
}

export interface SeatTier {
  min_seats: number;
  max_seats: number | null;
  price_per_seat: number;
}

const num = (v: unknown): number | null => (typeof v === "number" ? v : null);

export const isStatic = (p: PriceWire) => p.amount_type !== "metered_unit";
export const isMetered = (p: PriceWire) => p.amount_type === "metered_unit";
/** A free price: a `fixed` price of 0 (how the wire writes the spec's `free` kind, and 0.49's way to say free). */
export const isFree = (p: PriceWire) => p.amount_type === "free" || (p.amount_type === "fixed" && p.price_amount === 0);
/** Discounts apply to prices that charge an amount up front (a free price charges nothing). */
export const isDiscountable = (p: PriceWire) => ["fixed", "custom", "seat_based"].includes(p.amount_type) && !isFree(p);
export const priceCurrency = (p: PriceWire) => (typeof p.price_currency === "string" ? p.price_currency : "usd");

export function seatTiers(p: PriceWire): { type: string; tiers: SeatTier[] } {
  const raw = (p.seat_tiers ?? {}) as { seat_tier_type?: unknown; tiers?: unknown };
  const tiers = Array.isArray(raw.tiers) ? (raw.tiers as SeatTier[]) : [];
  return { type: raw.seat_tier_type === "graduated" ? "graduated" : "volume", tiers };
}

/** The price a product offers unless the customer picks another: its static price in `currency`, else its first. */
export function defaultPrice(product: ProductWire, currency?: string | null): PriceWire | null {
  const active = product.prices.filter((p) => p.is_archived !== true);
  const statics = active.filter(isStatic);
  return (
    (currency ? statics.find((p) => priceCurrency(p) === currency) : undefined) ??
    (currency ? active.find((p) => priceCurrency(p) === currency) : undefined) ??
    statics[0] ??
    active[0] ??
    null
  );
}

/** Seats a seat-based price accepts: from its first tier's minimum up to its last tier's maximum. */
export function seatBounds(p: PriceWire): { min: number; max: number | null } {
  const { tiers } = seatTiers(p);
  return { min: tiers[0]?.min_seats ?? 1, max: tiers.at(-1)?.max_seats ?? null };
}

/** Volume tiers price every seat at the tier `seats` falls in; graduated tiers price each seat at its own tier. */
export function seatAmount(p: PriceWire, seats: number): { amount: number; perSeat: number } | null {
  const { type, tiers } = seatTiers(p);
  const tier = tiers.find((t) => seats >= t.min_seats && (t.max_seats === null || seats <= t.max_seats));
  if (!tier) return null;
  if (type === "volume") return { amount: tier.price_per_seat * seats, perSeat: tier.price_per_seat };
  let amount = 0;
  for (const t of tiers) {
    if (seats < t.min_seats) break;
    const upTo = t.max_seats === null ? seats : Math.min(seats, t.max_seats);
    amount += (upTo - t.min_seats + 1) * t.price_per_seat;
  }
  return { amount, perSeat: tier.price_per_seat };
}

/** The default amount of a custom price: its preset, else its minimum, else the fallback (within its maximum). */
export function customDefault(p: PriceWire): number {
  const preset = num(p.preset_amount);
  const minimum = num(p.minimum_amount) ?? 0;
  const maximum = num(p.maximum_amount);
  const value = preset ?? (minimum > 0 ? minimum : CUSTOM_PRICE_FALLBACK);
  return maximum !== null ? Math.min(value, maximum) : value;
}

/** "Amount is below minimum." / "Amount is above maximum." for a pay-what-you-want amount, else null. */
export function customAmountIssue(p: PriceWire, amount: number): { msg: string; type: string } | null {
  const minimum = num(p.minimum_amount);
  const maximum = num(p.maximum_amount);
  if (minimum !== null && amount < minimum) return { msg: "Amount is below minimum.", type: "greater_than_equal" };
  if (maximum !== null && amount > maximum) return { msg: "Amount is above maximum.", type: "less_than_equal" };
  return null;
}

/** The up-front amount of `price` (before discount); null for seats outside every tier. */
export function priceAmount(p: PriceWire, opts: { amount?: number | null; seats?: number | null }): number | null {
  switch (p.amount_type) {
    case "fixed":
      return num(p.price_amount) ?? 0;
    case "custom":
      return opts.amount ?? customDefault(p);
    case "seat_based":
      return seatAmount(p, opts.seats ?? seatBounds(p).min)?.amount ?? null;
    default:
      return 0;
  }
}

// ---- discounts ------------------------------------------------------------------------------------

export type DiscountRefusal = string | null;

/** Why `discount` cannot apply to this product and price (the 422 message), or null when it can. */
export function discountRefusal(discount: DiscountWire, product: ProductWire, price: PriceWire | null, now = new Date()): DiscountRefusal {
  if (!product.prices.some(isDiscountable)) return "Discounts are not applicable to this product.";
  if (discount.products.length > 0 && !discount.products.some((p) => p.id === product.id)) {
    return "Discount is not applicable to this product.";
  }
  if (discount.duration === "repeating" && !product.is_recurring) return "Discount is not applicable to this product.";
  if (discount.type === "fixed" && price) {
    const amounts = (discount as { amounts?: Record<string, number> }).amounts ?? {};
    if (amounts[priceCurrency(price)] === undefined) return "Discount is not applicable to this currency.";
  }
  if (discount.starts_at && new Date(discount.starts_at).getTime() > now.getTime()) return "Discount is not yet redeemable.";
  if (discount.ends_at && new Date(discount.ends_at).getTime() <= now.getTime()) return "Discount is no longer redeemable.";
  if (discount.max_redemptions !== null && discount.redemptions_count >= discount.max_redemptions) {
    return "Discount is no longer redeemable.";
  }
  return null;
}

/** What the discount takes off `amount` (never more than the amount). */
export function discountAmount(discount: DiscountWire | null, amount: number, currency: string): number {
  if (!discount || amount <= 0) return 0;
  if (discount.type === "fixed") {
    const amounts = (discount as { amounts?: Record<string, number> }).amounts ?? {};
    return Math.min(amounts[currency] ?? 0, amount);
  }
  const bp = (discount as { basis_points?: number }).basis_points ?? 0;
  return Math.min(Math.round((amount * bp) / 10_000), amount);
}

// ---- time -----------------------------------------------------------------------------------------

/** `from` moved by `count` intervals (calendar months/years, clamped to the month's last day). */
export function addInterval(from: Date, interval: string, count: number): Date {
  const d = new Date(from.getTime());
  switch (interval) {
    case "day":
      d.setUTCDate(d.getUTCDate() + count);
      return d;
    case "week":
      d.setUTCDate(d.getUTCDate() + 7 * count);
      return d;
    case "month":
    case "year": {
      const months = interval === "month" ? count : 12 * count;
      const day = d.getUTCDate();
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + months);
      const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
      d.setUTCDate(Math.min(day, last));
      return d;
    }
    default:
      return d;
  }
}

// ---- the page -------------------------------------------------------------------------------------

/**
 * Polar's rules: the country is asked whenever a payment form is shown; a required billing address (asked
 * by the seller, a business customer, or a US address) makes line1/city/postal code required and line2
 * optional; the state is required for US and CA. A checkout without a payment form asks for nothing else.
 */
export function billingAddressFields(opts: {
  country: string | null;
  requireBillingAddress: boolean;
  isBusinessCustomer: boolean;
  paymentFormRequired: boolean;
}): BillingAddressFields {
  const full = opts.requireBillingAddress || opts.isBusinessCustomer || opts.country === "US";
  const asked = opts.paymentFormRequired || full;
  const detail: FieldMode = full ? "required" : "disabled";
  return {
    country: asked ? "required" : "optional",
    state: opts.country === "US" || opts.country === "CA" ? (asked ? "required" : "optional") : full ? "optional" : "disabled",
    city: detail,
    postal_code: detail,
    line1: detail,
    line2: full ? "optional" : "disabled",
  };
}
