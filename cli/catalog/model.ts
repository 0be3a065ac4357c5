// The catalog (till.yaml) as till compares it: an organization's meters, custom fields, benefits, products and
// discounts, each under a key the seller chooses, with every optional field explicit. The file's schema is
// schema.ts; reading and writing the file, file.ts.
import type { Aggregation, Filter } from "../../shared/meter-filter.js";
import type { UnitTiers } from "../../shared/tiers.js";
import { assertNever, type BenefitType } from "../../shared/kinds.js";
import { CATALOG_PRICE_RANK } from "../kinds.js";

/** The metadata entry that ties a server object to its catalog key. */
export const CATALOG_KEY = "till_catalog_key";
export const CATALOG_VERSION = 1;

export const KINDS = ["meter", "custom_field", "benefit", "product", "discount"] as const;
export type Kind = (typeof KINDS)[number];
export const SECTION = {
  meter: "meters",
  custom_field: "custom_fields",
  benefit: "benefits",
  product: "products",
  discount: "discounts",
} as const satisfies Record<Kind, string>;

export type MetadataValue = string | number | boolean;
export type Metadata = Record<string, MetadataValue>;

export const INTERVALS = ["day", "week", "month", "year"] as const;
export type Interval = (typeof INTERVALS)[number];
export const VISIBILITIES = ["public", "private", "draft"] as const;
export const TAX_BEHAVIORS = ["location", "inclusive", "exclusive"] as const;
export type TaxBehavior = (typeof TAX_BEHAVIORS)[number];
export const METER_UNITS = ["scalar", "token", "custom"] as const;
export const CUSTOM_FIELD_TYPES = ["text", "number", "date", "checkbox", "select"] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];
/** A catalog file holds benefits of every type till knows (shared/kinds.ts). */
export type { BenefitType };

// ---- the normalized model (what plan compares; every optional field explicit) -----------------------

export interface MeterSpec {
  name: string;
  unit: (typeof METER_UNITS)[number];
  custom_label: string | null;
  custom_multiplier: number | null;
  filter: Filter;
  aggregation: Aggregation;
  archived: boolean;
  metadata: Metadata;
}

export interface CustomFieldSpec {
  slug: string;
  name: string;
  type: CustomFieldType;
  /** Wire (snake_case) properties, only the keys that are set. */
  properties: Record<string, unknown>;
  metadata: Metadata;
}

export interface BenefitSpec {
  type: BenefitType;
  description: string;
  /** Wire properties of the type with every nullable key present; meter_credit names its meter by key (`meter`). */
  properties: Record<string, unknown>;
  metadata: Metadata;
}

export interface SeatTier {
  min_seats: number;
  max_seats: number | null;
  price_per_seat: number;
}

interface PriceBase {
  price_currency: string;
  tax_behavior: TaxBehavior | null;
}
export type PriceSpec =
  | ({ amount_type: "fixed"; price_amount: number } & PriceBase)
  | ({ amount_type: "custom"; minimum_amount: number; maximum_amount: number | null; preset_amount: number | null } & PriceBase)
  | ({ amount_type: "free" } & PriceBase)
  | ({
      amount_type: "metered_unit";
      meter: string;
      /**
       * Null only on a tiered price whose unit amount is its first tier's (what the server reads when it is left out).
       */
      unit_amount: string | null;
      /** till's own tiers (`unit_tiers` on the wire; the SDKs drop the field), canonical: every key present. */
      unit_tiers: UnitTiers | null;
      cap_amount: number | null;
    } & PriceBase)
  | ({ amount_type: "seat_based"; seat_tiers: { seat_tier_type: "volume" | "graduated"; tiers: SeatTier[] } } & PriceBase);

export interface AttachedFieldSpec {
  field: string;
  required: boolean;
}

export interface ProductSpec {
  name: string;
  description: string | null;
  visibility: (typeof VISIBILITIES)[number];
  recurring_interval: Interval | null;
  recurring_interval_count: number | null;
  trial_interval: Interval | null;
  trial_interval_count: number | null;
  /** In canonical order (see sortPrices): a product's prices are a set. */
  prices: PriceSpec[];
  /** Benefit keys, in display order. */
  benefits: string[];
  custom_fields: AttachedFieldSpec[];
  /** File ids (product_media uploads), in display order. */
  medias: string[];
  archived: boolean;
  metadata: Metadata;
}

export interface DiscountBase {
  name: string;
  code: string | null;
  duration: "once" | "forever" | "repeating";
  duration_in_months: number | null;
  starts_at: string | null;
  ends_at: string | null;
  max_redemptions: number | null;
  /** Product keys, sorted: the products the discount is restricted to (none: every product). */
  products: string[];
  metadata: Metadata;
}
export type DiscountSpec =
  | ({ type: "fixed"; amount: number; currency: string; amounts: Record<string, number> } & DiscountBase)
  | ({ type: "percentage"; basis_points: number } & DiscountBase);

export interface Catalog {
  meters: Map<string, MeterSpec>;
  custom_fields: Map<string, CustomFieldSpec>;
  benefits: Map<string, BenefitSpec>;
  products: Map<string, ProductSpec>;
  discounts: Map<string, DiscountSpec>;
}

export type SpecOf<K extends Kind> = {
  meter: MeterSpec;
  custom_field: CustomFieldSpec;
  benefit: BenefitSpec;
  product: ProductSpec;
  discount: DiscountSpec;
}[K];

