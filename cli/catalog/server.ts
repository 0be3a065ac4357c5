// The organization's catalog as the server has it: every meter, custom field, benefit, product and discount
// (all pages), the key each object answers to, and each object in the catalog model (references as keys).
import type { PolarCore } from "@polar-sh/sdk/core.js";
import { benefitsList } from "@polar-sh/sdk/funcs/benefitsList.js";
import { customFieldsList } from "@polar-sh/sdk/funcs/customFieldsList.js";
import { discountsList } from "@polar-sh/sdk/funcs/discountsList.js";
import { metersList } from "@polar-sh/sdk/funcs/metersList.js";
import { HTTPClient } from "@polar-sh/sdk/lib/http.js";
import type { Benefit } from "@polar-sh/sdk/models/components/benefit.js";
import type { CustomField } from "@polar-sh/sdk/models/components/customfield.js";
import type { Discount } from "@polar-sh/sdk/models/components/discount.js";
import type { LegacyRecurringProductPrice } from "@polar-sh/sdk/models/components/legacyrecurringproductprice.js";
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import { Product$inboundSchema, type Product } from "@polar-sh/sdk/models/components/product.js";
import type { ProductPrice } from "@polar-sh/sdk/models/components/productprice.js";
import type { Aggregation, Filter, FilterClause } from "../../shared/meter-filter.js";
import type { UnitTiers } from "../../shared/tiers.js";
import { failFor } from "../client.js";
import type { Credential } from "../context.js";
import { CliError } from "../errors.js";
import { assignKeys, type KeyAssignment } from "./keys.js";
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

type SdkResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** How the catalog talks to /v1: the SDK's minimal client, and how a failed call becomes an error. */
export interface CatalogClient {
  core: PolarCore;
  unwrap<T>(result: SdkResult<T>, what: string): T;
}

/** A CatalogClient whose failures are the CLI's errors (HTTP status → ApiError/AuthRequiredError). */
export function catalogClient(core: PolarCore, credential: Credential | null = null): CatalogClient {
  return {
    core,
    unwrap(result, what) {
      if (result.ok) return result.value;
      const err = result.error as { statusCode?: unknown; body?: unknown } | null;
      if (err && typeof err.statusCode === "number" && typeof err.body === "string") {
        let body: unknown = err.body;
        try {
          body = JSON.parse(err.body);
        } catch {
          // not JSON: describe the text
        }
        failFor({ status: err.statusCode, body }, credential, what);
      }
      throw new CliError(`${what}: ${result.error instanceof Error ? result.error.message : String(result.error)}`);
    },
  };
}

export interface ServerCatalog {
  meters: Meter[];
  custom_fields: CustomField[];
  benefits: Benefit[];
  products: Product[];
  discounts: Discount[];
}

type ServerObject = {
  meter: Meter;
  custom_field: CustomField;
  benefit: Benefit;
  product: Product;
  discount: Discount;
};
export type ServerObjectOf<K extends Kind> = ServerObject[K];

const PAGE_SIZE = 100;

interface Page<T> {
  result: { items: T[]; pagination: { maxPage: number } };
}

async function listAll<T>(client: CatalogClient, what: string, fetchPage: (page: number) => Promise<SdkResult<Page<T>>>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const { result } = client.unwrap(await fetchPage(page), what);
    items.push(...result.items);
    if (page >= result.pagination.maxPage || result.items.length === 0) return items;
  }
}

/**
 * A /v1 call as plain JSON (the wire's snake_case) through the SDK client's own transport (its fetch, hooks and
 * token), answered like an SDK function: for till's own fields, which the SDK's models drop (`unit_tiers`).
 */
