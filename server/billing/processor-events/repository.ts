// SQL of processor events' processing (their table keeps the name of the first processor, stripe_event): the outbox
// asks for an event (next_attempt_at), the worker leases due events (FOR UPDATE SKIP LOCKED, locked_until) and
// records each one's end; only the lease holder records.
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { rowsOf, type Db, type Queryable } from "../../db/client.js";
import { stripeEvent } from "../../db/schema/index.js";

export type ProcessorEventRow = typeof stripeEvent.$inferSelect;

/** Makes the named events due now (those not asked for or processed yet); returns how many. */
export async function requestEvents(tx: Queryable, refs: Array<{ organizationId: string; id: string }>): Promise<number> {
  let n = 0;
  for (const ref of refs) {
    const updated = await tx
      .update(stripeEvent)
      .set({ nextAttemptAt: sql`now()` })
      .where(and(eq(stripeEvent.organizationId, ref.organizationId), eq(stripeEvent.id, ref.id), isNull(stripeEvent.processedAt), isNull(stripeEvent.nextAttemptAt)))
      .returning({ id: stripeEvent.id });
    n += updated.length;
  }
  return n;
}

/** Leases up to `limit` due events to `token`, oldest (by the processor's time) first. */
export async function claimDue(db: Db, limit: number, leaseMs: number, token: string): Promise<ProcessorEventRow[]> {
  const rows = await rowsOf<{ organization_id: string; id: string }>(
    db,
    sql`UPDATE ${stripeEvent} SET locked_until = now() + ${`${leaseMs} milliseconds`}::interval, locked_by = ${token}
      WHERE (organization_id, id) IN (
        SELECT organization_id, id FROM ${stripeEvent}
        WHERE processed_at IS NULL AND next_attempt_at IS NOT NULL AND next_attempt_at <= now()
          AND (locked_until IS NULL OR locked_until < now())
        ORDER BY stripe_created_at, received_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING organization_id, id`,
  );
  if (rows.length === 0) return [];
  const claimed = await db
    .select()
    .from(stripeEvent)
    .where(and(eq(stripeEvent.lockedBy, token), inArray(stripeEvent.id, rows.map((r) => r.id))));
  return claimed.sort((a, b) => a.stripeCreatedAt.getTime() - b.stripeCreatedAt.getTime());
}

/** The end of an event: processed (handled, ignored or given up), or due again at `retryAt`. Lease holder only. */
export async function recordOutcome(
  db: Db,
  row: Pick<ProcessorEventRow, "organizationId" | "id">,
  token: string,
  outcome: { done: true; outcome: "handled" | "ignored" | "failed"; error: string | null } | { done: false; retryAt: Date; error: string },
): Promise<boolean> {
  const set = outcome.done
    ? { processedAt: sql`now()`, outcome: outcome.outcome, error: outcome.error, lockedUntil: null, lockedBy: null, attempts: sql`${stripeEvent.attempts} + 1` }
    : { nextAttemptAt: outcome.retryAt, error: outcome.error, lockedUntil: null, lockedBy: null, attempts: sql`${stripeEvent.attempts} + 1` };
  const updated = await db
    .update(stripeEvent)
    .set(set)
    .where(and(eq(stripeEvent.organizationId, row.organizationId), eq(stripeEvent.id, row.id), eq(stripeEvent.lockedBy, token)))
    .returning({ id: stripeEvent.id });
  return updated.length > 0;
}

export async function findEvent(db: Queryable, organizationId: string, id: string): Promise<ProcessorEventRow | undefined> {
  const [row] = await db
    .select()
    .from(stripeEvent)
    .where(and(eq(stripeEvent.organizationId, organizationId), eq(stripeEvent.id, id)))
    .limit(1);
  return row;
}
