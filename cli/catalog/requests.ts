// Catalog specs → the SDK's request bodies (camelCase; the SDK writes the wire's snake_case), and products'
// plain /v1 bodies (snake_case, see below). References are
// keys in the spec and ids on the wire: `ref(kind, key)` resolves them at apply time, when objects created by
// earlier steps have their ids. Updates carry only the fields that changed, plus metadata (always: it holds
// the catalog key, which is how an adopted object becomes managed).
import type { BenefitCreate } from "@polar-sh/sdk/models/components/benefitcreate.js";
import type { CustomFieldCreate } from "@polar-sh/sdk/models/components/customfieldcreate.js";
import type { CustomFieldUpdate } from "@polar-sh/sdk/models/components/customfieldupdate.js";
import type { DiscountCreate } from "@polar-sh/sdk/models/components/discountcreate.js";
import type { DiscountUpdate } from "@polar-sh/sdk/models/components/discountupdate.js";
import type { MeterCreate } from "@polar-sh/sdk/models/components/metercreate.js";
import type { MeterUpdate } from "@polar-sh/sdk/models/components/meterupdate.js";
import type { PresentmentCurrency } from "@polar-sh/sdk/models/components/presentmentcurrency.js";
import type { BenefitsUpdateRequest } from "@polar-sh/sdk/models/operations/benefitsupdate.js";
import { assertNever } from "../../shared/kinds.js";
import {
  CATALOG_KEY,
  priceSignature,
  type BenefitSpec,
  type CustomFieldSpec,
  type DiscountSpec,
  type Kind,
  type Metadata,
  type MeterSpec,
  type PriceSpec,
  type ProductSpec,
} from "./model.js";

/** Resolves a catalog key to the id of the server object. */
export type Ref = (kind: Kind, key: string) => string;

export const withKey = (metadata: Metadata, key: string): Metadata => ({ ...metadata, [CATALOG_KEY]: key });

// ---- meters -------------------------------------------------------------------------------------------

export function meterCreate(key: string, m: MeterSpec): MeterCreate {
  return {
    name: m.name,
    unit: m.unit,
    customLabel: m.custom_label,
    customMultiplier: m.custom_multiplier,
    filter: m.filter,
    aggregation: m.aggregation,
    metadata: withKey(m.metadata, key),
  };
}

export function meterUpdate(key: string, m: MeterSpec, changed: Set<string>): MeterUpdate {
  const body: MeterUpdate = { metadata: withKey(m.metadata, key) };
  if (changed.has("name")) body.name = m.name;
  if (changed.has("unit") || changed.has("custom_label") || changed.has("custom_multiplier")) {
    Object.assign(body, { unit: m.unit, customLabel: m.custom_label, customMultiplier: m.custom_multiplier });
  }
  if (changed.has("filter")) body.filter = m.filter;
  if (changed.has("aggregation")) body.aggregation = m.aggregation;
  if (changed.has("archived")) body.isArchived = m.archived;
  return body;
}

// ---- custom fields ------------------------------------------------------------------------------------

const CAMEL: Record<string, string> = {
  form_label: "formLabel",
  form_help_text: "formHelpText",
  form_placeholder: "formPlaceholder",
  min_length: "minLength",
  max_length: "maxLength",
};
const camelProperties = (p: Record<string, unknown>) => Object.fromEntries(Object.entries(p).map(([k, v]) => [CAMEL[k] ?? k, v]));

export function customFieldCreate(key: string, f: CustomFieldSpec): CustomFieldCreate {
  return {
    type: f.type,
    slug: f.slug,
    name: f.name,
    properties: camelProperties(f.properties),
    metadata: withKey(f.metadata, key),
  } as CustomFieldCreate;
}

export function customFieldUpdate(key: string, f: CustomFieldSpec, changed: Set<string>): CustomFieldUpdate {
  return {
    type: f.type,
    ...(changed.has("name") ? { name: f.name } : {}),
    ...(changed.has("slug") ? { slug: f.slug } : {}),
    ...(changed.has("properties") ? { properties: camelProperties(f.properties) } : {}),
    metadata: withKey(f.metadata, key),
  } as CustomFieldUpdate;
}

// ---- benefits -----------------------------------------------------------------------------------------

