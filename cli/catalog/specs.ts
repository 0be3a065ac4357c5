// Server objects → the catalog model's specs, references as keys (the inverse of requests.ts): what pull writes
// and what plan compares the file with.
import type { Benefit } from "@polar-sh/sdk/models/components/benefit.js";
import type { CustomField } from "@polar-sh/sdk/models/components/customfield.js";
import type { Discount } from "@polar-sh/sdk/models/components/discount.js";
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Aggregation, Filter, FilterClause } from "../../shared/meter-filter.js";
import { assertNever } from "../../shared/kinds.js";
import {
  CATALOG_KEY,
  canonicalDecimal,
  canonicalTiers,
  meteredUnitAmount,
  sortPrices,
  type BenefitSpec,
  type BenefitType,
  type CustomFieldSpec,
  type CustomFieldType,
  type DiscountSpec,
  type Interval,
  type Kind,
  type Metadata,
  type MeterSpec,
  type PriceSpec,
  type ProductSpec,
  type SpecOf,
  type TaxBehavior,
} from "./model.js";
import { normalizeTiers } from "./price-schema.js";
import { benefitProperties, customFieldProperties } from "./schema.js";
import type { RefResolver, ServerObjectOf, ServerPrice } from "./server.js";

/** The seller's metadata: everything but the catalog key, sorted. */
export function userMetadata(metadata: Record<string, unknown>): Metadata {
  return Object.fromEntries(
    Object.entries(metadata)
      .filter(([k]) => k !== CATALOG_KEY)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ) as Metadata;
}

function filterSpec(f: Filter | { conjunction: string; clauses: unknown[] }): Filter {
  return {
    conjunction: f.conjunction as Filter["conjunction"],
    clauses: f.clauses.map((c) => {
      const o = c as Record<string, unknown>;
      if ("clauses" in o) return filterSpec(o as unknown as Filter);
      const clause = o as unknown as FilterClause;
      return { property: clause.property, operator: clause.operator, value: clause.value };
    }),
  };
}

export function meterSpec(m: Meter): MeterSpec {
  const custom = m.unit === "custom";
  const aggregation = m.aggregation as { func: string; property?: string };
  return {
    name: m.name,
    unit: m.unit as MeterSpec["unit"],
    custom_label: custom ? (m.customLabel ?? null) : null,
    custom_multiplier: custom ? (m.customMultiplier ?? 1) : null,
    filter: filterSpec(m.filter),
    aggregation: (aggregation.func === "count" ? { func: "count" } : { func: aggregation.func, property: aggregation.property }) as Aggregation,
    archived: Boolean(m.archivedAt),
    metadata: userMetadata(m.metadata),
  };
}

const SNAKE: Record<string, string> = {
  formLabel: "form_label",
  formHelpText: "form_help_text",
  formPlaceholder: "form_placeholder",
  minLength: "min_length",
  maxLength: "max_length",
};

export function customFieldSpec(f: CustomField): CustomFieldSpec {
  const props = Object.fromEntries(Object.entries(f.properties).map(([k, v]) => [SNAKE[k] ?? k, v]));
  return {
    slug: f.slug,
    name: f.name,
    type: f.type as CustomFieldType,
    properties: customFieldProperties(props),
    metadata: userMetadata(f.metadata),
  };
}

export function benefitSpec(b: Benefit, refs: RefResolver): BenefitSpec {
  const type = b.type as BenefitType;
  const p = b.properties as Record<string, unknown>;
  let raw: Record<string, unknown>;
  switch (b.type) {
    case "license_keys": {
      const activations = b.properties.activations;
      raw = {
        prefix: b.properties.prefix,
        expires: b.properties.expires ? { ttl: b.properties.expires.ttl, timeframe: b.properties.expires.timeframe } : null,
        activations: activations ? { limit: activations.limit, enable_customer_admin: activations.enableCustomerAdmin } : null,
        limit_usage: b.properties.limitUsage,
      };
      break;
    }
    case "meter_credit":
      raw = { meter: refs("meter", b.properties.meterId), units: b.properties.units, rollover: b.properties.rollover };
      break;
    case "discord":
      raw = { guild_token: b.properties.guildToken, role_id: b.properties.roleId, kick_member: b.properties.kickMember };
      break;
    case "github_repository":
      raw = {
        repository_owner: b.properties.repositoryOwner,
        repository_name: b.properties.repositoryName,
        permission: b.properties.permission,
      };
      break;
    default:
      raw = p;
  }
  return { type, description: b.description, properties: benefitProperties(type, raw), metadata: userMetadata(b.metadata) };
}

