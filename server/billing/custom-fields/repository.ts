// SQL for custom fields and their attachment to products. Every function takes the caller's organization id
// and filters by it; deleted fields (deleted_at set) are invisible everywhere.
import { and, asc, eq, ilike, inArray, isNull, ne, or, sql, type SQLWrapper } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inUuids, preparedPerHandle } from "../../db/prepared.js";
import { customField, product, productCustomField, type Metadata } from "../../db/schema/index.js";
import { likePattern, orderBy, type SortKey } from "../listing.js";
import type { CustomFieldRow } from "./wire.js";

const live = (organizationId: string | SQLWrapper) =>
  and(eq(customField.organizationId, organizationId), isNull(customField.deletedAt));

export async function findCustomField(db: Queryable, organizationId: string, id: string): Promise<CustomFieldRow | null> {
  const rows = await db.select().from(customField).where(and(live(organizationId), eq(customField.id, id))).limit(1);
  return rows[0] ?? null;
}

export async function slugTaken(db: Queryable, organizationId: string, slug: string, exceptId?: string): Promise<boolean> {
  const rows = await db
    .select({ id: customField.id })
    .from(customField)
    .where(and(live(organizationId), eq(customField.slug, slug), exceptId ? ne(customField.id, exceptId) : undefined))
    .limit(1);
  return rows.length > 0;
}

export type CustomFieldSort = "created_at" | "slug" | "name" | "type";

export interface CustomFieldFilter {
  query?: string | undefined;
  types?: string[] | undefined;
}

export async function listCustomFields(
  db: Queryable,
  organizationId: string,
  filter: CustomFieldFilter,
  sorting: Array<SortKey<CustomFieldSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: CustomFieldRow[]; total: number }> {
  const where = and(
    live(organizationId),
    filter.query
      ? or(ilike(customField.name, likePattern(filter.query)), ilike(customField.slug, likePattern(filter.query)))
      : undefined,
    filter.types?.length ? inArray(customField.type, filter.types) : undefined,
  );
  const columns = { created_at: customField.createdAt, slug: customField.slug, name: customField.name, type: customField.type };
  const [rows, count] = await Promise.all([
    db
      .select()
      .from(customField)
      .where(where)
      .orderBy(...orderBy(sorting, columns, customField.id))
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(customField).where(where),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

export async function insertCustomField(
  db: Queryable,
  organizationId: string,
  values: { type: string; slug: string; name: string; properties: Record<string, unknown>; metadata: Metadata },
): Promise<CustomFieldRow> {
  const rows = await db
    .insert(customField)
    .values({ organizationId, ...values })
    .returning();
  const row = rows[0];
  if (!row) throw new Error("insert custom_field returned nothing");
  return row;
}

export async function updateCustomField(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Pick<CustomFieldRow, "slug" | "name" | "properties" | "metadata">>,
): Promise<void> {
  await db
    .update(customField)
    .set({ ...patch, modifiedAt: new Date() })
    .where(and(live(organizationId), eq(customField.id, id)));
}

/** Soft-deletes the field and detaches it from every product (its slug becomes free again). */
export async function deleteCustomField(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db
    .update(customField)
    .set({ deletedAt: new Date() })
    .where(and(live(organizationId), eq(customField.id, id)));
  await db
    .delete(productCustomField)
    .where(
      and(
        eq(productCustomField.customFieldId, id),
        inArray(productCustomField.productId, productsOf(db, organizationId)),
      ),
    );
}

export async function existingCustomFieldIds(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: customField.id })
    .from(customField)
    .where(and(live(organizationId), inArray(customField.id, ids)));
  return rows.map((r) => r.id);
}

const productsOf = (db: Queryable, organizationId: string) =>
  db.select({ id: product.id }).from(product).where(eq(product.organizationId, organizationId));

/** Prepared: every product read embeds its attached fields. */
const attachedToProductsQuery = preparedPerHandle((db) =>
  db
    .select({
      productId: productCustomField.productId,
      position: productCustomField.position,
      required: productCustomField.required,
      field: customField,
    })
    .from(productCustomField)
    .innerJoin(customField, eq(customField.id, productCustomField.customFieldId))
    .where(and(live(sql.placeholder("organizationId")), inUuids(productCustomField.productId, "productIds")))
    .orderBy(asc(productCustomField.position), asc(customField.slug))
    .prepare("attached_to_products"),
);

/** Live fields attached to the products, in each product's order. */
export async function attachedToProducts(db: Queryable, organizationId: string, productIds: string[]) {
  if (productIds.length === 0) return [];
  return attachedToProductsQuery(db).execute({ organizationId, productIds });
}

/** Replaces a product's attached fields with `list` (its order is the attachment order). */
export async function replaceProductAttachments(
  db: Queryable,
  organizationId: string,
  productId: string,
  list: Array<{ customFieldId: string; required: boolean }>,
): Promise<void> {
  await db
    .delete(productCustomField)
    .where(and(eq(productCustomField.productId, productId), inArray(productCustomField.productId, productsOf(db, organizationId))));
  if (list.length === 0) return;
  await db
    .insert(productCustomField)
    .values(list.map((a, position) => ({ productId, customFieldId: a.customFieldId, required: a.required, position })));
}
