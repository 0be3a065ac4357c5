// SQL of dunning: the state of renewal orders whose charge failed (order_dunning), claimed by the schedule
// when their next attempt is due (across organizations: the schedule serves them all), or locked one at a time
// for the customer's own retry. Every function but the claim takes the organization id and filters by it.
import { and, asc, eq, inArray, isNotNull, lte, notInArray, or, sql } from "drizzle-orm";
import { ADVISORY_LOCK_CLASS, rowsOf, type Queryable } from "../../db/client.js";
import { insertFrom, record, shapeOf } from "../../db/json-rows.js";
import { rawQuery } from "../../db/prepared.js";
import { billingOrganization, orderDunning } from "../../db/schema/index.js";
import { advancedClocks, orgNowSql } from "../clock.js";

export type DunningRow = typeof orderDunning.$inferSelect;

export async function insertDunning(db: Queryable, row: typeof orderDunning.$inferInsert): Promise<void> {
  await db.insert(orderDunning).values(row);
}

const dunningShape = shapeOf(orderDunning);
const INSERT_DUNNINGS = insertFrom(dunningShape, "$1::text::jsonb");

/** insertDunning for many orders in one statement (a billing run's batch). */
export async function insertDunnings(db: Queryable, rows: Array<typeof orderDunning.$inferInsert>): Promise<void> {
  if (rows.length === 0) return;
  const full = rows.map((r) => record(dunningShape, { attempts: 1, manualAttempts: 0, processorErrors: 0, ...r }));
  await rawQuery(db, INSERT_DUNNINGS, [JSON.stringify(full)]);
}

/**
 * Up to `limit` dunning rows due at `now` (or at their organization's test clock), locked (SKIP LOCKED: another
 * process's are left to it).
 */
export async function claimDue(db: Queryable, now: Date, limit: number, skipIds: string[], organizationId?: string): Promise<DunningRow[]> {
  return db
    .select()
    .from(orderDunning)
    .where(
      and(
        isNotNull(orderDunning.nextAttemptAt),
        // `now` is the wall clock; a sandbox organization's test clock may be ahead of it (billing/clock.ts)
        or(
          lte(orderDunning.nextAttemptAt, now),
          and(inArray(orderDunning.organizationId, advancedClocks), lte(orderDunning.nextAttemptAt, orgNowSql(orderDunning.organizationId, now))),
        ),
        organizationId ? eq(orderDunning.organizationId, organizationId) : undefined,
        skipIds.length > 0 ? notInArray(orderDunning.orderId, skipIds) : undefined,
      ),
    )
    .orderBy(asc(orderDunning.nextAttemptAt), asc(orderDunning.orderId))
    .limit(limit)
    .for("update", { skipLocked: true });
}

/**
 * The customer's turn at the order until the transaction ends (an advisory lock of ADVISORY_LOCK_CLASS.customerTurn,
 * the order's id hashed), false at once when another of their requests holds it — waiting for the order's row, or
 * paying.
 */
export async function tryCustomerTurn(db: Queryable, orderId: string): Promise<boolean> {
  const [row] = await rowsOf<{ ok: boolean }>(db, sql`SELECT pg_try_advisory_xact_lock(${sql.raw(String(ADVISORY_LOCK_CLASS.customerTurn))}, hashtext(${orderId})) AS ok`);
  return row?.ok === true;
}

/** The order's dunning row, locked (a row another transaction holds is waited for: the caller bounds the wait). */
export async function lockDunning(db: Queryable, organizationId: string, orderId: string): Promise<DunningRow | undefined> {
  const [row] = await db
    .select()
    .from(orderDunning)
    .where(and(eq(orderDunning.organizationId, organizationId), eq(orderDunning.orderId, orderId)))
    .limit(1)
    .for("update");
  return row;
}

/**
 * An invoice's collection row (nothing scheduled: the customer pays within the terms, the pay page's card attempts
 * count on it), made once.
 */
export async function openInvoiceDunning(db: Queryable, row: { organizationId: string; orderId: string; subscriptionId: string }, now: Date): Promise<void> {
  await db
    .insert(orderDunning)
    .values({ ...row, attempts: 0, nextAttemptAt: null, createdAt: now })
    .onConflictDoNothing();
}

export async function findDunning(db: Queryable, organizationId: string, orderId: string): Promise<DunningRow | undefined> {
  const [row] = await db
    .select()
    .from(orderDunning)
    .where(and(eq(orderDunning.organizationId, organizationId), eq(orderDunning.orderId, orderId)))
    .limit(1);
  return row;
}

export async function updateDunning(
  db: Queryable,
  organizationId: string,
  orderId: string,
  patch: Partial<Pick<DunningRow, "attempts" | "manualAttempts" | "nextAttemptAt" | "processorErrors">>,
  now: Date,
): Promise<void> {
  await db
    .update(orderDunning)
    .set({ ...patch, modifiedAt: now })
    .where(and(eq(orderDunning.organizationId, organizationId), eq(orderDunning.orderId, orderId)));
}

export async function storedDunningSettings(db: Queryable, organizationId: string): Promise<unknown> {
  const [row] = await db
    .select({ s: billingOrganization.dunningSettings })
    .from(billingOrganization)
    .where(eq(billingOrganization.organizationId, organizationId))
    .limit(1);
  return row?.s ?? null;
}