export function priceSpec(p: ServerPrice, refs: RefResolver): PriceSpec {
  const base = { price_currency: p.priceCurrency, tax_behavior: (p.taxBehavior ?? null) as TaxBehavior | null };
  switch (p.amountType) {
    case "fixed":
      return { amount_type: "fixed", ...base, price_amount: p.priceAmount };
    case "custom":
      return {
        amount_type: "custom",
        ...base,
        minimum_amount: p.minimumAmount,
        maximum_amount: p.maximumAmount ?? null,
        preset_amount: p.presetAmount ?? null,
      };
    case "free":
      return { amount_type: "free", ...base };
    case "metered_unit": {
      const tiers = p.unitTiers ? canonicalTiers(p.unitTiers) : null;
      return {
        amount_type: "metered_unit",
        ...base,
        meter: refs("meter", p.meterId),
        unit_amount: meteredUnitAmount(canonicalDecimal(p.unitAmount, tiers !== null) ?? p.unitAmount, tiers),
        unit_tiers: tiers,
        cap_amount: p.capAmount ?? null,
      };
    }
    case "seat_based":
      return {
        amount_type: "seat_based",
        ...base,
        seat_tiers: normalizeTiers({
          seat_tier_type: p.seatTiers.seatTierType as "volume" | "graduated" | undefined,
          tiers: p.seatTiers.tiers.map((t) => ({ min_seats: t.minSeats, max_seats: t.maxSeats, price_per_seat: t.pricePerSeat })),
        }),
      };
    default:
      return assertNever(p, "price kind");
  }
}

export function productSpec(p: Product, refs: RefResolver): ProductSpec {
  return {
    name: p.name,
    description: p.description ?? null,
    visibility: p.visibility as ProductSpec["visibility"],
    recurring_interval: (p.recurringInterval ?? null) as Interval | null,
    recurring_interval_count: p.recurringInterval ? (p.recurringIntervalCount ?? 1) : null,
    trial_interval: (p.trialInterval ?? null) as Interval | null,
    trial_interval_count: p.trialIntervalCount ?? null,
    prices: sortPrices(p.prices.filter((price) => !price.isArchived).map((price) => priceSpec(price, refs))),
    benefits: p.benefits.map((b) => refs("benefit", b.id)),
    custom_fields: [...p.attachedCustomFields]
      .sort((a, b) => a.order - b.order)
      .map((a) => ({ field: refs("custom_field", a.customFieldId), required: a.required })),
    medias: p.medias.map((m) => m.id),
    archived: p.isArchived,
    metadata: userMetadata(p.metadata),
  };
}

export function discountSpec(d: Discount, refs: RefResolver): DiscountSpec {
  const base = {
    name: d.name,
    code: d.code ?? null,
    duration: d.duration as DiscountSpec["duration"],
    duration_in_months: "durationInMonths" in d ? d.durationInMonths : null,
    starts_at: d.startsAt ? d.startsAt.toISOString() : null,
    ends_at: d.endsAt ? d.endsAt.toISOString() : null,
    max_redemptions: d.maxRedemptions ?? null,
    products: d.products.map((p) => refs("product", p.id)).sort(),
    metadata: userMetadata(d.metadata),
  };
  if ("basisPoints" in d) return { type: "percentage", basis_points: d.basisPoints, ...base };
  const amounts = Object.fromEntries(Object.entries({ ...d.amounts, [d.currency]: d.amount }).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { type: "fixed", amount: d.amount, currency: d.currency, amounts, ...base };
}

/** Any server object as its spec. */
export function specOf<K extends Kind>(kind: K, object: ServerObjectOf<K>, refs: RefResolver): SpecOf<K> {
  switch (kind) {
    case "meter":
      return meterSpec(object as Meter) as SpecOf<K>;
    case "custom_field":
      return customFieldSpec(object as CustomField) as SpecOf<K>;
    case "benefit":
      return benefitSpec(object as Benefit, refs) as SpecOf<K>;
    case "product":
      return productSpec(object as Product, refs) as SpecOf<K>;
    default:
      return discountSpec(object as Discount, refs) as SpecOf<K>;
  }
}
