// The catalog file (till.yaml): an organization's meters, custom fields, benefits, products and discounts, each
// under a key the seller chooses. Parsing validates the document with zod and reports `file:line: path: problem`;
// serializing writes the canonical form (sorted keys, defaults left out) so pulling twice gives the same bytes.
import { z } from "zod";
import { Document, isMap, isScalar, isSeq, LineCounter, parseDocument, visit } from "yaml";
import { PresentmentCurrency } from "@polar-sh/sdk/models/components/presentmentcurrency.js";
import { isCurrencyCode } from "../../shared/currencies.js";
import { AggregationInput, FilterInput, type Aggregation, type Filter } from "../../shared/meter-filter.js";

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
export const BENEFIT_TYPES = [
  "custom",
  "license_keys",
  "meter_credit",
  "downloadables",
  "discord",
  "github_repository",
  "feature_flag",
] as const;
export type BenefitType = (typeof BENEFIT_TYPES)[number];
const CURRENCIES = Object.values(PresentmentCurrency) as [string, ...string[]];

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
  | ({ amount_type: "metered_unit"; meter: string; unit_amount: string; cap_amount: number | null } & PriceBase)
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

interface DiscountBase {
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

const AMOUNT_TYPE_ORDER = ["fixed", "custom", "free", "seat_based", "metered_unit"];

/** Two prices are the same price when their signatures are equal (ids and timestamps never count). */
export function priceSignature(p: PriceSpec): string {
  return JSON.stringify(p);
}

export function sortPrices(prices: PriceSpec[]): PriceSpec[] {
  const rank = (p: PriceSpec) => AMOUNT_TYPE_ORDER.indexOf(p.amount_type);
  const meter = (p: PriceSpec) => (p.amount_type === "metered_unit" ? p.meter : "");
  return [...prices].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      a.price_currency.localeCompare(b.price_currency) ||
      meter(a).localeCompare(meter(b)) ||
      priceSignature(a).localeCompare(priceSignature(b)),
  );
}

/** "fixed 1000 usd", "metered api-calls 0.5 usd cap 5000", "seat_based usd 1-5:1000 6+:800" (minor units). */
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
    case "metered_unit":
      return `metered ${p.meter} ${p.unit_amount} ${p.price_currency}${p.cap_amount !== null ? ` cap ${p.cap_amount}` : ""}${tax}`;
    case "seat_based": {
      const tiers = p.seat_tiers.tiers.map((t) => `${t.min_seats}${t.max_seats === null ? "+" : `-${t.max_seats}`}:${t.price_per_seat}`);
      const type = p.seat_tiers.seat_tier_type === "volume" ? "" : ` ${p.seat_tiers.seat_tier_type}`;
      return `seat_based ${p.price_currency}${type} ${tiers.join(" ")}${tax}`;
    }
  }
}

/** The shortest decimal string of a positive amount ("0.50" → "0.5"), or null when it is not one. */
export function canonicalDecimal(value: string | number): string | null {
  const text = typeof value === "number" ? (Number.isFinite(value) ? value.toFixed(12) : "") : value.trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return null;
  const int = (m[1] ?? "").replace(/^0+(?=\d)/, "");
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (int.length > 5 || frac.length > 12 || /^0*$/.test(int + frac)) return null;
  return frac ? `${int}.${frac}` : int;
}

// ---- the file schema ----------------------------------------------------------------------------------

export const KEY_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const KEY_MESSAGE = "a key is 1 to 64 characters: lower-case letters, digits, '.', '_' or '-', starting with a letter or digit";
const Key = z.string().regex(KEY_PATTERN, KEY_MESSAGE);
const INT4_MAX = 2_147_483_647;
const MIN_AMOUNT = 50;
const MAX_AMOUNT = 99_999_999;

const MetadataInput = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number(), z.boolean()]))
  .refine((m) => Object.keys(m).length <= 50, "metadata has at most 50 keys")
  .refine((m) => !(CATALOG_KEY in m), `${CATALOG_KEY} is written by till (it holds the entry's key): remove it`)
  .nullish()
  .transform((m): Metadata => sortedRecord(m ?? {}));

