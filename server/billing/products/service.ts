// Reading products: one-time, recurring and legacy recurring products with their prices, benefits, medias and
// attached custom fields, and the product shapes other domains embed. Writing them is writes.ts; what the writes
// take, input.ts.
import type { Db, Queryable } from "../../db/client.js";
import { loadBenefitsForProducts } from "../benefits/service.js";
import { loadAttachedCustomFields } from "../custom-fields/service.js";
import { loadProductMedias } from "../files/service.js";
import { isUuid } from "../http.js";
import { notFound } from "../errors.js";
import type { SortKey } from "../listing.js";
import { loadMeterSummaries } from "../meters/service.js";
import * as repo from "./repository.js";
import { toPriceWire, toProductSummaryWire, type PriceRow, type PriceWire, type ProductSummaryWire, type ProductWire } from "./wire.js";

export const NOT_FOUND = "Product not found";

// ---- reading --------------------------------------------------------------------------------------

const uniqueUuids = (ids: string[]) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];

async function meterSummariesFor(db: Queryable, organizationId: string, prices: PriceRow[]) {
  const meterIds = prices.flatMap((p) => (p.meterId ? [p.meterId] : []));
  return meterIds.length ? loadMeterSummaries(db, organizationId, meterIds) : new Map();
}

/** A loader of what products embed, run only for the products that link to something of its kind. */
const loadLinked = <T>(ids: string[], load: (ids: string[]) => Promise<Map<string, T[]>>) =>
  ids.length > 0 ? load(ids) : Promise.resolve(new Map<string, T[]>());

/** Full `Product` shapes, in the order of `products`, given their active prices (in their order). */
async function toProductWires(
  db: Queryable,
  organizationId: string,
  products: repo.LinkedProduct[],
  prices: PriceRow[],
  baseURL: string,
): Promise<ProductWire[]> {
  const linking = (has: (p: repo.LinkedProduct) => boolean) => products.filter(has).map((p) => p.product.id);
  const [benefits, medias, fields, meters] = await Promise.all([
    loadLinked(linking((p) => p.hasBenefits), (ids) => loadBenefitsForProducts(db, organizationId, ids)),
    loadLinked(linking((p) => p.hasMedias), (ids) => loadProductMedias(db, organizationId, ids, baseURL)),
    loadLinked(linking((p) => p.hasCustomFields), (ids) => loadAttachedCustomFields(db, organizationId, ids)),
    meterSummariesFor(db, organizationId, prices),
  ]);
  const pricesOf = new Map<string, PriceRow[]>();
  for (const price of prices) {
    const own = pricesOf.get(price.productId);
    if (own) own.push(price);
    else pricesOf.set(price.productId, [price]);
  }
  return products.map(({ product: row }) => {
    const own = pricesOf.get(row.id) ?? [];
    // legacy products are recurring through their prices (a legacy product always keeps an active legacy price)
    const legacy = own.some((p) => p.legacy && p.type === "recurring");
    // onto the summary, not spread into a new literal (V8's slow path for a spread followed by more properties)
    return Object.assign(toProductSummaryWire(row, row.recurringInterval !== null || legacy), {
      prices: own.map((p) => toPriceWire(p, meters)),
      benefits: benefits.get(row.id) ?? [],
      medias: medias.get(row.id) ?? [],
      attached_custom_fields: fields.get(row.id) ?? [],
      add_on_ids: row.addOnIds,
    });
  });
}

/** Full `Product` shapes, loading their active prices first. */
async function toProductWiresWithPrices(
  db: Queryable,
  organizationId: string,
  products: repo.LinkedProduct[],
  baseURL: string,
): Promise<ProductWire[]> {
  const ids = products.map((p) => p.product.id);
  const prices = await repo.activePricesOfProducts(db, organizationId, ids);
  return toProductWires(db, organizationId, products, prices, baseURL);
}

export async function getProduct(db: Queryable, organizationId: string, id: string, baseURL: string): Promise<ProductWire> {
  const found = await repo.findProductWithPrices(db, organizationId, id);
  if (!found) throw notFound(NOT_FOUND);
  const [wire] = await toProductWires(db, organizationId, [found.linked], found.prices, baseURL);
  if (!wire) throw notFound(NOT_FOUND);
  return wire;
}

export async function listProducts(
  db: Db,
  organizationId: string,
  filter: repo.ProductFilter,
  sorting: Array<SortKey<repo.ProductSort>>,
  pageNo: number,
  limit: number,
  baseURL: string,
) {
  const { rows, total } = await repo.listProducts(db, organizationId, filter, sorting, pageNo, limit);
  return { items: await toProductWiresWithPrices(db, organizationId, rows, baseURL), total };
}


// ---- for other domains ----------------------------------------------------------------------------

/** Products by id without prices/benefits/medias (`DiscountProduct`, `OrderProduct`, …). */
export async function loadProductSummaries(
  db: Queryable,
  organizationId: string,
  ids: string[],
): Promise<Map<string, ProductSummaryWire>> {
  const rows = await repo.findProductsWithRecurring(db, organizationId, uniqueUuids(ids));
  return new Map(rows.map((r) => [r.product.id, toProductSummaryWire(r.product, r.isRecurring)]));
}

/** The ids among `ids` that are not products of this organization (malformed ids count as missing). */
export async function productIdsExist(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  const found = new Set(await repo.existingProductIds(db, organizationId, uniqueUuids(ids)));
  return ids.filter((id) => !isUuid(id) || !found.has(id.toLowerCase()));
}

/**
 * Full `Product` shapes by id (active prices, benefits, medias, attached custom fields), e.g. for
 * `Subscription.product` or a checkout's products. Pass config.baseURL for absolute media URLs.
 */
export async function loadProducts(
  db: Queryable,
  organizationId: string,
  ids: string[],
  baseURL = "",
): Promise<Map<string, ProductWire>> {
  const rows = await repo.findProductsByIds(db, organizationId, uniqueUuids(ids));
  const wires = await toProductWiresWithPrices(db, organizationId, rows, baseURL);
  return new Map(wires.map((w) => [w.id, w]));
}

/** Prices by id, archived ones included (what a subscription or order was sold at). */
export async function loadPrices(db: Queryable, organizationId: string, ids: string[]): Promise<Map<string, PriceWire>> {
  const rows = await repo.findPricesByIds(db, organizationId, uniqueUuids(ids));
  const meters = await meterSummariesFor(db, organizationId, rows);
  return new Map(rows.map((r) => [r.id, toPriceWire(r, meters)]));
}

/**
 * Which organization sells each of these products (unknown and malformed ids are left out). For a caller
 * without an organization — the app's checkout request names products, and they name the seller.
 */
export async function productOrganizations(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  const rows = await repo.organizationsOfProducts(db, uniqueUuids(ids));
  return new Map(rows.map((r) => [r.id, r.organizationId]));
}