export async function v1Json<T>(
  client: CatalogClient,
  method: "GET" | "POST" | "PATCH",
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<SdkResult<T>> {
  const { core } = client;
  const token = core._options.accessToken;
  const bearer = typeof token === "function" ? await token() : token;
  const request = new Request(`${String(core._baseURL ?? "").replace(/\/$/, "")}/v1${path}`, {
    method,
    headers: {
      accept: "application/json",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  let res: Response;
  try {
    res = await (core._options.httpClient ?? new HTTPClient()).request(request);
  } catch (err) {
    // what the SDK's functions answer when the server can't be reached (the CLI's unwrap knows it)
    const error = new Error(err instanceof Error ? err.message : String(err), { cause: err });
    error.name = "ConnectionError";
    return { ok: false, error };
  }
  const text = await res.text();
  if (!res.ok) return { ok: false, error: { statusCode: res.status, body: text, headers: res.headers } };
  return { ok: true, value: (text ? JSON.parse(text) : null) as T };
}

/** A product price as the catalog reads it: the SDK's, with till's own `unit_tiers` put back (the SDK drops it). */
export type ServerPrice = (ProductPrice | LegacyRecurringProductPrice) & { unitTiers?: UnitTiers | null };

/** A page of products through plain JSON, each parsed by the SDK's model and its prices' tiers put back. */
async function productsPage(client: CatalogClient, page: number): Promise<SdkResult<Page<Product>>> {
  const answer = await v1Json<{ items: unknown[]; pagination: { max_page: number } }>(client, "GET", `/products/?page=${page}&limit=${PAGE_SIZE}`);
  if (!answer.ok) return answer;
  const items = answer.value.items.map((raw) => {
    let product: Product;
    try {
      product = Product$inboundSchema.parse(raw);
    } catch (err) {
      throw new CliError(`list products: the server's answer is not a product: ${err instanceof Error ? err.message : String(err)}`);
    }
    const tiers = new Map(
      ((raw as { prices?: Array<{ id?: unknown; unit_tiers?: UnitTiers | null }> }).prices ?? []).flatMap((p) =>
        typeof p.id === "string" && p.unit_tiers ? [[p.id, p.unit_tiers] as const] : [],
      ),
    );
    for (const price of product.prices as ServerPrice[]) {
      const t = tiers.get(price.id);
      if (t) price.unitTiers = t;
    }
    return product;
  });
  return { ok: true, value: { result: { items, pagination: { maxPage: answer.value.pagination.max_page } } } };
}

/** Everything the catalog covers, archived products and meters included. */
export async function fetchServerCatalog(client: CatalogClient): Promise<ServerCatalog> {
  const { core } = client;
  const [meters, custom_fields, benefits, products, discounts] = await Promise.all([
    listAll(client, "list meters", (page) => metersList(core, { page, limit: PAGE_SIZE })),
    listAll(client, "list custom fields", (page) => customFieldsList(core, { page, limit: PAGE_SIZE })),
    listAll(client, "list benefits", (page) => benefitsList(core, { page, limit: PAGE_SIZE })),
    listAll(client, "list products", (page) => productsPage(client, page)),
    listAll(client, "list discounts", (page) => discountsList(core, { page, limit: PAGE_SIZE })),
  ]);
  return { meters, custom_fields, benefits, products, discounts };
}

// ---- keys ---------------------------------------------------------------------------------------------

/** Products whose prices carry their own interval (created before intervals moved to the product). */
export function isLegacyProduct(p: Product): boolean {
  return p.prices.some((price) => "legacy" in price && price.legacy === true);
}

export interface ServerIndex {
  server: ServerCatalog;
  keys: { [K in Kind]: KeyAssignment<ServerObjectOf<K>> };
  /** Legacy recurring products: till catalog leaves them alone. */
  legacy: Product[];
}

const labels = {
  meter: (m: Meter) => m.name,
  custom_field: (f: CustomField) => f.slug,
  benefit: (b: Benefit) => b.description,
  product: (p: Product) => p.name,
  discount: (d: Discount) => d.code ?? d.name,
};

export function indexServer(server: ServerCatalog): ServerIndex {
  const products = server.products.filter((p) => !isLegacyProduct(p));
  const view = <T extends { id: string; createdAt: Date; metadata: Record<string, unknown> }>(label: (o: T) => string, archived: (o: T) => boolean) =>
    (o: T) => ({ id: o.id, createdAt: o.createdAt, metadata: o.metadata, archived: archived(o), label: label(o) });
  const live = () => false;
  return {
    server,
    legacy: server.products.filter(isLegacyProduct),
    keys: {
      meter: assignKeys(server.meters, view(labels.meter, (m) => Boolean(m.archivedAt)), "meter"),
      custom_field: assignKeys(server.custom_fields, view(labels.custom_field, live), "field"),
      benefit: assignKeys(server.benefits, view(labels.benefit, live), "benefit"),
      product: assignKeys(products, view(labels.product, (p) => p.isArchived), "product"),
      discount: assignKeys(server.discounts, view(labels.discount, live), "discount"),
    },
  };
}

/** A reference to an object the index has no key for (it never appears in a valid file, so it always differs). */
export const unknownRef = (id: string) => `#${id}`;

/** Maps server ids to keys when turning objects into specs. */
export type RefResolver = (kind: Kind, id: string) => string;

export function refsOf(index: ServerIndex): RefResolver {
  return (kind, id) => index.keys[kind].keyOfId.get(id) ?? unknownRef(id);
}

// ---- server object → spec ----------------------------------------------------------------------------

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

/** Archived products and meters: the only kinds that are archived rather than deleted. */
export function isArchived(kind: Kind, object: ServerObjectOf<Kind>): boolean {
  if (kind === "product") return (object as Product).isArchived;
  if (kind === "meter") return Boolean((object as Meter).archivedAt);
  return false;
}
