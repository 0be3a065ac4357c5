// SQL of reservations (org-scoped). A hold counts against its meter's balance while `held` and not expired.
import { and, eq, gt, sql } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import { rawQuery } from "../../db/prepared.js";
import { entitlementReservation } from "../../db/schema/index.js";

export type ReservationRow = typeof entitlementReservation.$inferSelect;

const open = (now: Date) => and(eq(entitlementReservation.status, "held"), gt(entitlementReservation.expiresAt, now));

/** Units held now per meter (lower-case id) for the customer. */
export async function heldUnitsOfCustomer(db: Queryable, organizationId: string, customerId: string, now = new Date()): Promise<Map<string, number>> {
  const rows = await db
    .select({ meterId: entitlementReservation.meterId, units: sql<number>`sum(${entitlementReservation.units})::float8` })
    .from(entitlementReservation)
    .where(and(eq(entitlementReservation.organizationId, organizationId), eq(entitlementReservation.customerId, customerId), open(now)))
    .groupBy(entitlementReservation.meterId);
  return new Map(rows.map((r) => [r.meterId.toLowerCase(), Number(r.units)]));
}

const LOCK_BALANCE = "SELECT pg_advisory_xact_lock(hashtext($1::text), hashtext($2::text))";

/**
 * Serializes the reservations of one customer on one meter until the caller's transaction ends. The statement is
 * on its way when this returns: a statement the caller sends after the call runs after the lock is taken, so the
 * two can share a round trip (`Promise.all([lockBalance(…), read(…)])`, the lock first).
 */
export function lockBalance(db: Queryable, customerId: string, meterId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    rawQuery(db, LOCK_BALANCE, [customerId, meterId]).then(() => resolve(), reject);
  });
}

export async function insertReservation(db: Queryable, values: typeof entitlementReservation.$inferInsert): Promise<ReservationRow> {
  const [row] = await db.insert(entitlementReservation).values(values).returning();
  return row!;
}

export async function findReservation(db: Queryable, organizationId: string, id: string, lock = false): Promise<ReservationRow | undefined> {
  const q = db
    .select()
    .from(entitlementReservation)
    .where(and(eq(entitlementReservation.organizationId, organizationId), eq(entitlementReservation.id, id)));
  const [row] = await (lock ? q.for("update") : q);
  return row;
}

export async function settleReservation(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: { status: "committed" | "released"; usedUnits: number | null; settledAt: Date },
): Promise<ReservationRow> {
  const [row] = await db
    .update(entitlementReservation)
    .set(patch)
    .where(and(eq(entitlementReservation.organizationId, organizationId), eq(entitlementReservation.id, id)))
    .returning();
  return row!;
}

/** Marks up to `limit` holds past their expiry as expired (any organization); returns how many. */
export async function expireHolds(db: Queryable, now: Date, limit: number): Promise<number> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`
    UPDATE ${entitlementReservation} SET status = 'expired', settled_at = ${now.toISOString()}::timestamptz
    WHERE id IN (
      SELECT id FROM ${entitlementReservation}
      WHERE status = 'held' AND expires_at <= ${now.toISOString()}::timestamptz
      ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ) RETURNING id`,
  );
  return rows.length;
}
