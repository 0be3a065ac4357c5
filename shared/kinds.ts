// The kinds of price (`amount_type`) and of benefit (`type`) that till knows, once for the server, the CLI and the
// web app. Each side handles them in one module of its own (server/billing/products/price-kinds.ts,
// cli/price-kinds.ts, web/src/price-kinds.ts) through tables keyed by these unions or switches ending in
// `assertNever`: adding a kind here fails the typecheck at every place that must say what the kind does.

/** Every `amount_type` a price can have (Polar's `ProductPrice` union). */
export const PRICE_KINDS = ["fixed", "custom", "free", "metered_unit", "seat_based"] as const;
export type PriceKind = (typeof PRICE_KINDS)[number];

/**
 * Whether a kind is static (one amount or amount rule per currency: at most one of them on a product per currency)
 * or metered (billed from a meter's usage, any number of them, only on a recurring product). A table, not a list,
 * so that a new kind must be placed on one side or the other.
 */
export const PRICE_KIND_IS_STATIC: { readonly [K in PriceKind]: boolean } = {
  fixed: true,
  custom: true,
  free: true,
  metered_unit: false,
  seat_based: true,
};

/** The static kinds, in PRICE_KINDS' order ("fixed", "custom", "free", "seat_based"). */
export const STATIC_PRICE_KINDS: readonly PriceKind[] = PRICE_KINDS.filter((k) => PRICE_KIND_IS_STATIC[k]);

export const isPriceKind = (s: string): s is PriceKind => (PRICE_KINDS as readonly string[]).includes(s);

/** Every benefit `type` till stores and serves (Polar's `Benefit` union, less the ones till does not offer). */
export const BENEFIT_TYPES = [
  "custom",
  "discord",
  "github_repository",
  "downloadables",
  "license_keys",
  "meter_credit",
  "feature_flag",
] as const;
export type BenefitType = (typeof BENEFIT_TYPES)[number];

export const isBenefitType = (s: string): s is BenefitType => (BENEFIT_TYPES as readonly string[]).includes(s);

/** A platform whose account a customer connects to receive a benefit (the OAuth delivery of benefits). */
export type AccountPlatform = "github" | "discord";

/** The account a benefit type is delivered to; null: granted at once, nothing to connect. */
export const BENEFIT_ACCOUNT: { readonly [K in BenefitType]: AccountPlatform | null } = {
  custom: null,
  discord: "discord",
  github_repository: "github",
  downloadables: null,
  license_keys: null,
  meter_credit: null,
  feature_flag: null,
};

/** The account a stored benefit type is delivered to; undefined when none (or a type this version does not know). */
export const accountOf = (type: string): AccountPlatform | undefined => (isBenefitType(type) ? (BENEFIT_ACCOUNT[type] ?? undefined) : undefined);

/** The benefit types delivered to an account (discord, github_repository). */
export const DELIVERED_BENEFIT_TYPES: readonly BenefitType[] = BENEFIT_TYPES.filter((t) => BENEFIT_ACCOUNT[t] !== null);

/**
 * `true` when `Listed` names every member of `All`, else a type that `true` is not assignable to, naming what is
 * missing: `const x: Covers<All, Listed> = true` fails the typecheck until a hand-written list (a zod union of
 * literals) covers a union.
 */
export type Covers<All, Listed> = [Exclude<All, Listed>] extends [never] ? true : { missing: Exclude<All, Listed> };

/**
 * The default of a switch over a union that must handle every member: `value` is `never` when every case is
 * handled, so a new member fails the typecheck here. Reaching it at run time (a value from outside the types) throws.
 */
export function assertNever(value: never, what = "kind"): never {
  throw new Error(`Unhandled ${what}: ${String(value)}`);
}