const CURRENCY_HINT = "expected a lower-case ISO 4217 currency code such as usd or eur";
/** A price's currency: the server's rule (shared/currencies.ts), so what `catalog pull` wrote always plans. */
const priceCurrency = z.string().refine(isCurrencyCode, CURRENCY_HINT);
/** A discount's currency: Polar's presentment currencies, as the server's discounts take them. */
const currency = z.enum(CURRENCIES, { message: CURRENCY_HINT });
const amount = z.int().min(MIN_AMOUNT, `amounts are at least ${MIN_AMOUNT} (minor units)`).max(MAX_AMOUNT);
const amountOrZero = z
  .int()
  .min(0)
  .max(MAX_AMOUNT)
  .refine((v) => v === 0 || v >= MIN_AMOUNT, `expected 0 or at least ${MIN_AMOUNT} (minor units)`);
const nullableText = (max: number) =>
  z
    .string()
    .max(max)
    .nullish()
    .transform((s) => (s && s.trim() ? s : null));

const priceBase = {
  price_currency: priceCurrency.default("usd"),
  tax_behavior: z.enum(TAX_BEHAVIORS).nullish(),
};
const SeatTierInput = z.strictObject({
  min_seats: z.int().min(1),
  max_seats: z.int().min(1).nullish(),
  price_per_seat: z.int().min(0).max(MAX_AMOUNT),
});
const PriceInput = z
  .discriminatedUnion("amount_type", [
    // a fixed price of 0 is 0.49's free price (the server takes 0 or at least 50)
    z.strictObject({ amount_type: z.literal("fixed"), ...priceBase, price_amount: amountOrZero }),
    z.strictObject({
      amount_type: z.literal("custom"),
      ...priceBase,
      minimum_amount: amountOrZero.default(MIN_AMOUNT),
      maximum_amount: amount.nullish(),
      preset_amount: amountOrZero.nullish(),
    }),
    z.strictObject({ amount_type: z.literal("free"), ...priceBase }),
    z.strictObject({
      amount_type: z.literal("metered_unit"),
      ...priceBase,
      meter: Key,
      unit_amount: z.union([z.string(), z.number()]).refine((v) => canonicalDecimal(v) !== null, {
        message: "expected a positive decimal with at most 5 digits before and 12 after the point",
      }),
      cap_amount: z.int().min(0).max(INT4_MAX).nullish(),
    }),
    z.strictObject({
      amount_type: z.literal("seat_based"),
      ...priceBase,
      seat_tiers: z.strictObject({
        seat_tier_type: z.enum(["volume", "graduated"]).default("volume"),
        tiers: z.array(SeatTierInput).min(1),
      }),
    }),
  ])
  .superRefine((p, ctx) => {
    if (p.amount_type === "custom") {
      const { minimum_amount: min, maximum_amount: max, preset_amount: preset } = p;
      if (max != null && max < min) ctx.addIssue({ code: "custom", path: ["maximum_amount"], message: "must be at least minimum_amount" });
      if (preset != null && preset < min) ctx.addIssue({ code: "custom", path: ["preset_amount"], message: "must be at least minimum_amount" });
      if (preset != null && max != null && preset > max) {
        ctx.addIssue({ code: "custom", path: ["preset_amount"], message: "must be at most maximum_amount" });
      }
    }
    if (p.amount_type === "seat_based") checkTiers(p.seat_tiers.tiers, ctx);
  })
  .transform((p): PriceSpec => {
    const base = { price_currency: p.price_currency, tax_behavior: p.tax_behavior ?? null };
    switch (p.amount_type) {
      case "fixed":
        return { amount_type: "fixed", ...base, price_amount: p.price_amount };
      case "custom":
        return {
          amount_type: "custom",
          ...base,
          minimum_amount: p.minimum_amount,
          maximum_amount: p.maximum_amount ?? null,
          preset_amount: p.preset_amount ?? null,
        };
      case "free":
        return { amount_type: "free", ...base };
      case "metered_unit":
        return {
          amount_type: "metered_unit",
          ...base,
          meter: p.meter,
          unit_amount: canonicalDecimal(p.unit_amount) ?? "",
          cap_amount: p.cap_amount ?? null,
        };
      case "seat_based":
        return { amount_type: "seat_based", ...base, seat_tiers: normalizeTiers(p.seat_tiers) };
    }
  });

