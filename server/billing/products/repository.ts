// SQL for products, their prices and their benefit links. Every function takes the caller's organization id
// and filters by it.
import { and, asc, eq, ilike, inArray, max, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inUuids, preparedPerHandle } from "../../db/prepared.js";
import { product, productBenefit, productPrice } from "../../db/schema/index.js";
import { likePattern, metadataWhere, orderBy, type SortKey } from "../listing.js";
import { PRICE_KINDS, type PriceKind } from "../../../shared/kinds.js";
import { PRICE_KIND_RULES } from "./price-kinds.js";
import type { PriceRow, ProductRow } from "./wire.js";

// Subqueries name the outer row explicitly: drizzle leaves columns unqualified in a select list, where
// "id" would bind to the subquery's own table.
const productId = sql.raw('"product"."id"');

/** Recurring: an interval on the product, or (legacy products) recurring prices. */
export const isRecurringSql = sql<boolean>`("product"."recurring_interval" IS NOT NULL OR EXISTS (
  SELECT 1 FROM product_price pp WHERE pp.product_id = ${productId} AND pp.legacy AND pp.type = 'recurring'))`;

/** The product's first active price, which the price sorts look at (Polar sorts by it too). */
const firstPrice = (expr: SQL) => sql`(SELECT ${expr} FROM product_price pp
  WHERE pp.product_id = ${productId} AND NOT pp.is_archived ORDER BY pp.position, pp.created_at LIMIT 1)`;

/** What a price sorts by in `price_amount`, per kind (null: after every amount). */
const SORT_AMOUNT: { readonly [K in PriceKind]: string } = {
  free: "-2",
  custom: "coalesce(pp.minimum_amount, -1)",
  fixed: "pp.price_amount",
  seat_based: "(pp.seat_tiers->'tiers'->0->>'price_per_seat')::int",
  metered_unit: "NULL",
};

/** `CASE pp.amount_type WHEN '<kind>' THEN <value> … ELSE <otherwise> END` over every kind (constants only). */
const byKind = (value: (kind: PriceKind) => string, otherwise: string) =>
  sql.raw(`CASE pp.amount_type ${PRICE_KINDS.map((k) => `WHEN '${k}' THEN ${value(k)}`).join(" ")} ELSE ${otherwise} END`);

const sortColumns = {
  created_at: product.createdAt,
  name: product.name,
  price_amount_type: firstPrice(byKind((k) => String(PRICE_KIND_RULES[k].sortRank), "5")),
  price_amount: firstPrice(byKind((k) => SORT_AMOUNT[k], "NULL")),
};
export type ProductSort = keyof typeof sortColumns;

/**
 * Whether a product links to benefits, medias or custom fields: the service skips the loaders of what a
 * product has none of. Only a hint — those loaders still apply their own rules (deleted rows, the organization).
 */
const links = {
  hasBenefits: sql<boolean>`EXISTS (SELECT 1 FROM product_benefit l WHERE l.product_id = ${productId})`,
  hasMedias: sql<boolean>`EXISTS (SELECT 1 FROM product_media l WHERE l.product_id = ${productId})`,
  hasCustomFields: sql<boolean>`EXISTS (SELECT 1 FROM product_custom_field l WHERE l.product_id = ${productId})`,
};

export interface LinkedProduct {
  product: ProductRow;
  hasBenefits: boolean;
  hasMedias: boolean;
  hasCustomFields: boolean;
}

const priceOrder = [asc(productPrice.position), asc(productPrice.createdAt), asc(productPrice.id)];

export interface ProductFilter {
  ids?: string[] | undefined;
  query?: string | undefined;
  isArchived?: boolean | undefined;
  isRecurring?: boolean | undefined;
  benefitIds?: string[] | undefined;
  visibility?: string[] | undefined;
  /** Billed on one of these intervals (a legacy product: one of its recurring prices is). */
  recurringIntervals?: string[] | undefined;
  /** With an active price of one of these kinds. */
  priceKinds?: string[] | undefined;
  metadata?: Record<string, string[]> | undefined;
}

/** `(a, b, …)`: values bound one by one, for IN. */
const sqlList = (values: string[]) => sql`(${sql.join(values.map((v) => sql`${v}`), sql`, `)})`;