function benefitProperties(b: BenefitSpec, ref: Ref): Record<string, unknown> {
  const p = b.properties;
  switch (b.type) {
    case "license_keys": {
      const activations = p.activations as { limit: number; enable_customer_admin: boolean } | null;
      return {
        prefix: p.prefix,
        expires: p.expires,
        activations: activations ? { limit: activations.limit, enableCustomerAdmin: activations.enable_customer_admin } : null,
        limitUsage: p.limit_usage,
      };
    }
    case "meter_credit":
      return { units: p.units, rollover: p.rollover, meterId: ref("meter", String(p.meter)) };
    case "discord":
      return { guildToken: p.guild_token, roleId: p.role_id, kickMember: p.kick_member };
    case "github_repository":
      return { repositoryOwner: p.repository_owner, repositoryName: p.repository_name, permission: p.permission };
    case "custom":
    case "downloadables":
    case "feature_flag":
      return { ...p };
    default:
      return assertNever(b.type, "benefit type");
  }
}

export function benefitCreate(key: string, b: BenefitSpec, ref: Ref): BenefitCreate {
  return { type: b.type, description: b.description, properties: benefitProperties(b, ref), metadata: withKey(b.metadata, key) } as BenefitCreate;
}

export function benefitUpdate(key: string, b: BenefitSpec, changed: Set<string>, ref: Ref): BenefitsUpdateRequest["requestBody"] {
  return {
    type: b.type,
    ...(changed.has("description") ? { description: b.description } : {}),
    ...(changed.has("properties") ? { properties: benefitProperties(b, ref) } : {}),
    metadata: withKey(b.metadata, key),
  } as BenefitsUpdateRequest["requestBody"];
}

// ---- products -----------------------------------------------------------------------------------------
// Product writes are plain /v1 JSON (snake_case), not the SDK's models: those drop till's own `unit_tiers`.

/** A new price as /v1 takes it. */
export type PriceCreateWire = { amount_type: PriceSpec["amount_type"]; price_currency: string } & Record<string, unknown>;
/** An item of an update's `prices`: a price to keep (by id) or a new one. */
export type PriceItemWire = { id: string } | PriceCreateWire;

export interface ProductCreateWire {
  name: string;
  description: string | null;
  visibility: ProductSpec["visibility"];
  prices: PriceCreateWire[];
  medias: string[];
  attached_custom_fields: Array<{ custom_field_id: string; required: boolean }>;
  metadata: Metadata;
  recurring_interval?: string;
  recurring_interval_count?: number;
  trial_interval?: string | null;
  trial_interval_count?: number | null;
}

export interface ProductUpdateWire {
  metadata: Metadata;
  name?: string;
  description?: string | null;
  visibility?: ProductSpec["visibility"];
  trial_interval?: string | null;
  trial_interval_count?: number | null;
  prices?: PriceItemWire[];
  attached_custom_fields?: ProductCreateWire["attached_custom_fields"];
  medias?: string[];
  is_archived?: boolean;
}

export function priceCreate(p: PriceSpec, ref: Ref): PriceCreateWire {
  const base = { price_currency: p.price_currency, ...(p.tax_behavior ? { tax_behavior: p.tax_behavior } : {}) };
  switch (p.amount_type) {
    case "fixed":
      return { amount_type: "fixed", ...base, price_amount: p.price_amount };
    case "custom":
      return { amount_type: "custom", ...base, minimum_amount: p.minimum_amount, maximum_amount: p.maximum_amount, preset_amount: p.preset_amount };
    case "free":
      return { amount_type: "free", ...base };
    case "metered_unit":
      return {
        amount_type: "metered_unit",
        ...base,
        meter_id: ref("meter", p.meter),
        // left out on a tiered price: the server takes the first tier's
        ...(p.unit_amount !== null ? { unit_amount: p.unit_amount } : {}),
        ...(p.unit_tiers ? { unit_tiers: p.unit_tiers } : {}),
        cap_amount: p.cap_amount,
      };
    case "seat_based":
      return {
        amount_type: "seat_based",
        ...base,
        seat_tiers: {
          seat_tier_type: p.seat_tiers.seat_tier_type,
          tiers: p.seat_tiers.tiers.map((t) => ({ min_seats: t.min_seats, max_seats: t.max_seats, price_per_seat: t.price_per_seat })),
        },
      };
    default:
      return assertNever(p, "price kind");
  }
}

const attached = (p: ProductSpec, ref: Ref) => p.custom_fields.map((f) => ({ custom_field_id: ref("custom_field", f.field), required: f.required }));