function checkTiers(tiers: Array<{ min_seats: number; max_seats?: number | null | undefined }>, ctx: z.RefinementCtx): void {
  const sorted = [...tiers].sort((a, b) => a.min_seats - b.min_seats);
  sorted.forEach((t, i) => {
    const at = ["seat_tiers", "tiers", tiers.indexOf(t)];
    if (t.max_seats != null && t.max_seats < t.min_seats) {
      ctx.addIssue({ code: "custom", path: [...at, "max_seats"], message: "must be at least min_seats" });
    }
    const next = sorted[i + 1];
    if (!next) return;
    if (t.max_seats == null) ctx.addIssue({ code: "custom", path: [...at, "max_seats"], message: "only the last tier can be unbounded" });
    else if (next.min_seats !== t.max_seats + 1) {
      ctx.addIssue({ code: "custom", path: at, message: `tiers must be contiguous: ${t.max_seats} is followed by ${next.min_seats}` });
    }
  });
}

export function normalizeTiers(s: {
  seat_tier_type?: "volume" | "graduated" | undefined;
  tiers: Array<{ min_seats: number; max_seats?: number | null | undefined; price_per_seat: number }>;
}): { seat_tier_type: "volume" | "graduated"; tiers: SeatTier[] } {
  const tiers = [...s.tiers]
    .sort((a, b) => a.min_seats - b.min_seats)
    .map((t) => ({ min_seats: t.min_seats, max_seats: t.max_seats ?? null, price_per_seat: t.price_per_seat }));
  return { seat_tier_type: s.seat_tier_type ?? "volume", tiers };
}

const STATIC_TYPES = new Set(["fixed", "custom", "free", "seat_based"]);

const ProductInput = z
  .strictObject({
    name: z.string().trim().min(3).max(64),
    description: nullableText(10_000),
    visibility: z.enum(VISIBILITIES).default("public"),
    recurring_interval: z.enum(INTERVALS).nullish(),
    recurring_interval_count: z.int().min(1).max(999).nullish(),
    trial_interval: z.enum(INTERVALS).nullish(),
    trial_interval_count: z.int().min(1).max(1000).nullish(),
    prices: z.array(PriceInput).min(1, "a product has at least one price").max(100),
    benefits: z.array(Key).nullish(),
    custom_fields: z.array(z.union([Key, z.strictObject({ field: Key, required: z.boolean().default(false) })])).nullish(),
    medias: z.array(z.guid("expected a file id")).max(50).nullish(),
    archived: z.boolean().default(false),
    metadata: MetadataInput,
  })
  .superRefine((p, ctx) => {
    const recurring = p.recurring_interval != null;
    const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: "custom", path, message });
    if (!recurring && p.recurring_interval_count != null) issue(["recurring_interval_count"], "only recurring products have one");
    if ((p.trial_interval != null || p.trial_interval_count != null) && !recurring) {
      issue(["trial_interval"], "trials are only available on recurring products");
    } else if ((p.trial_interval == null) !== (p.trial_interval_count == null)) {
      issue([p.trial_interval == null ? "trial_interval" : "trial_interval_count"], "trial_interval and trial_interval_count go together");
    }
    const currencies = new Set<string>();
    p.prices.forEach((price, i) => {
      if (price.amount_type === "metered_unit" && !recurring) issue(["prices", i], "metered prices need a recurring product");
      if (STATIC_TYPES.has(price.amount_type)) {
        if (currencies.has(price.price_currency)) {
          issue(["prices", i], `only one fixed, custom, free or seat_based price per currency (${price.price_currency})`);
        }
        currencies.add(price.price_currency);
      }
    });
    duplicates(p.benefits ?? []).forEach((i) => issue(["benefits", i], "listed twice"));
    const fields = (p.custom_fields ?? []).map((f) => (typeof f === "string" ? f : f.field));
    duplicates(fields).forEach((i) => issue(["custom_fields", i], "listed twice"));
  })
  .transform(
    (p): ProductSpec => ({
      name: p.name,
      description: p.description,
      visibility: p.visibility,
      recurring_interval: p.recurring_interval ?? null,
      recurring_interval_count: p.recurring_interval ? (p.recurring_interval_count ?? 1) : null,
      trial_interval: p.trial_interval ?? null,
      trial_interval_count: p.trial_interval_count ?? null,
      prices: sortPrices(p.prices),
      benefits: p.benefits ?? [],
      custom_fields: (p.custom_fields ?? []).map((f) => (typeof f === "string" ? { field: f, required: false } : f)),
      medias: (p.medias ?? []).map((m) => m.toLowerCase()),
      archived: p.archived,
      metadata: p.metadata,
    }),
  );