export function emptyCatalog(): Catalog {
  return { meters: new Map(), custom_fields: new Map(), benefits: new Map(), products: new Map(), discounts: new Map() };
}

export function entriesOf<K extends Kind>(catalog: Catalog, kind: K): Map<string, SpecOf<K>> {
  return catalog[SECTION[kind]] as Map<string, SpecOf<K>>;
}

/** What a person calls the object: its name (a benefit's description). */
export function displayName(kind: Kind, spec: SpecOf<Kind>): string {
  return kind === "benefit" ? (spec as BenefitSpec).description : (spec as { name: string }).name;
}

// ---- prices: canonical form, order and description ------------------------------------------------

/** Two prices are the same price when their signatures are equal (ids and timestamps never count). */
export function priceSignature(p: PriceSpec): string {
  return JSON.stringify(p);
}

export function sortPrices(prices: PriceSpec[]): PriceSpec[] {
  const rank = (p: PriceSpec) => CATALOG_PRICE_RANK[p.amount_type];
  const meter = (p: PriceSpec) => (p.amount_type === "metered_unit" ? p.meter : "");
  return [...prices].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      a.price_currency.localeCompare(b.price_currency) ||
      meter(a).localeCompare(meter(b)) ||
      priceSignature(a).localeCompare(priceSignature(b)),
  );
}

/**
 * "fixed 1000 usd", "metered api-calls 0.5 usd cap 5000", "metered api-calls usd graduated 1000:0 inf:0.15+500",
 * "seat_based usd 1-5:1000 6+:800" (minor units).
 */
export function describePrice(p: PriceSpec): string {
  const tax = p.tax_behavior ? ` tax ${p.tax_behavior}` : "";
  switch (p.amount_type) {
    case "fixed":
      return `fixed ${p.price_amount} ${p.price_currency}${tax}`;
    case "custom": {
      const parts = [`min ${p.minimum_amount}`];
      if (p.maximum_amount !== null) parts.push(`max ${p.maximum_amount}`);
      if (p.preset_amount !== null) parts.push(`preset ${p.preset_amount}`);
      return `custom ${p.price_currency} ${parts.join(" ")}${tax}`;
    }
    case "free":
      return `free${tax}`;
    case "metered_unit": {
      const cap = p.cap_amount !== null ? ` cap ${p.cap_amount}` : "";
      if (!p.unit_tiers) return `metered ${p.meter} ${p.unit_amount} ${p.price_currency}${cap}${tax}`;
      const tiers = p.unit_tiers.tiers.map((t) => `${t.up_to ?? "inf"}:${t.unit_amount}${t.flat_amount > 0 ? `+${t.flat_amount}` : ""}`);
      const unit = p.unit_amount !== null ? ` unit ${p.unit_amount}` : "";
      return `metered ${p.meter} ${p.price_currency} ${p.unit_tiers.tier_type} ${tiers.join(" ")}${unit}${cap}${tax}`;
    }
    case "seat_based": {
      const tiers = p.seat_tiers.tiers.map((t) => `${t.min_seats}${t.max_seats === null ? "+" : `-${t.max_seats}`}:${t.price_per_seat}`);
      const type = p.seat_tiers.seat_tier_type === "volume" ? "" : ` ${p.seat_tiers.seat_tier_type}`;
      return `seat_based ${p.price_currency}${type} ${tiers.join(" ")}${tax}`;
    }
    default:
      return assertNever(p, "price kind");
  }
}

/**
 * The shortest decimal string of a positive amount ("0.50" → "0.5"), or null when it is not one; with
 * `zero`, 0 is one too ("0": a tier's unit amount may be free).
 */
export function canonicalDecimal(value: string | number, zero = false): string | null {
  const text = typeof value === "number" ? (Number.isFinite(value) ? value.toFixed(12) : "") : value.trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return null;
  const int = (m[1] ?? "").replace(/^0+(?=\d)/, "");
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (int.length > 5 || frac.length > 12 || (!zero && /^0*$/.test(int + frac))) return null;
  return frac ? `${int}.${frac}` : int;
}

/**
 * A metered price's tiers in canonical form (every key present, amounts as shortest decimals), and its unit
 * amount as the catalog compares it: null when tiers are given and it is their first tier's (the server's
 * default), so a file that leaves it out and the server that filled it in agree.
 */
export function canonicalTiers(t: {
  tier_type?: UnitTiers["tier_type"] | undefined;
  tiers: Array<{ up_to?: number | null | undefined; unit_amount: string | number; flat_amount?: number | null | undefined }>;
}): UnitTiers {
  return {
    tier_type: t.tier_type ?? "graduated",
    tiers: t.tiers.map((x) => ({
      up_to: x.up_to ?? null,
      unit_amount: canonicalDecimal(x.unit_amount, true) ?? String(x.unit_amount),
      flat_amount: x.flat_amount ?? 0,
    })),
  };
}

export function meteredUnitAmount(unitAmount: string | null, tiers: UnitTiers | null): string | null {
  if (tiers && (unitAmount === null || unitAmount === tiers.tiers[0]?.unit_amount)) return null;
  return unitAmount;
}

/** What a catalog key may be (the metadata value that ties a server object to its entry). */
export const KEY_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const KEY_MESSAGE = "a key is 1 to 64 characters: lower-case letters, digits, '.', '_' or '-', starting with a letter or digit";

/** The record with its keys in code-point order (the canonical form writes maps so). */
export function sortedRecord<V>(r: Record<string, V>): Record<string, V> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