/** A product billed on one of `intervals`: its own interval, or (legacy products) a recurring price's. */
const billedEvery = (intervals: string[]) => sql`("product"."recurring_interval" IN ${sqlList(intervals)} OR EXISTS (
  SELECT 1 FROM product_price pp WHERE pp.product_id = ${productId} AND pp.legacy AND NOT pp.is_archived
    AND pp.type = 'recurring' AND pp.recurring_interval IN ${sqlList(intervals)}))`;

/** A product with an active price of one of `kinds`. */
const pricedAs = (kinds: string[]) => sql`EXISTS (
  SELECT 1 FROM product_price pp WHERE pp.product_id = ${productId} AND NOT pp.is_archived AND pp.amount_type IN ${sqlList(kinds)})`;

export async function findProduct(db: Queryable, organizationId: string, id: string): Promise<ProductRow | null> {
  const rows = await db
    .select()
    .from(product)
    .where(and(eq(product.organizationId, organizationId), eq(product.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/** GET /products/{id} is the catalog's hot path: the product, its links and its active prices in one statement. */
const productWithPrices = preparedPerHandle((db) =>
  db
    .select({ product, ...links, price: productPrice })
    .from(product)
    .leftJoin(
      productPrice,
      and(eq(productPrice.productId, product.id), eq(productPrice.organizationId, product.organizationId), eq(productPrice.isArchived, false)),
    )
    .where(and(eq(product.organizationId, sql.placeholder("organizationId")), eq(product.id, sql.placeholder("id"))))
    .orderBy(...priceOrder)
    .prepare("product_with_prices"),
);

/** A product with its links and its active prices in their order. */
export async function findProductWithPrices(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<{ linked: LinkedProduct; prices: PriceRow[] } | null> {
  const rows = await productWithPrices(db).execute({ organizationId, id });
  const first = rows[0];
  if (!first) return null;
  const { product: row, hasBenefits, hasMedias, hasCustomFields } = first;
  return { linked: { product: row, hasBenefits, hasMedias, hasCustomFields }, prices: rows.flatMap((r) => (r.price ? [r.price] : [])) };
}

export async function listProducts(
  db: Queryable,
  organizationId: string,
  filter: ProductFilter,
  sorting: Array<SortKey<ProductSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: LinkedProduct[]; total: number }> {
  const where = and(
    eq(product.organizationId, organizationId),
    filter.ids?.length ? inArray(product.id, filter.ids) : undefined,
    filter.query ? ilike(product.name, likePattern(filter.query)) : undefined,
    filter.isArchived === undefined ? undefined : eq(product.isArchived, filter.isArchived),
    filter.isRecurring === undefined ? undefined : sql`${isRecurringSql} = ${filter.isRecurring}`,
    filter.visibility?.length ? inArray(product.visibility, filter.visibility) : undefined,
    filter.recurringIntervals?.length ? billedEvery(filter.recurringIntervals) : undefined,
    filter.priceKinds?.length ? pricedAs(filter.priceKinds) : undefined,
    filter.benefitIds?.length
      ? inArray(
          product.id,
          db.select({ id: productBenefit.productId }).from(productBenefit).where(inArray(productBenefit.benefitId, filter.benefitIds)),
        )
      : undefined,
    ...metadataWhere(product.metadata, filter.metadata),
  );
  // the total rides on the page's rows (one statement); a page past the end has no row to carry it
  const rows = await db
    .select({ product, ...links, total: sql<number>`(count(*) OVER ())::int` })
    .from(product)
    .where(where)
    .orderBy(...orderBy(sorting, sortColumns, product.id))
    .limit(limit)
    .offset((pageNo - 1) * limit);
  if (rows[0] || pageNo === 1) return { rows, total: rows[0]?.total ?? 0 };
  const count = await db.select({ n: sql<number>`count(*)::int` }).from(product).where(where);
  return { rows, total: count[0]?.n ?? 0 };
}

/** Products by id with whether each is recurring (for the summary shape other domains embed). */
export async function findProductsWithRecurring(db: Queryable, organizationId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select({ product, isRecurring: isRecurringSql })
    .from(product)
    .where(and(eq(product.organizationId, organizationId), inArray(product.id, ids)));
}

export async function findProductsByIds(db: Queryable, organizationId: string, ids: string[]): Promise<LinkedProduct[]> {
  if (ids.length === 0) return [];
  return db
    .select({ product, ...links })
    .from(product)
    .where(and(eq(product.organizationId, organizationId), inArray(product.id, ids)));
}

export async function existingProductIds(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: product.id })
    .from(product)
    .where(and(eq(product.organizationId, organizationId), inArray(product.id, ids)));
  return rows.map((r) => r.id);
}

/** The products that offer `addOnId` as an add-on. */
export async function offeringProductIds(db: Queryable, organizationId: string, addOnId: string): Promise<string[]> {
  const rows = await db
    .select({ id: product.id })
    .from(product)
    .where(and(eq(product.organizationId, organizationId), sql`${addOnId}::uuid = ANY(${product.addOnIds})`));
  return rows.map((r) => r.id);
}

export async function insertProduct(db: Queryable, values: typeof product.$inferInsert): Promise<ProductRow> {
  const rows = await db.insert(product).values(values).returning();
  const row = rows[0];
  if (!row) throw new Error("insert product returned nothing");
  return row;
}

export async function updateProduct(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Omit<ProductRow, "id" | "organizationId" | "createdAt">>,
): Promise<void> {
  await db
    .update(product)
    .set({ ...patch, modifiedAt: new Date() })
    .where(and(eq(product.organizationId, organizationId), eq(product.id, id)));
}

// ---- prices --------------------------------------------------------------------------------------

/** Prepared: every read of several products (lists, other domains' embeddings) takes their prices. */
const activePricesQuery = preparedPerHandle((db) =>
  db
    .select()
    .from(productPrice)
    .where(
      and(
        eq(productPrice.organizationId, sql.placeholder("organizationId")),
        inUuids(productPrice.productId, "productIds"),
        eq(productPrice.isArchived, false),
      ),
    )
    .orderBy(...priceOrder)
    .prepare("active_prices_of_products"),
);

/** The active (not archived) prices of the products, in their order. */
export async function activePricesOfProducts(db: Queryable, organizationId: string, productIds: string[]): Promise<PriceRow[]> {
  if (productIds.length === 0) return [];
  return activePricesQuery(db).execute({ organizationId, productIds });
}

export async function findPricesByIds(db: Queryable, organizationId: string, ids: string[]): Promise<PriceRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(productPrice)
    .where(and(eq(productPrice.organizationId, organizationId), inArray(productPrice.id, ids)));
}

export async function nextPricePosition(db: Queryable, organizationId: string, productId: string): Promise<number> {
  const rows = await db
    .select({ n: max(productPrice.position) })
    .from(productPrice)
    .where(and(eq(productPrice.organizationId, organizationId), eq(productPrice.productId, productId)));
  return (rows[0]?.n ?? -1) + 1;
}

export async function insertPrices(db: Queryable, values: Array<typeof productPrice.$inferInsert>): Promise<void> {
  if (values.length > 0) await db.insert(productPrice).values(values);
}

export async function insertPricesReturningIds(db: Queryable, values: Array<typeof productPrice.$inferInsert>): Promise<string[]> {
  if (values.length === 0) return [];
  return (await db.insert(productPrice).values(values).returning({ id: productPrice.id })).map((r) => r.id);
}

export async function archivePrices(db: Queryable, organizationId: string, productId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(productPrice)
    .set({ isArchived: true, modifiedAt: new Date() })
    .where(
      and(eq(productPrice.organizationId, organizationId), eq(productPrice.productId, productId), inArray(productPrice.id, ids)),
    );
}

// ---- benefits ------------------------------------------------------------------------------------

/** Replaces the product's benefits with `benefitIds` in that order (the caller checked both belong to the org). */
export async function replaceProductBenefits(
  db: Queryable,
  organizationId: string,
  productId: string,
  benefitIds: string[],
): Promise<void> {
  const owned = db.select({ id: product.id }).from(product).where(eq(product.organizationId, organizationId));
  await db.delete(productBenefit).where(and(eq(productBenefit.productId, productId), inArray(productBenefit.productId, owned)));
  if (benefitIds.length === 0) return;
  await db.insert(productBenefit).values(benefitIds.map((benefitId, position) => ({ productId, benefitId, position })));
}

/**
 * The organization of each product, across organizations: only for a caller that has no organization yet
 * and learns it from the products it names (the signed-in app's checkout request).
 */
export async function organizationsOfProducts(db: Queryable, ids: string[]): Promise<Array<{ id: string; organizationId: string }>> {
  if (ids.length === 0) return [];
  return db.select({ id: product.id, organizationId: product.organizationId }).from(product).where(inArray(product.id, ids));
}