function duplicates(items: string[]): number[] {
  return items.flatMap((item, i) => (items.indexOf(item) !== i ? [i] : []));
}

const MeterInput = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    unit: z.enum(METER_UNITS).default("scalar"),
    custom_label: z.string().trim().min(1).max(50).nullish(),
    custom_multiplier: z.int().min(1).max(1_000_000_000).nullish(),
    filter: FilterInput,
    aggregation: AggregationInput,
    archived: z.boolean().default(false),
    metadata: MetadataInput,
  })
  .superRefine((m, ctx) => {
    if (m.unit === "custom" && !m.custom_label) ctx.addIssue({ code: "custom", path: ["custom_label"], message: "required when unit is custom" });
    if (m.unit !== "custom" && (m.custom_label != null || m.custom_multiplier != null)) {
      ctx.addIssue({ code: "custom", path: [m.custom_label != null ? "custom_label" : "custom_multiplier"], message: "only for unit: custom" });
    }
  })
  .transform(
    (m): MeterSpec => ({
      name: m.name,
      unit: m.unit,
      custom_label: m.unit === "custom" ? (m.custom_label ?? null) : null,
      custom_multiplier: m.unit === "custom" ? (m.custom_multiplier ?? 1) : null,
      filter: m.filter,
      aggregation: m.aggregation,
      archived: m.archived,
      metadata: m.metadata,
    }),
  );

const formText = z.string().min(1).max(1000).optional();
const form = { form_label: formText, form_help_text: formText, form_placeholder: formText };
const bounds = { ge: z.int().optional(), le: z.int().optional() };
const customFieldOf = <T extends CustomFieldType, S extends z.ZodRawShape>(type: T, properties: S, optional = true) =>
  z.strictObject({
    type: z.literal(type),
    name: z.string().trim().min(1).max(255),
    slug: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,100}$/, "a slug has 1 to 100 letters, digits, '-' or '_'")
      .optional(),
    properties: optional ? z.strictObject(properties).nullish() : z.strictObject(properties),
    metadata: MetadataInput,
  });
const CustomFieldInput = z.discriminatedUnion("type", [
  customFieldOf("text", { ...form, textarea: z.boolean().optional(), min_length: z.int().min(0).optional(), max_length: z.int().min(0).optional() }),
  customFieldOf("number", { ...form, ...bounds }),
  customFieldOf("date", { ...form, ...bounds }),
  customFieldOf("checkbox", form),
  customFieldOf("select", {
    ...form,
    options: z.array(z.strictObject({ value: z.string().min(1).max(255), label: z.string().min(1).max(255) })).min(1).max(200),
  }, false),
]);

const benefitOf = <T extends BenefitType, S extends z.ZodType>(type: T, properties: S) =>
  z.strictObject({
    type: z.literal(type),
    description: z.string().trim().min(3).max(42),
    properties,
    metadata: MetadataInput,
  });
const BenefitInput = z.discriminatedUnion("type", [
  benefitOf("custom", z.strictObject({ note: z.string().max(10_000).nullish() }).nullish()),
  benefitOf(
    "license_keys",
    z
      .strictObject({
        prefix: z.string().trim().min(1).max(32).nullish(),
        expires: z.strictObject({ ttl: z.int().min(1).max(INT4_MAX), timeframe: z.enum(["day", "month", "year"]) }).nullish(),
        activations: z.strictObject({ limit: z.int().min(1).max(50), enable_customer_admin: z.boolean().default(false) }).nullish(),
        limit_usage: z.int().min(1).max(INT4_MAX).nullish(),
      })
      .nullish(),
  ),
  benefitOf("meter_credit", z.strictObject({ meter: Key, units: z.int().min(1).max(INT4_MAX), rollover: z.boolean().default(false) })),
  benefitOf(
    "downloadables",
    z.strictObject({ files: z.array(z.guid("expected a file id")).min(1).max(100), archived: z.record(z.string(), z.boolean()).nullish() }),
  ),
  benefitOf("discord", z.strictObject({ guild_token: z.string().min(1), role_id: z.string().min(1), kick_member: z.boolean().default(false) })),
  benefitOf(
    "github_repository",
    z.strictObject({
      repository_owner: z.string().min(1),
      repository_name: z.string().min(1),
      permission: z.enum(["pull", "triage", "push", "maintain", "admin"]),
    }),
  ),
  benefitOf("feature_flag", z.strictObject({}).nullish()),
]);

