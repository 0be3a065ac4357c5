// SQL for files and product medias. Every function takes the caller's organization id and filters by it;
// deleted files (deleted_at set) are invisible everywhere.
import { and, asc, desc, eq, inArray, isNull, sql, type SQLWrapper } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inUuids, preparedPerHandle } from "../../db/prepared.js";
import { file, product, productMedia } from "../../db/schema/index.js";
import type { FileRow } from "./wire.js";

const live = (organizationId: string | SQLWrapper) => and(eq(file.organizationId, organizationId), isNull(file.deletedAt));

export async function findFile(db: Queryable, organizationId: string, id: string): Promise<FileRow | null> {
  const rows = await db.select().from(file).where(and(live(organizationId), eq(file.id, id))).limit(1);
  return rows[0] ?? null;
}

/** A live file by id alone: for presigned uploads and public media, which carry no organization. */
export async function findFileAnyOrganization(db: Queryable, id: string): Promise<FileRow | null> {
  const rows = await db.select().from(file).where(and(eq(file.id, id), isNull(file.deletedAt))).limit(1);
  return rows[0] ?? null;
}

export async function listUploadedFiles(
  db: Queryable,
  organizationId: string,
  filter: { ids?: string[] | undefined },
  pageNo: number,
  limit: number,
): Promise<{ rows: FileRow[]; total: number }> {
  const where = and(
    live(organizationId),
    eq(file.isUploaded, true),
    filter.ids?.length ? inArray(file.id, filter.ids) : undefined,
  );
  const [rows, count] = await Promise.all([
    db
      .select()
      .from(file)
      .where(where)
      .orderBy(desc(file.createdAt), asc(file.id))
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(file).where(where),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

export async function insertFile(
  db: Queryable,
  values: Omit<typeof file.$inferInsert, "id"> & { id: string },
): Promise<FileRow> {
  const rows = await db.insert(file).values(values).returning();
  const row = rows[0];
  if (!row) throw new Error("insert file returned nothing");
  return row;
}

export async function updateFile(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Omit<FileRow, "id" | "organizationId" | "createdAt">>,
): Promise<void> {
  await db
    .update(file)
    .set({ ...patch, modifiedAt: new Date() })
    .where(and(live(organizationId), eq(file.id, id)));
}

/** Soft-deletes the file and takes it off every product. */
export async function deleteFile(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.update(file).set({ deletedAt: new Date() }).where(and(live(organizationId), eq(file.id, id)));
  await db.delete(productMedia).where(and(eq(productMedia.fileId, id), inArray(productMedia.productId, productsOf(db, organizationId))));
}

/** Live, uploaded files among `ids` (of `service` when given). */
export async function existingUploadedFileIds(
  db: Queryable,
  organizationId: string,
  ids: string[],
  service: string | undefined,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: file.id })
    .from(file)
    .where(
      and(live(organizationId), eq(file.isUploaded, true), inArray(file.id, ids), service ? eq(file.service, service) : undefined),
    );
  return rows.map((r) => r.id);
}

const productsOf = (db: Queryable, organizationId: string) =>
  db.select({ id: product.id }).from(product).where(eq(product.organizationId, organizationId));

/** Prepared: every product read embeds its medias. */
const mediasOfProductsQuery = preparedPerHandle((db) =>
  db
    .select({ productId: productMedia.productId, file })
    .from(productMedia)
    .innerJoin(file, eq(file.id, productMedia.fileId))
    .where(and(live(sql.placeholder("organizationId")), inUuids(productMedia.productId, "productIds")))
    .orderBy(asc(productMedia.position), asc(file.createdAt))
    .prepare("medias_of_products"),
);

/** Live media files of the products, in each product's order. */
export async function mediasOfProducts(db: Queryable, organizationId: string, productIds: string[]) {
  if (productIds.length === 0) return [];
  return mediasOfProductsQuery(db).execute({ organizationId, productIds });
}

export async function replaceProductMedias(
  db: Queryable,
  organizationId: string,
  productId: string,
  fileIds: string[],
): Promise<void> {
  await db
    .delete(productMedia)
    .where(and(eq(productMedia.productId, productId), inArray(productMedia.productId, productsOf(db, organizationId))));
  if (fileIds.length === 0) return;
  await db.insert(productMedia).values(fileIds.map((fileId, position) => ({ productId, fileId, position })));
}
