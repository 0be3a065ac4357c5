// The organization's catalog as the server has it: every meter, custom field, benefit, product and discount
// (all pages) and the key each object answers to; each object in the catalog model (references as keys) is
// specs.ts.
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
import type { UnitTiers } from "../../shared/tiers.js";
import { failFor } from "../client.js";
import type { Credential } from "../context.js";
import { CliError } from "../errors.js";
import { assignKeys, type KeyAssignment } from "./keys.js";
import type { Kind } from "./model.js";

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

/** Archived products and meters: the only kinds that are archived rather than deleted. */
export function isArchived(kind: Kind, object: ServerObjectOf<Kind>): boolean {
  if (kind === "product") return (object as Product).isArchived;
  if (kind === "meter") return Boolean((object as Meter).archivedAt);
  return false;
}