/** Benefit properties as the server stores them (every nullable key present, ids lower-case). */
export function benefitProperties(type: BenefitType, raw: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const p = raw ?? {};
  switch (type) {
    case "custom":
      return { note: p.note ?? null };
    case "license_keys":
      return {
        prefix: p.prefix ?? null,
        expires: p.expires ?? null,
        activations: p.activations ?? null,
        limit_usage: p.limit_usage ?? null,
      };
    case "meter_credit":
      return { meter: p.meter, units: p.units, rollover: p.rollover };
    case "downloadables": {
      const archived = Object.entries((p.archived as Record<string, boolean> | null | undefined) ?? {}).map(
        ([k, v]) => [k.toLowerCase(), v] as const,
      );
      return { files: (p.files as string[]).map((f) => f.toLowerCase()), archived: sortedRecord(Object.fromEntries(archived)) };
    }
    case "discord":
      return { guild_token: p.guild_token, role_id: p.role_id, kick_member: p.kick_member };
    case "github_repository":
      return { repository_owner: p.repository_owner, repository_name: p.repository_name, permission: p.permission };
    case "feature_flag":
      return {};
  }
}

/** Custom-field properties with only the keys that are set, in a fixed order. */
export function customFieldProperties(raw: Record<string, unknown>): Record<string, unknown> {
  const order = ["form_label", "form_help_text", "form_placeholder", "textarea", "min_length", "max_length", "ge", "le", "options"];
  const out: Record<string, unknown> = {};
  for (const k of order) {
    const v = raw[k];
    if (v === undefined || v === null) continue;
    out[k] = k === "options" ? (v as Array<{ value: string; label: string }>).map((o) => ({ value: o.value, label: o.label })) : v;
  }
  return out;
}

const discountCommon = {
  name: z.string().trim().min(1).max(256),
  code: z
    .string()
    .regex(/^[A-Za-z0-9]{3,256}$/, "a code has 3 to 256 letters or digits")
    .nullish(),
  duration: z.enum(["once", "forever", "repeating"]),
  duration_in_months: z.int().min(1).max(999).nullish(),
  starts_at: z.iso.datetime({ offset: true, message: "expected an ISO 8601 date-time with an offset, such as 2025-01-31T00:00:00Z" }).nullish(),
  ends_at: z.iso.datetime({ offset: true, message: "expected an ISO 8601 date-time with an offset, such as 2025-01-31T00:00:00Z" }).nullish(),
  max_redemptions: z.int().min(1).max(INT4_MAX).nullish(),
  products: z.array(Key).nullish(),
  metadata: MetadataInput,
};
const DiscountInput = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("fixed"),
      ...discountCommon,
      amount: z.int().min(1).max(INT4_MAX),
      currency: currency.default("usd"),
      amounts: z.record(currency, z.int().min(1).max(INT4_MAX)).nullish(),
    }),
    z.strictObject({ type: z.literal("percentage"), ...discountCommon, basis_points: z.int().min(1).max(10_000) }),
  ])
  .superRefine((d, ctx) => {
    if (d.duration === "repeating" && d.duration_in_months == null) {
      ctx.addIssue({ code: "custom", path: ["duration_in_months"], message: "required for a repeating discount" });
    }
    if (d.duration !== "repeating" && d.duration_in_months != null) {
      ctx.addIssue({ code: "custom", path: ["duration_in_months"], message: "only for a repeating discount" });
    }
    if (d.starts_at && d.ends_at && Date.parse(d.ends_at) <= Date.parse(d.starts_at)) {
      ctx.addIssue({ code: "custom", path: ["ends_at"], message: "must be after starts_at" });
    }
    if (d.type === "fixed" && d.amounts?.[d.currency] !== undefined && d.amounts[d.currency] !== d.amount) {
      ctx.addIssue({ code: "custom", path: ["amounts", d.currency], message: `differs from amount (${d.amount})` });
    }
    duplicates(d.products ?? []).forEach((i) => ctx.addIssue({ code: "custom", path: ["products", i], message: "listed twice" }));
  })
  .transform((d): DiscountSpec => {
    const base: DiscountBase = {
      name: d.name,
      code: d.code ?? null,
      duration: d.duration,
      duration_in_months: d.duration_in_months ?? null,
      starts_at: d.starts_at ? new Date(d.starts_at).toISOString() : null,
      ends_at: d.ends_at ? new Date(d.ends_at).toISOString() : null,
      max_redemptions: d.max_redemptions ?? null,
      products: [...(d.products ?? [])].sort(),
      metadata: d.metadata,
    };
    if (d.type === "percentage") return { type: "percentage", basis_points: d.basis_points, ...base };
    const amounts = sortedRecord({ ...(d.amounts ?? {}), [d.currency]: d.amount });
    return { type: "fixed", amount: d.amount, currency: d.currency, amounts, ...base };
  });

