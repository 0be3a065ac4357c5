// What each price kind (`amount_type`) and benefit type (shared/kinds.ts) means to the web app, in one module:
// which prices are metered (billed from usage, shown after the price a buyer picks), which kinds the seller's
// product form writes, the names of the accounts a benefit is delivered to. Tables are keyed by the shared
// unions; the describing switches (checkout/model.ts, seller/prices.ts, seller/wire.ts) narrow through
// `priceKindOf` and end in `assertNever`, so a kind added there fails the typecheck at each of them.
import { isPriceKind, PRICE_KIND_IS_STATIC, type AccountPlatform, type PriceKind } from "../../shared/kinds.js";

/** The kind of a price the server sent; null for one this page does not know (a newer server's). */
export const priceKindOf = (amountType: string): PriceKind | null => (isPriceKind(amountType) ? amountType : null);

/** A metered price: billed from a meter's usage (a kind this page does not know is not). */
export const isMeteredKind = (amountType: string): boolean => isPriceKind(amountType) && !PRICE_KIND_IS_STATIC[amountType];

/** The kinds the seller's product form writes (every one), by the name its Kind menu gives each. */
export const FORM_PRICE_KIND: { readonly [K in PriceKind]: string } = {
  fixed: "Fixed amount",
  custom: "Pay what you want",
  free: "Free",
  seat_based: "Per seat",
  metered_unit: "Usage of a meter",
};

/** A price the seller's product form can edit (a kind this page does not know is kept as it is). */
export const isFormKind = (amountType: string): boolean => isPriceKind(amountType);

/** An account's name as pages show it. */
export const ACCOUNT_NAME: { readonly [P in AccountPlatform]: string } = { github: "GitHub", discord: "Discord" };
