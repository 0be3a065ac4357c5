// The product editor's price descriptions, kept apart from the page: how each of a product's prices reads (the
// product's page, the editor's untouched prices, the list), and the list's filter by how a product bills.
import { formatMoney, formatUnitAmount } from "../../../shared/money.js";
import { assertNever } from "../../../shared/kinds.js";
import { priceKindOf } from "../kinds.js";
import type { Price } from "./wire.js";

/**
 * How a price reads on the product's page and the list: "$9.00 / month", "$0.05 per unit of API calls, billed every
 * month". Its currency is marked once: by the amount's symbol in the reader's locale (Intl: "$" in en-US is USD,
 * CAD reads "CA$"), or, for a price without an amount, by its code ("pay what you want, in EUR"); free needs none.
 */
export function priceDescription(price: Price, interval: string | null): string {
  const currency = price.price_currency ?? "usd";
  const every = interval ? ` / ${interval}` : "";
  const kind = priceKindOf(price.amount_type);
  // a kind this page does not know: its name
  if (!kind) return price.amount_type.replace(/_/g, " ");
  switch (kind) {
    case "fixed":
      return price.price_amount ? `${formatMoney(price.price_amount, currency)}${every}` : "free";
    case "free":
      return "free";
    case "custom":
      return price.minimum_amount ? `pay what you want, at least ${formatMoney(price.minimum_amount, currency)}` : `pay what you want, in ${currency.toUpperCase()}`;
    case "seat_based": {
      const first = price.seat_tiers?.tiers[0];
      return first ? `per seat, from ${formatMoney(first.price_per_seat, currency)}${every}` : `per seat${every}, in ${currency.toUpperCase()}`;
    }
    case "metered_unit": {
      const meter = price.meter?.name ?? "a meter";
      const tiers = price.unit_tiers?.tiers ?? [];
      // tiered: how many tiers and the dearest unit price, since the first tier is often free
      const dearest = tiers.map((t) => t.unit_amount).sort((a, b) => Number(b) - Number(a))[0];
      const unit =
        tiers.length > 0 && dearest !== undefined
          ? `${meter} in ${tiers.length} ${price.unit_tiers?.tier_type ?? "graduated"} tiers, up to ${formatUnitAmount(dearest, currency)} per unit`
          : `${formatUnitAmount(price.unit_amount ?? "0", currency)} per unit of ${meter}`;
      const cap = price.cap_amount ? `, at most ${formatMoney(price.cap_amount, currency)}` : "";
      return `usage: ${unit}${cap}, billed ${interval ? `every ${interval}` : "after each period"}`;
    }
    default:
      return assertNever(kind, "price kind");
  }
}

/**
 * The product list's pricing filter (`pricing` in the address): how a product bills, each a query of GET /v1/products/
 * (`is_recurring`, Polar's; `recurring_interval` and `price_amount_type`, till's own).
 */
export const PRICING_FILTERS = [
  { value: "one_time", label: "One-time", query: { is_recurring: false } },
  { value: "recurring", label: "Recurring, any interval", query: { is_recurring: true } },
  { value: "day", label: "Recurring daily", query: { recurring_interval: "day" } },
  { value: "week", label: "Recurring weekly", query: { recurring_interval: "week" } },
  { value: "month", label: "Recurring monthly", query: { recurring_interval: "month" } },
  { value: "year", label: "Recurring yearly", query: { recurring_interval: "year" } },
  { value: "metered", label: "Metered (usage)", query: { price_amount_type: "metered_unit" } },
  { value: "seats", label: "Per seat", query: { price_amount_type: "seat_based" } },
] as const;

export type PricingFilter = (typeof PRICING_FILTERS)[number]["value"];

/** The filter the address asks for (an unknown value is no filter). */
export const pricingFilterOf = (value: string | null): (typeof PRICING_FILTERS)[number] | undefined => PRICING_FILTERS.find((f) => f.value === value);