const section = <S extends z.ZodType>(entry: S) =>
  z
    .record(Key, entry)
    .nullish()
    .transform((r) => r ?? {});

const CatalogInput = z.strictObject({
  version: z.literal(CATALOG_VERSION, { message: `expected version: ${CATALOG_VERSION}` }),
  meters: section(MeterInput),
  custom_fields: section(CustomFieldInput),
  benefits: section(BenefitInput),
  products: section(ProductInput),
  discounts: section(DiscountInput),
});

// ---- parsing ------------------------------------------------------------------------------------------

export interface CatalogIssue {
  /** 1-based line in the file, or null when the problem has no place (an empty file). */
  line: number | null;
  /** Where in the document: "products.pro.prices[0].price_amount". */
  path: string;
  message: string;
}

/** The file is not a valid catalog; `message` lists every problem as `file:line: path: problem`. */
export class CatalogFileError extends Error {
  readonly issues: CatalogIssue[];
  readonly file: string;
  constructor(file: string, issues: CatalogIssue[]) {
    super(issues.map((i) => formatIssue(file, i)).join("\n"));
    this.name = "CatalogFileError";
    this.file = file;
    this.issues = issues;
  }
}

export function formatIssue(file: string, issue: CatalogIssue): string {
  const where = issue.line === null ? file : `${file}:${issue.line}`;
  return issue.path ? `${where}: ${issue.path}: ${issue.message}` : `${where}: ${issue.message}`;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, seg) => {
    if (typeof seg === "number") return `${out}[${seg}]`;
    const s = String(seg);
    return out === "" ? s : `${out}.${s}`;
  }, "");
}

/** The line of the node at `path`, or of its nearest ancestor that exists. */
function lineOf(doc: Document.Parsed, counter: LineCounter, path: ReadonlyArray<PropertyKey>): number | null {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (node && typeof node === "object" && (isMap(node) || isSeq(node) || isScalar(node)) && node.range) {
      // a map's own position is its first key; point at the key when we can
      if (n > 0 && (isMap(node) || isSeq(node))) {
        const parent = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true);
        if (isMap(parent)) {
          const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(path[n - 1]));
          if (pair && isScalar(pair.key) && pair.key.range) return counter.linePos(pair.key.range[0]).line;
        }
      }
      return counter.linePos(node.range[0]).line;
    }
  }
  return null;
}

/**
 * Parses and validates a catalog document (YAML, or JSON, which is YAML too). References between entries
 * (a product's benefits, a metered price's meter, a discount's products…) must name keys of the same file.
 */
export function parseCatalog(text: string, file = "till.yaml"): Catalog {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new CatalogFileError(
      file,
      doc.errors.map((e) => ({ line: counter.linePos(e.pos[0]).line || 1, path: "", message: e.message.split("\n")[0] ?? e.message })),
    );
  }
  const raw: unknown = doc.toJS({ maxAliasCount: 100 });
  if (raw === null || raw === undefined) {
    throw new CatalogFileError(file, [{ line: null, path: "", message: `the file is empty; start with "version: ${CATALOG_VERSION}"` }]);
  }
  const parsed = CatalogInput.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => {
      // an unknown key is reported on its object: point at the key itself
      const path = i.code === "unrecognized_keys" && i.keys.length === 1 ? [...i.path, i.keys[0] as string] : i.path;
      return { line: lineOf(doc, counter, path), path: formatPath(path), message: issueMessage(i) };
    });
    throw new CatalogFileError(file, byLine(issues));
  }
  const catalog = toCatalog(parsed.data);
  const refIssues = referenceIssues(catalog).map((r) => ({ line: lineOf(doc, counter, r.path), path: formatPath(r.path), message: r.message }));
  if (refIssues.length > 0) throw new CatalogFileError(file, byLine(refIssues));
  return catalog;
}

