// SQL for disputes. Every function takes the caller's organization id and filters by it.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { dispute } from "../../db/schema/index.js";
import { orderBy, type SortKey } from "../listing.js";
import type { DisputeRow } from "./wire.js";

export type DisputeSort = "created_at" | "amount";

export async function findDispute(db: Queryable, organizationId: string, id: string): Promise<DisputeRow | undefined> {
  const [row] = await db
    .select()
    .from(dispute)
    .where(and(eq(dispute.organizationId, organizationId), eq(dispute.id, id)))
    .limit(1);
  return row;
}

export async function findByProcessorId(db: Queryable, organizationId: string, processorDisputeId: string): Promise<DisputeRow | undefined> {
  const [row] = await db
    .select()
    .from(dispute)
    .where(and(eq(dispute.organizationId, organizationId), eq(dispute.processorDisputeId, processorDisputeId)))
    .limit(1);
  return row;
}

export async function insertDispute(db: Queryable, row: DisputeRow): Promise<void> {
  await db.insert(dispute).values(row);
}

export async function updateDispute(db: Queryable, organizationId: string, id: string, patch: Partial<DisputeRow>): Promise<void> {
  await db
    .update(dispute)
    .set(patch)
    .where(and(eq(dispute.organizationId, organizationId), eq(dispute.id, id)));
}

export async function listDisputes(
  db: Queryable,
  organizationId: string,
  filter: { orderIds?: string[] | undefined; statuses?: string[] | undefined },
  sorting: Array<SortKey<DisputeSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: DisputeRow[]; total: number }> {
  const where = and(
    eq(dispute.organizationId, organizationId),
    filter.orderIds ? inArray(dispute.orderId, filter.orderIds) : undefined,
    filter.statuses ? inArray(dispute.status, filter.statuses) : undefined,
  );
  const [rows, [count]] = await Promise.all([
    db
      .select()
      .from(dispute)
      .where(where)
      .orderBy(...orderBy(sorting, { created_at: dispute.createdAt, amount: dispute.amount }, dispute.id))
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(dispute).where(where),
  ]);
  return { rows, total: count?.n ?? 0 };
}