export function productCreate(key: string, p: ProductSpec, ref: Ref): ProductCreateWire {
  const common = {
    name: p.name,
    description: p.description,
    visibility: p.visibility,
    prices: p.prices.map((price) => priceCreate(price, ref)),
    medias: p.medias,
    attached_custom_fields: attached(p, ref),
    metadata: withKey(p.metadata, key),
  };
  if (p.recurring_interval === null) return common;
  return {
    ...common,
    recurring_interval: p.recurring_interval,
    recurring_interval_count: p.recurring_interval_count ?? 1,
    trial_interval: p.trial_interval,
    trial_interval_count: p.trial_interval_count,
  };
}

/**
 * The product's new price list: each price the file lists is either a server price with the same content
 * (kept by id) or a new one. Prices left out are archived by the server.
 */
export function priceList(p: ProductSpec, actual: Array<{ id: string; signature: string }>, ref: Ref): PriceItemWire[] {
  const available = [...actual];
  return p.prices.map((price) => {
    const i = available.findIndex((a) => a.signature === priceSignature(price));
    if (i < 0) return priceCreate(price, ref);
    const [kept] = available.splice(i, 1);
    return { id: (kept as { id: string }).id };
  });
}

/** The PATCH body for the changed fields (benefits go through their own call). Null when only benefits changed. */
export function productUpdate(
  key: string,
  p: ProductSpec,
  changed: Set<string>,
  actualPrices: Array<{ id: string; signature: string }>,
  ref: Ref,
  adopt: boolean,
): ProductUpdateWire | null {
  const body: ProductUpdateWire = { metadata: withKey(p.metadata, key) };
  if (changed.has("name")) body.name = p.name;
  if (changed.has("description")) body.description = p.description;
  if (changed.has("visibility")) body.visibility = p.visibility;
  // the server checks the pair together, and null clears: send both
  if (changed.has("trial_interval") || changed.has("trial_interval_count")) {
    Object.assign(body, { trial_interval: p.trial_interval, trial_interval_count: p.trial_interval_count });
  }
  if (changed.has("prices")) body.prices = priceList(p, actualPrices, ref);
  if (changed.has("custom_fields")) body.attached_custom_fields = attached(p, ref);
  if (changed.has("medias")) body.medias = p.medias;
  if (changed.has("archived")) body.is_archived = p.archived;
  const onlyBenefits = [...changed].every((f) => f === "benefits");
  return onlyBenefits && !adopt ? null : body;
}

// ---- discounts ----------------------------------------------------------------------------------------

const date = (iso: string | null) => (iso === null ? null : new Date(iso));

export function discountCreate(key: string, d: DiscountSpec, ref: Ref): DiscountCreate {
  const common = {
    name: d.name,
    code: d.code,
    duration: d.duration,
    durationInMonths: d.duration_in_months,
    startsAt: date(d.starts_at),
    endsAt: date(d.ends_at),
    maxRedemptions: d.max_redemptions,
    products: d.products.map((k) => ref("product", k)),
    metadata: withKey(d.metadata, key),
  };
  if (d.type === "percentage") return { type: "percentage", ...common, basisPoints: d.basis_points };
  return { type: "fixed", ...common, amount: d.amount, currency: d.currency as PresentmentCurrency, amounts: d.amounts };
}

export function discountUpdate(key: string, d: DiscountSpec, changed: Set<string>, ref: Ref): DiscountUpdate {
  const body: DiscountUpdate = { metadata: withKey(d.metadata, key) };
  if (changed.has("name")) body.name = d.name;
  if (changed.has("code")) body.code = d.code;
  if (changed.has("starts_at")) body.startsAt = date(d.starts_at);
  if (changed.has("ends_at")) body.endsAt = date(d.ends_at);
  if (changed.has("max_redemptions")) body.maxRedemptions = d.max_redemptions;
  if (changed.has("duration_in_months")) body.durationInMonths = d.duration_in_months;
  if (changed.has("products")) body.products = d.products.map((k) => ref("product", k));
  if (d.type === "fixed" && (changed.has("amount") || changed.has("currency") || changed.has("amounts"))) {
    Object.assign(body, { amount: d.amount, currency: d.currency, amounts: d.amounts });
  }
  if (d.type === "percentage" && changed.has("basis_points")) body.basisPoints = d.basis_points;
  return body;
}
