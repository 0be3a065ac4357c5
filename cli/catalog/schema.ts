// The catalog file's schema: zod for each section (meters, custom fields, benefits, products, discounts), turning
// what the seller wrote into the normalized model's shapes with every default made explicit.
import { z } from "zod";
import { PresentmentCurrency } from "@polar-sh/sdk/models/components/presentmentcurrency.js";
import { AggregationInput, FilterInput } from "../../shared/meter-filter.js";
import { assertNever, PRICE_KIND_IS_STATIC } from "../../shared/kinds.js";
import {
  type BenefitType,
  CATALOG_KEY,
  CATALOG_VERSION,
  type CustomFieldType,
  type DiscountBase,
  type DiscountSpec,
  INTERVALS,
  type Metadata,
  METER_UNITS,
  type MeterSpec,
  type ProductSpec,
  sortedRecord,
  sortPrices,
  VISIBILITIES,
} from "./model.js";
import { CURRENCY_HINT, INT4_MAX, Key, PriceInput } from "./price-schema.js";

const CURRENCIES = Object.values(PresentmentCurrency) as [string, ...string[]];

// ---- the file schema (prices: price-schema.ts) -----------------------------------------------------------

const MetadataInput = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number(), z.boolean()]))
  .refine((m) => Object.keys(m).length <= 50, "metadata has at most 50 keys")
  .refine((m) => !(CATALOG_KEY in m), `${CATALOG_KEY} is written by till (it holds the entry's key): remove it`)
  .nullish()
  .transform((m): Metadata => sortedRecord(m ?? {}));

/** A discount's currency: Polar's presentment currencies, as the server's discounts take them. */
const currency = z.enum(CURRENCIES, { message: CURRENCY_HINT });
const nullableText = (max: number) =>
  z
    .string()
    .max(max)
    .nullish()
    .transform((s) => (s && s.trim() ? s : null));

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
      if (PRICE_KIND_IS_STATIC[price.amount_type]) {
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
    default:
      return assertNever(type, "benefit type");
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

export const CatalogInput = z.strictObject({
  version: z.literal(CATALOG_VERSION, { message: `expected version: ${CATALOG_VERSION}` }),
  meters: section(MeterInput),
  custom_fields: section(CustomFieldInput),
  benefits: section(BenefitInput),
  products: section(ProductInput),
  discounts: section(DiscountInput),
});
