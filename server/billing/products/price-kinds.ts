// What each price kind (`amount_type`) means to the server, in one table keyed by the shared union
// (shared/kinds.ts): a new kind fails the typecheck here until its row is written, and at every `switch` over
// a price's kind that ends in `assertNever`. The rest of the server asks these rules or the predicates of
// pricing.ts rather than comparing kinds itself; a comparison that only narrows a price to read one kind's
// fields (`amount_type === "seat_based"` before its `seat_tiers`) needs no change for a new kind and stays.
import { isPriceKind, PRICE_KIND_IS_STATIC, type Covers, type PriceKind } from "../../../shared/kinds.js";
import type { PriceCreateInput } from "./prices.js";
import type { PriceWire } from "./wire.js";

export interface PriceKindRules {
  /** One per currency on a current product; what a checkout charges (the others are metered: billed from usage). */
  static: boolean;
  /** Allowed on a legacy recurring product (each price naming its own interval). */
  legacy: boolean;
  /** Charges an amount up front that a discount can reduce (unless the amount is 0). */
  discountable: boolean;
  /** Rank in the `price_amount_type` sort of products (by their first price). */
  sortRank: number;
}

export const PRICE_KIND_RULES: { readonly [K in PriceKind]: PriceKindRules } = {
  fixed: { static: PRICE_KIND_IS_STATIC.fixed, legacy: true, discountable: true, sortRank: 3 },
  custom: { static: PRICE_KIND_IS_STATIC.custom, legacy: true, discountable: true, sortRank: 2 },
  free: { static: PRICE_KIND_IS_STATIC.free, legacy: true, discountable: false, sortRank: 1 },
  metered_unit: { static: PRICE_KIND_IS_STATIC.metered_unit, legacy: false, discountable: false, sortRank: 5 },
  seat_based: { static: PRICE_KIND_IS_STATIC.seat_based, legacy: false, discountable: true, sortRank: 4 },
};

/** The rules of a stored or requested kind; undefined for a kind this version does not know. */
export const rulesOf = (kind: string): PriceKindRules | undefined => (isPriceKind(kind) ? PRICE_KIND_RULES[kind] : undefined);

/**
 * The wire's price union and the create input have a member for every kind: a kind added to shared/kinds.ts fails
 * here until they do, and then at each switch over a price (pricing.ts, prices.ts, plan changes, manual orders).
 */
export const WIRE_COVERS_EVERY_KIND: Covers<PriceKind, PriceWire["amount_type"] & PriceCreateInput["amount_type"]> = true;
