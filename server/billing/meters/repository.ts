// SQL for meters. Every function takes the caller's organization id and filters by it.
import { and, eq, ilike, inArray, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inUuids, preparedPerHandle } from "../../db/prepared.js";
import { meter } from "../../db/schema/index.js";
import { likePattern, metadataWhere, orderBy, type SortKey } from "../listing.js";
import type { MeterRow } from "./wire.js";

export async function existingMeterIds(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: meter.id })
    .from(meter)
    .where(and(eq(meter.organizationId, organizationId), inArray(meter.id, ids)));
  return rows.map((r) => r.id);
}

/** Prepared: metered prices embed their meter wherever a product or price is read. */
const metersByIdsQuery = preparedPerHandle((db) =>
  db
    .select()
    .from(meter)
    .where(and(eq(meter.organizationId, sql.placeholder("organizationId")), inUuids(meter.id, "ids")))
    .prepare("meters_by_ids"),
);

export async function findMetersByIds(db: Queryable, organizationId: string, ids: string[]): Promise<MeterRow[]> {
  if (ids.length === 0) return [];
  return metersByIdsQuery(db).execute({ organizationId, ids });
}

export async function findMeter(db: Queryable, organizationId: string, id: string): Promise<MeterRow | undefined> {
  const [row] = await db
    .select()
    .from(meter)
    .where(and(eq(meter.organizationId, organizationId), eq(meter.id, id)))
    .limit(1);
  return row;
}

/** Meters that are not archived, oldest first. */
export async function liveMeters(db: Queryable, organizationId: string): Promise<MeterRow[]> {
  return db
    .select()
    .from(meter)
    .where(and(eq(meter.organizationId, organizationId), isNull(meter.archivedAt)))
    .orderBy(meter.createdAt, meter.id);
}

export async function insertMeter(db: Queryable, values: Omit<typeof meter.$inferInsert, "id" | "createdAt">): Promise<MeterRow> {
  const [row] = await db.insert(meter).values(values).returning();
  if (!row) throw new Error("insert meter returned no row");
  return row;
}

export async function updateMeter(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Omit<typeof meter.$inferInsert, "id" | "organizationId" | "createdAt">>,
): Promise<MeterRow | undefined> {
  const [row] = await db
    .update(meter)
    .set(patch)
    .where(and(eq(meter.organizationId, organizationId), eq(meter.id, id)))
    .returning();
  return row;
}

export type MeterSortKey = "created_at" | "name";

export interface MeterListFilter {
  query?: string | undefined;
  isArchived?: boolean | undefined;
  metadata?: Record<string, string[]> | undefined;
}

export async function listMeters(
  db: Queryable,
  organizationId: string,
  filter: MeterListFilter,
  sorting: Array<SortKey<MeterSortKey>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: MeterRow[]; total: number }> {
  const clauses: Array<SQL | undefined> = [eq(meter.organizationId, organizationId)];
  if (filter.query) clauses.push(ilike(meter.name, likePattern(filter.query)));
  if (filter.isArchived !== undefined) clauses.push(filter.isArchived ? isNotNull(meter.archivedAt) : isNull(meter.archivedAt));
  clauses.push(...metadataWhere(meter.metadata, filter.metadata));
  const where = and(...clauses);
  const [rows, count] = await Promise.all([
    db
      .select()
      .from(meter)
      .where(where)
      .orderBy(...orderBy(sorting, { created_at: meter.createdAt, name: meter.name }, meter.id))
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(meter).where(where),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}
