// What a price costs, without I/O, over the PriceWire union (wire.ts): which price a product offers by default,
// a price's kind (static, metered, free, discountable) and currency, a pay-what-you-want amount's default and
// bounds, seats × tiers (shared/seat-tiers.ts, the page's arithmetic too), and the up-front amount of a price.
import { seatPrice } from "../../../shared/seat-tiers.js";
import { assertNever } from "../../../shared/kinds.js";
import { PRICE_KIND_RULES } from "./price-kinds.js";
import type { CustomPriceWire, MeteredUnitPriceWire, PriceWire, ProductWire, SeatTiersWire } from "./wire.js";

/** What a custom (pay-what-you-want) price defaults to when it has no preset nor minimum (Polar's). */
export const CUSTOM_PRICE_FALLBACK = 1000;

/** A static price (price-kinds.ts): what a checkout charges; the metered ones are billed from usage. */
export const isStatic = (p: PriceWire): p is Exclude<PriceWire, MeteredUnitPriceWire> => PRICE_KIND_RULES[p.amount_type].static;
export const isMetered = (p: PriceWire): p is MeteredUnitPriceWire => !PRICE_KIND_RULES[p.amount_type].static;
/** A free price: a `fixed` price of 0 (how the wire writes the spec's `free` kind, and 0.49's way to say free). */
export const isFree = (p: PriceWire) => p.amount_type === "free" || (p.amount_type === "fixed" && p.price_amount === 0);
/** Discounts apply to prices that charge an amount up front (a free price charges nothing). */
export const isDiscountable = (p: PriceWire) => PRICE_KIND_RULES[p.amount_type].discountable && !isFree(p);
export const priceCurrency = (p: PriceWire) => p.price_currency;

const NO_SEAT_TIERS: Pick<SeatTiersWire, "seat_tier_type" | "tiers"> = { seat_tier_type: "volume", tiers: [] };
/** A price's seat tiers (none unless it is seat-based). */
const seatTiersOf = (p: PriceWire) => (p.amount_type === "seat_based" ? p.seat_tiers : NO_SEAT_TIERS);

/** The price a product offers unless the customer picks another: its static price in `currency`, else its first. */
export function defaultPrice(product: ProductWire, currency?: string | null): PriceWire | null {
  const active = product.prices.filter((p) => !p.is_archived);
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
  const { tiers } = seatTiersOf(p);
  return { min: tiers[0]?.min_seats ?? 1, max: tiers.at(-1)?.max_seats ?? null };
}

/** Volume tiers price every seat at the tier `seats` falls in; graduated tiers price each seat at its own tier. */
export function seatAmount(p: PriceWire, seats: number): { amount: number; perSeat: number } | null {
  const priced = seatPrice(seatTiersOf(p), seats);
  return priced && { amount: priced.amount, perSeat: priced.perSeat };
}

/** The default amount of a custom price: its preset, else its minimum, else the fallback (within its maximum). */
export function customDefault(p: CustomPriceWire): number {
  const minimum = p.minimum_amount;
  const value = p.preset_amount ?? (minimum > 0 ? minimum : CUSTOM_PRICE_FALLBACK);
  return p.maximum_amount !== null ? Math.min(value, p.maximum_amount) : value;
}

/** "Amount is below minimum." / "Amount is above maximum." for a pay-what-you-want amount, else null. */
export function customAmountIssue(p: CustomPriceWire, amount: number): { msg: string; type: string } | null {
  if (amount < p.minimum_amount) return { msg: "Amount is below minimum.", type: "greater_than_equal" };
  if (p.maximum_amount !== null && amount > p.maximum_amount) return { msg: "Amount is above maximum.", type: "less_than_equal" };
  return null;
}

/** The up-front amount of `price` (before discount); null for seats outside every tier. */
export function priceAmount(p: PriceWire, opts: { amount?: number | null; seats?: number | null }): number | null {
  switch (p.amount_type) {
    case "fixed":
      return p.price_amount;
    case "custom":
      return opts.amount ?? customDefault(p);
    case "seat_based":
      return seatAmount(p, opts.seats ?? seatBounds(p).min)?.amount ?? null;
    case "free":
    case "metered_unit":
      return 0;
    default:
      return assertNever(p, "price kind");
  }
}
