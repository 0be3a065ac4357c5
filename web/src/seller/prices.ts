// The product editor's price rules, kept apart from the page: how each of a product's prices reads, which one the
// form's "Replace the price" stands for, and the update that replaces it while keeping every other price — a
// product's usage prices and its prices in other currencies are not on the form, so sending the form's price
// alone would archive them (and new subscribers would never be billed for usage).
import { formatMoney, formatUnitAmount } from "../../../shared/money.js";
import { assertNever } from "../../../shared/kinds.js";
import { isFormKind, priceKindOf } from "../kinds.js";
import type { Price, Product } from "./wire.js";

/** How a price reads on the product's page: "$9.00 / month", "$0.05 per unit of API calls, billed every month". */
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
      return price.minimum_amount ? `pay what you want, at least ${formatMoney(price.minimum_amount, currency)}` : "pay what you want";
    case "seat_based": {
      const first = price.seat_tiers?.tiers[0];
      return first ? `per seat, from ${formatMoney(first.price_per_seat, currency)}${every}` : `per seat${every}`;
    }
    case "metered_unit": {
      const unit = `${formatUnitAmount(price.unit_amount ?? "0", currency)} per unit of ${price.meter?.name ?? "a meter"}`;
      const cap = price.cap_amount ? `, at most ${formatMoney(price.cap_amount, currency)}` : "";
      return `usage: ${unit}${cap}, billed ${interval ? `every ${interval}` : "after each period"}`;
    }
    default:
      return assertNever(kind, "price kind");
  }
}

export interface PricePlan {
  /** The price the form shows and replaces (none when the product has no static price the form can write). */
  replaced: Price | undefined;
  /** Every other active price: sent back by id, so the update keeps it. */
  kept: Price[];
  /** Why the form may not replace the price, when it may not. */
  refusal: string | null;
}

/** What "Replace the price" does on this product. */
export function pricePlan(product: Product): PricePlan {
  const active = product.prices.filter((p) => !p.is_archived);
  const replaced = active.find((p) => isFormKind(p.amount_type));
  const seats = active.find((p) => p.amount_type === "seat_based");
  return {
    replaced,
    kept: active.filter((p) => p !== replaced),
    // a seat price is the product's static price too: replacing it here would turn a per-seat plan into a flat one
    refusal: seats ? "This product is priced per seat, which this page cannot edit: change its prices with `till products update --seat-tier` or the API." : null,
  };
}

/** The update's `prices`: the form's new price and every price it does not show, kept by id. */
export function pricesUpdate(plan: PricePlan, price: Record<string, unknown>): Array<Record<string, unknown>> {
  return [price, ...plan.kept.map((p) => ({ id: p.id }))];
}
