// Loading what a checkout row refers to (its products with prices, the discount, the organization) into
// the CheckoutView its shapes and rules work on; one batch for a page of checkouts.
import type { Queryable } from "../../db/client.js";
import { ApiError, notFound } from "../errors.js";
import { getDiscount } from "../discounts/service.js";
import type { DiscountWire } from "../discounts/wire.js";
import { getOrganization } from "../organizations/service.js";
import type { OrganizationWire } from "../organizations/wire.js";
import { getProduct, loadPrices, loadProducts } from "../products/service.js";
import { productSummaryOf, type ProductWire } from "../products/wire.js";
import { lockCheckout, lockCheckoutVersion } from "./repository.js";
import type { CheckoutRow, CheckoutView } from "./wire.js";

/** A discount by id, or null when it is gone (deleted after it was applied). */
export async function findDiscount(db: Queryable, organizationId: string, id: string): Promise<DiscountWire | null> {
  try {
    return await getDiscount(db, organizationId, id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** The products by id; one product (the usual checkout) through the catalog's prepared single-product read. */
async function productsById(db: Queryable, organizationId: string, ids: string[], baseURL: string): Promise<Map<string, ProductWire>> {
  const [only] = ids;
  if (ids.length !== 1 || !only) return loadProducts(db, organizationId, ids, baseURL);
  try {
    const product = await getProduct(db, organizationId, only, baseURL);
    return new Map([[product.id, product]]);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return new Map();
    throw err;
  }
}

/** The products the offered products offer as add-ons; none read (undefined) when none offers any (the usual case). */
export async function loadAddOnProducts(db: Queryable, organizationId: string, products: Iterable<ProductWire>, baseURL: string): Promise<Map<string, ProductWire> | undefined> {
  const ids = [...new Set([...products].flatMap((p) => p.add_on_ids))];
  return ids.length ? loadProducts(db, organizationId, ids, baseURL) : undefined;
}

/**
 * `organization`: read it (true), leave it out (false), or the one the caller read already (the same organization's).
 */
export async function loadViews(db: Queryable, rows: CheckoutRow[], baseURL: string, organization: boolean | OrganizationWire): Promise<CheckoutView[]> {
  if (rows.length === 0) return [];
  // every row of a page belongs to the same organization (the caller's)
  const organizationId = rows[0]?.organizationId ?? "";
  const discountIds = [...new Set(rows.flatMap((r) => (r.discountId ? [r.discountId] : [])))];
  const [products, discounts, organizationWire] = await Promise.all([
    productsById(db, organizationId, [...new Set(rows.flatMap((r) => r.productIds))], baseURL),
    Promise.all(discountIds.map((id) => findDiscount(db, organizationId, id))),
    organization === true ? getOrganization(db, organizationId) : Promise.resolve(organization === false ? null : organization),
  ]);
  const discountById = new Map(discounts.flatMap((d) => (d ? [[d.id, d] as const] : [])));
  // a chosen price archived since is no longer among the product's prices: read it on its own
  const missingPrices = rows.flatMap((r) => {
    const p = r.productId ? products.get(r.productId) : undefined;
    return r.productPriceId && !p?.prices.some((x) => x.id === r.productPriceId) ? [r.productPriceId] : [];
  });
  const [archived, addOnProducts] = await Promise.all([
    missingPrices.length ? loadPrices(db, organizationId, missingPrices) : new Map<string, never>(),
    loadAddOnProducts(db, organizationId, products.values(), baseURL),
  ]);
  return rows.map((row) => {
    const product = row.productId ? (products.get(row.productId) ?? null) : null;
    const price = row.productPriceId ? (product?.prices.find((p) => p.id === row.productPriceId) ?? archived.get(row.productPriceId) ?? null) : null;
    return {
      row,
      products: row.productIds.flatMap((id) => products.get(id) ?? []),
      product,
      price,
      discount: row.discountId ? (discountById.get(row.discountId) ?? null) : null,
      organization: organizationWire,
      baseURL,
      ...(addOnProducts ? { addOnProducts } : {}),
    };
  });
}

export async function loadView(db: Queryable, row: CheckoutRow, baseURL: string, organization: boolean | OrganizationWire): Promise<CheckoutView> {
  const [view] = await loadViews(db, [row], baseURL, organization);
  if (!view) throw new Error("checkout view missing");
  return view;
}

/**
 * Locks the checkout for the rest of the transaction and answers its view: the one read before the lock
 * when the row has not changed since (the usual case, so the products were read in parallel outside the
 * transaction), else read again under the lock.
 */
export async function lockedView(tx: Queryable, preloaded: CheckoutView, baseURL: string): Promise<CheckoutView> {
  const before = preloaded.row;
  const version = await lockCheckoutVersion(tx, before.id);
  if (!version) throw notFound("Checkout not found");
  const unchanged =
    version.status === before.status &&
    version.modifiedAt?.getTime() === before.modifiedAt?.getTime() &&
    version.productId === before.productId &&
    version.discountId === before.discountId;
  if (unchanged) return preloaded;
  // changed meanwhile (rare): read it again, under the lock now held
  const locked = await lockCheckout(tx, before.id);
  if (!locked) throw notFound("Checkout not found");
  return loadView(tx, locked, baseURL, preloaded.organization !== null);
}

/** The `OrderProduct` / summary part of a full product (the products domain's mapping). */
export const productSummary = productSummaryOf;

/** The `Discount*Base` part of a discount (without its product restrictions). */
export function discountBase(d: DiscountWire): Record<string, unknown> {
  const base: Record<string, unknown> = { ...d };
  delete base.products;
  return base;
}