const byLine = (issues: CatalogIssue[]) => [...issues].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return issue.keys.length === 1 ? "unknown field" : `unknown fields: ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_key") return KEY_MESSAGE;
  return issue.message;
}

type CatalogData = z.output<typeof CatalogInput>;

function toCatalog(data: CatalogData): Catalog {
  const catalog = emptyCatalog();
  for (const [key, m] of Object.entries(data.meters)) catalog.meters.set(key, m);
  for (const [key, f] of Object.entries(data.custom_fields)) {
    catalog.custom_fields.set(key, {
      slug: (f.slug ?? key).toLowerCase(),
      name: f.name,
      type: f.type,
      properties: customFieldProperties((f.properties ?? {}) as Record<string, unknown>),
      metadata: f.metadata,
    });
  }
  for (const [key, b] of Object.entries(data.benefits)) {
    catalog.benefits.set(key, {
      type: b.type,
      description: b.description,
      properties: benefitProperties(b.type, b.properties as Record<string, unknown> | null | undefined),
      metadata: b.metadata,
    });
  }
  for (const [key, p] of Object.entries(data.products)) catalog.products.set(key, p);
  for (const [key, d] of Object.entries(data.discounts)) catalog.discounts.set(key, d);
  return catalog;
}

/** Keys that name nothing in the file, and slugs given twice. */
function referenceIssues(c: Catalog): Array<{ path: PropertyKey[]; message: string }> {
  const issues: Array<{ path: PropertyKey[]; message: string }> = [];
  const missing = (path: PropertyKey[], kind: string, key: string, section: string) =>
    issues.push({ path, message: `no ${kind} "${key}" in ${section}` });
  for (const [key, b] of c.benefits) {
    const meter = b.type === "meter_credit" ? String(b.properties.meter) : null;
    if (meter !== null && !c.meters.has(meter)) missing(["benefits", key, "properties", "meter"], "meter", meter, "meters");
  }
  for (const [key, p] of c.products) {
    // prices were sorted: report by content, which survives the sort
    p.prices.forEach((price) => {
      if (price.amount_type === "metered_unit" && !c.meters.has(price.meter)) {
        missing(["products", key, "prices"], "meter", price.meter, "meters");
      }
    });
    p.benefits.forEach((b, i) => c.benefits.has(b) || missing(["products", key, "benefits", i], "benefit", b, "benefits"));
    p.custom_fields.forEach(
      (f, i) => c.custom_fields.has(f.field) || missing(["products", key, "custom_fields", i], "custom field", f.field, "custom_fields"),
    );
  }
  for (const [key, d] of c.discounts) {
    d.products.forEach((p) => c.products.has(p) || missing(["discounts", key, "products"], "product", p, "products"));
  }
  const slugs = new Map<string, string>();
  for (const [key, f] of c.custom_fields) {
    const other = slugs.get(f.slug);
    if (other !== undefined) issues.push({ path: ["custom_fields", key, "slug"], message: `slug "${f.slug}" is also the slug of ${other}` });
    slugs.set(f.slug, key);
  }
  return issues;
}

// ---- serializing ----------------------------------------------------------------------------------------

function sortedRecord<V>(r: Record<string, V>): Record<string, V> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Drops keys whose value is null, undefined, an empty list/map, or the given default. */
function compact(o: Record<string, unknown>, defaults: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    if (k in defaults && defaults[k] === v) continue;
    out[k] = v;
  }
  return out;
}

function priceDocument(p: PriceSpec): Record<string, unknown> {
  const { tax_behavior, ...rest } = p;
  const out: Record<string, unknown> = { ...rest, tax_behavior };
  if (p.amount_type === "seat_based") {
    out.seat_tiers = {
      ...(p.seat_tiers.seat_tier_type === "volume" ? {} : { seat_tier_type: p.seat_tiers.seat_tier_type }),
      tiers: p.seat_tiers.tiers.map((t) => compact({ ...t })),
    };
  }
  return compact(out);
}

function productDocument(p: ProductSpec): Record<string, unknown> {
  return compact(
    {
      name: p.name,
      description: p.description,
      visibility: p.visibility,
      recurring_interval: p.recurring_interval,
      recurring_interval_count: p.recurring_interval_count,
      trial_interval: p.trial_interval,
      trial_interval_count: p.trial_interval_count,
      prices: p.prices.map(priceDocument),
      benefits: p.benefits,
      custom_fields: p.custom_fields.map((f) => ({ field: f.field, required: f.required })),
      medias: p.medias,
      archived: p.archived,
      metadata: p.metadata,
    },
    { visibility: "public", recurring_interval_count: 1, archived: false },
  );
}

function discountDocument(d: DiscountSpec): Record<string, unknown> {
  const value =
    d.type === "fixed"
      ? {
          amount: d.amount,
          currency: d.currency,
          // only the currencies beyond the primary one: amount/currency already say that one
          amounts: Object.keys(d.amounts).length > 1 ? d.amounts : null,
        }
      : { basis_points: d.basis_points };
  return compact({
    name: d.name,
    code: d.code,
    type: d.type,
    ...value,
    duration: d.duration,
    duration_in_months: d.duration_in_months,
    starts_at: d.starts_at,
    ends_at: d.ends_at,
    max_redemptions: d.max_redemptions,
    products: d.products,
    metadata: d.metadata,
  });
}

function benefitDocument(b: BenefitSpec): Record<string, unknown> {
  return compact({ type: b.type, description: b.description, properties: compact(b.properties), metadata: b.metadata });
}

function customFieldDocument(key: string, f: CustomFieldSpec): Record<string, unknown> {
  return compact({
    type: f.type,
    name: f.name,
    slug: f.slug === key ? null : f.slug,
    properties: f.properties,
    metadata: f.metadata,
  });
}

function meterDocument(m: MeterSpec): Record<string, unknown> {
  return compact(
    {
      name: m.name,
      unit: m.unit,
      custom_label: m.custom_label,
      custom_multiplier: m.custom_multiplier,
      filter: m.filter,
      aggregation: m.aggregation,
      archived: m.archived,
      metadata: m.metadata,
    },
    { unit: "scalar", archived: false },
  );
}

function sectionDocument<T>(entries: Map<string, T>, toDoc: (key: string, spec: T) => Record<string, unknown>) {
  const keys = [...entries.keys()].sort();
  return Object.fromEntries(keys.map((k) => [k, toDoc(k, entries.get(k) as T)]));
}

/** The document as plain data (what JSON output prints), in canonical order. */
export function catalogDocument(c: Catalog): Record<string, unknown> {
  return {
    version: CATALOG_VERSION,
    meters: sectionDocument(c.meters, (_k, m) => meterDocument(m)),
    custom_fields: sectionDocument(c.custom_fields, customFieldDocument),
    benefits: sectionDocument(c.benefits, (_k, b) => benefitDocument(b)),
    products: sectionDocument(c.products, (_k, p) => productDocument(p)),
    discounts: sectionDocument(c.discounts, (_k, d) => discountDocument(d)),
  };
}

const HEADER = [
  " The catalog of a till organization: meters, custom fields, benefits, products and discounts.",
  " Entries are identified by their key (written to the server objects' metadata as till_catalog_key).",
  " Amounts are in minor units (1000 usd = $10.00). Check changes with `till catalog plan -f <file>`,",
  " then make them with `till catalog apply -f <file>`.",
].join("\n");

export function catalogToYaml(c: Catalog): string {
  const doc = new Document(catalogDocument(c));
  // short lists of keys read best on one line: `benefits: [support, credits]`
  visit(doc, {
    Seq(_key, node) {
      if (node.items.every((i) => isScalar(i))) node.flow = true;
    },
  });
  doc.commentBefore = HEADER;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

export function catalogToJson(c: Catalog): string {
  return `${JSON.stringify(catalogDocument(c), null, 2)}\n`;
}
