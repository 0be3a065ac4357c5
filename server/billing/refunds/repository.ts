// SQL for refunds. Every function takes the caller's organization id and filters by it.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { refund } from "../../db/schema/index.js";
import { orderBy, type SortKey } from "../listing.js";
import type { RefundRow } from "./wire.js";

export async function insertRefund(db: Queryable, row: RefundRow): Promise<void> {
  await db.insert(refund).values(row);
}

/** A refund with this processor refund id exists already (made by till, or recorded from an earlier event). */
export async function hasProcessorRefund(db: Queryable, organizationId: string, processorRefundId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: refund.id })
    .from(refund)
    .where(and(eq(refund.organizationId, organizationId), eq(refund.processorRefundId, processorRefundId)))
    .limit(1);
  return row !== undefined;
}

/** The refund recorded under the processor's refund id, or undefined. */
export async function findByProcessorRefundId(db: Queryable, organizationId: string, processorRefundId: string): Promise<RefundRow | undefined> {
  const [row] = await db
    .select()
    .from(refund)
    .where(and(eq(refund.organizationId, organizationId), eq(refund.processorRefundId, processorRefundId)))
    .limit(1);
  return row;
}

/** Sets a refund's status (and why it failed); answers the row as it is now. */
export async function updateRefundStatus(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Pick<RefundRow, "status" | "failureReason" | "modifiedAt">,
): Promise<RefundRow> {
  const [row] = await db
    .update(refund)
    .set(patch)
    .where(and(eq(refund.organizationId, organizationId), eq(refund.id, id)))
    .returning();
  if (!row) throw new Error(`refund ${id} vanished under its order's lock`);
  return row;
}

export type RefundSort = "created_at" | "amount";

export interface RefundFilter {
  ids?: string[] | undefined;
  orderIds?: string[] | undefined;
  subscriptionIds?: string[] | undefined;
  /** Already resolved from customer_id and external_customer_id; an empty list matches nothing. */
  customerIds?: string[] | undefined;
  /** Polar's filter: true keeps succeeded refunds only; false filters nothing. */
  succeeded?: boolean | undefined;
}

export async function listRefunds(
  db: Queryable,
  organizationId: string,
  filter: RefundFilter,
  sorting: Array<SortKey<RefundSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: RefundRow[]; total: number }> {
  const where = and(
    eq(refund.organizationId, organizationId),
    filter.ids ? inArray(refund.id, filter.ids) : undefined,
    filter.orderIds ? inArray(refund.orderId, filter.orderIds) : undefined,
    filter.subscriptionIds ? inArray(refund.subscriptionId, filter.subscriptionIds) : undefined,
    filter.customerIds ? (filter.customerIds.length > 0 ? inArray(refund.customerId, filter.customerIds) : sql`false`) : undefined,
    filter.succeeded ? eq(refund.status, "succeeded") : undefined,
  );
  const rows = await db
    .select({ row: refund, total: sql<number>`count(*) OVER ()`.mapWith(Number) })
    .from(refund)
    .where(where)
    .orderBy(...orderBy(sorting, { created_at: refund.createdAt, amount: refund.amount }, refund.id))
    .limit(limit)
    .offset((pageNo - 1) * limit);
  if (rows.length > 0 || pageNo === 1) return { rows: rows.map((r) => r.row), total: rows[0]?.total ?? 0 };
  // past the last page the window count has no row to ride on
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(refund).where(where);
  return { rows: [], total: count?.n ?? 0 };
}
