// Add-ons: the products a base product offers on its subscriptions (its `add_on_ids`, till's own). An add-on is a
// recurring product of the base's interval whose static price is fixed (per unit: × quantity), seat-based (the
// quantity is its seats) or free; a custom (pay what you want) price has no amount to bill without a checkout.
import type { Queryable } from "../../db/client.js";
import type { ValidationIssue } from "../errors.js";
import { isStatic, priceCurrency, seatAmount, seatBounds } from "./pricing.js";
import * as repo from "./repository.js";
import type { PriceWire, ProductWire } from "./wire.js";

/** The most add-ons a product offers (and a subscription holds). */
export const MAX_ADD_ONS = 20;
/** The largest quantity of one add-on. */
export const MAX_ADD_ON_QUANTITY = 10_000;

/** The add-on's price billed in `currency`: its first active static price there that is not custom. */
export function addOnPrice(product: ProductWire, currency: string): PriceWire | null {
  return product.prices.find((p) => !p.is_archived && isStatic(p) && p.amount_type !== "custom" && priceCurrency(p) === currency) ?? null;
}

/** What `quantity` of the price costs per period; or why it cannot be billed (seats outside the tiers). */
export function addOnAmount(price: PriceWire, quantity: number): { amount: number } | { refusal: string } {
  switch (price.amount_type) {
    case "fixed":
      return { amount: price.price_amount * quantity };
    case "free":
      return { amount: 0 };
    case "seat_based": {
      const priced = seatAmount(price, quantity);
      if (priced) return { amount: priced.amount };
      const { min, max } = seatBounds(price);
      return { refusal: max === null ? `Seats must be at least ${min}.` : `Seats must be between ${min} and ${max}.` };
    }
    default:
      return { refusal: "This add-on's price cannot be billed with a subscription." };
  }
}

/** Why a product cannot be offered as an add-on of `base`, or null. */
export function addOnRefusal(base: { id?: string; recurringInterval: string | null; recurringIntervalCount: number | null }, addOn: ProductWire): string | null {
  if (addOn.id === base.id) return "A product cannot be an add-on of itself.";
  if (!base.recurringInterval) return "Only a subscription product offers add-ons.";
  if (addOn.is_archived) return "The add-on product is archived.";
  if (addOn.recurring_interval !== base.recurringInterval || (addOn.recurring_interval_count ?? 1) !== (base.recurringIntervalCount ?? 1)) {
    return "An add-on renews with its subscription: it must have the same recurring interval as the product.";
  }
  if (addOn.add_on_ids.length > 0) return "A product that offers add-ons cannot be an add-on itself.";
  if (!addOn.prices.some((p) => !p.is_archived && isStatic(p) && p.amount_type !== "custom")) {
    return "An add-on needs a fixed, free or seat-based price.";
  }
  return null;
}

/**
 * The issues of a product's `add_on_ids` (at `loc`): each an existing product of the organization that can be an
 * add-on of `base`, listed once. `load` reads the products (the caller's loader: the service's full shapes).
 */
export async function addOnIdsIssues(
  db: Queryable,
  organizationId: string,
  base: { id?: string; recurringInterval: string | null; recurringIntervalCount: number | null },
  ids: string[],
  load: (db: Queryable, organizationId: string, ids: string[]) => Promise<Map<string, ProductWire>>,
): Promise<ValidationIssue[]> {
  const issue = (loc: Array<string | number>, msg: string, input?: unknown): ValidationIssue => ({ loc, msg, type: "value_error", ...(input === undefined ? {} : { input }) });
  const issues: ValidationIssue[] = [];
  if (ids.length === 0) return issues;
  if (ids.length > MAX_ADD_ONS) issues.push(issue(["body", "add_on_ids"], `A product offers at most ${MAX_ADD_ONS} add-ons.`));
  if (new Set(ids).size !== ids.length) issues.push(issue(["body", "add_on_ids"], "An add-on is listed twice."));
  const products = await load(db, organizationId, ids);
  ids.forEach((id, i) => {
    const product = products.get(id);
    const refusal = product ? addOnRefusal(base, product) : "Product does not exist.";
    if (refusal) issues.push(issue(["body", "add_on_ids", i], refusal, id));
  });
  // a product offered as an add-on cannot start offering add-ons of its own (one level only)
  if (base.id && (await repo.offeringProductIds(db, organizationId, base.id)).length > 0) {
    issues.push(issue(["body", "add_on_ids"], "This product is an add-on of another product: it cannot offer add-ons itself."));
  }
  return issues;
}
