// SQL for webhooks: endpoints and the delivery log (org-scoped), and the worker's side: the outbox fan-out,
// leased claims of due events (FOR UPDATE SKIP LOCKED) and the recording of attempts.
import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { PgInsertValue } from "drizzle-orm/pg-core";
import type { Queryable } from "../../db/client.js";
import {
  inboundWebhook,
  organization,
  outbox,
  webhookDelivery,
  webhookEndpoint,
  webhookEvent,
} from "../../db/schema/index.js";
import { WAKE_CHANNEL } from "../../db/outbox.js";
import { likePattern } from "../listing.js";
import type { ClaimedEvent, DeliveryRow, EndpointRow, EventRow } from "./wire.js";

// ---- endpoints ----------------------------------------------------------------------------------

export async function insertEndpoint(db: Queryable, values: typeof webhookEndpoint.$inferInsert): Promise<EndpointRow> {
  const [row] = await db.insert(webhookEndpoint).values(values).returning();
  return row!;
}

export async function findEndpoint(db: Queryable, organizationId: string, id: string): Promise<EndpointRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookEndpoint)
    .where(and(eq(webhookEndpoint.organizationId, organizationId), eq(webhookEndpoint.id, id)))
    .limit(1);
  return row;
}

export async function listEndpoints(db: Queryable, organizationId: string, pageNo: number, limit: number) {
  const where = eq(webhookEndpoint.organizationId, organizationId);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(webhookEndpoint)
      .where(where)
      .orderBy(asc(webhookEndpoint.createdAt), asc(webhookEndpoint.id))
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: count() }).from(webhookEndpoint).where(where),
  ]);
  return { rows, total: total[0]?.n ?? 0 };
}

export async function updateEndpoint(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<typeof webhookEndpoint.$inferInsert>,
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoint)
    .set({ ...patch, modifiedAt: new Date() })
    .where(and(eq(webhookEndpoint.organizationId, organizationId), eq(webhookEndpoint.id, id)))
    .returning();
  return row;
}

export async function deleteEndpoint(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(webhookEndpoint)
    .where(and(eq(webhookEndpoint.organizationId, organizationId), eq(webhookEndpoint.id, id)))
    .returning({ id: webhookEndpoint.id });
  return rows.length > 0;
}

/** An endpoint that stopped receiving: its pending events are skipped (a redelivery can send them later). */
export async function skipPendingEvents(db: Queryable, endpointId: string): Promise<void> {
  await db
    .update(webhookEvent)
    .set({ nextAttemptAt: null, skipped: true, modifiedAt: new Date() })
    .where(
      and(
        eq(webhookEvent.endpointId, endpointId),
        isNotNull(webhookEvent.nextAttemptAt),
        or(isNull(webhookEvent.lockedUntil), lt(webhookEvent.lockedUntil, sql`now()`)),
      ),
    );
}

// ---- events and the delivery log ----------------------------------------------------------------

export interface DeliveryFilter {
  endpointIds?: string[] | undefined;
  start?: Date | undefined;
  end?: Date | undefined;
  succeeded?: boolean | undefined;
  query?: string | undefined;
  httpCodeClass?: 2 | 3 | 4 | 5 | undefined;
  eventTypes?: string[] | undefined;
}

export async function listDeliveries(
  db: Queryable,
  organizationId: string,
  f: DeliveryFilter,
  pageNo: number,
  limit: number,
): Promise<{ rows: Array<{ delivery: DeliveryRow; event: EventRow }>; total: number }> {
  const conditions: Array<SQL | undefined> = [
    eq(webhookDelivery.organizationId, organizationId),
    f.endpointIds ? inArray(webhookDelivery.endpointId, f.endpointIds) : undefined,
    f.start ? gte(webhookDelivery.createdAt, f.start) : undefined,
    f.end ? lte(webhookDelivery.createdAt, f.end) : undefined,
    f.succeeded !== undefined ? eq(webhookDelivery.succeeded, f.succeeded) : undefined,
    f.httpCodeClass
      ? and(gte(webhookDelivery.httpCode, f.httpCodeClass * 100), lt(webhookDelivery.httpCode, f.httpCodeClass * 100 + 100))
      : undefined,
    f.eventTypes ? inArray(webhookEvent.type, f.eventTypes) : undefined,
    f.query
      ? or(
          sql`${webhookEvent.id}::text = ${f.query}`,
          sql`${webhookEvent.type} ILIKE ${likePattern(f.query)}`,
          sql`${webhookEvent.payload} ILIKE ${likePattern(f.query)}`,
          sql`${webhookDelivery.response} ILIKE ${likePattern(f.query)}`,
        )
      : undefined,
  ];
  const where = and(...conditions);
  const [rows, total] = await Promise.all([
    db
      .select({ delivery: webhookDelivery, event: webhookEvent })
      .from(webhookDelivery)
      .innerJoin(webhookEvent, eq(webhookEvent.id, webhookDelivery.eventId))
      .where(where)
      .orderBy(desc(webhookDelivery.createdAt), desc(webhookDelivery.id))
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db
      .select({ n: count() })
      .from(webhookDelivery)
      .innerJoin(webhookEvent, eq(webhookEvent.id, webhookDelivery.eventId))
      .where(where),
  ]);
  return { rows, total: total[0]?.n ?? 0 };
}

export async function findEvent(db: Queryable, organizationId: string, id: string): Promise<EventRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookEvent)
    .where(and(eq(webhookEvent.organizationId, organizationId), eq(webhookEvent.id, id)))
    .limit(1);
  return row;
}

/** Makes an event due now (a redelivery); an attempt in flight keeps its lease and records first. */
export async function scheduleNow(db: Queryable, id: string): Promise<void> {
  await db
    .update(webhookEvent)
    .set({ nextAttemptAt: sql`now()`, skipped: false, modifiedAt: new Date() })
    .where(eq(webhookEvent.id, id));
}

export async function wakeWorkers(db: Queryable): Promise<void> {
  await db.execute(sql`SELECT pg_notify(${WAKE_CHANNEL}, '')`);
}

// ---- the worker: outbox fan-out -----------------------------------------------------------------

export type OutboxRow = typeof outbox.$inferSelect;

/**
 * Takes up to `limit` due outbox rows, marking them processed in the caller's transaction (which also inserts
 * their events, so both happen or neither); rows another worker is taking are skipped, not waited for.
 */
export async function takeDueOutbox(tx: Queryable, limit: number): Promise<OutboxRow[]> {
  const due = tx
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(isNull(outbox.processedAt), lte(outbox.availableAt, sql`now()`)))
    .orderBy(asc(outbox.availableAt), asc(outbox.createdAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return tx.update(outbox).set({ processedAt: sql`now()` }).where(inArray(outbox.id, due)).returning();
}

export async function setOutboxPayload(tx: Queryable, id: string, payload: Record<string, unknown>): Promise<void> {
  await tx.update(outbox).set({ payload }).where(eq(outbox.id, id));
}

export async function enabledEndpointsOf(tx: Queryable, organizationIds: string[]): Promise<EndpointRow[]> {
  if (organizationIds.length === 0) return [];
  return tx
    .select()
    .from(webhookEndpoint)
    .where(and(inArray(webhookEndpoint.organizationId, organizationIds), eq(webhookEndpoint.enabled, true)));
}

/** Inserts events (a lease may be set on some: they go straight to an attempt); returns the ids inserted. */
export async function insertEvents(tx: Queryable, rows: Array<PgInsertValue<typeof webhookEvent>>): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += 500) {
    const done = await tx.insert(webhookEvent).values(rows.slice(i, i + 500)).onConflictDoNothing().returning({ id: webhookEvent.id });
    for (const r of done) inserted.add(r.id);
  }
  return inserted;
}

/** A lease of `leaseMs` from the database's clock (the one claims compare with). */
export const leaseUntil = (leaseMs: number) => sql`now() + make_interval(secs => ${leaseMs / 1000})`;

// ---- the worker: claims -------------------------------------------------------------------------

/**
 * Leases up to `limit` due events to `token` until now + leaseMs. Rows being claimed by another worker are
 * skipped; an expired lease (a worker that died mid-delivery) is due again.
 */
export async function claimDueEvents(db: Queryable, limit: number, leaseMs: number, token: string): Promise<ClaimedEvent[]> {
  const due = db
    .select({ id: webhookEvent.id })
    .from(webhookEvent)
    .where(
      and(
        lte(webhookEvent.nextAttemptAt, sql`now()`),
        or(isNull(webhookEvent.lockedUntil), lt(webhookEvent.lockedUntil, sql`now()`)),
      ),
    )
    .orderBy(asc(webhookEvent.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return db
    .update(webhookEvent)
    .set({ lockedUntil: leaseUntil(leaseMs), lockedBy: token })
    .from(webhookEndpoint)
    .where(and(inArray(webhookEvent.id, due), eq(webhookEndpoint.id, webhookEvent.endpointId)))
    .returning({
      id: webhookEvent.id,
      organizationId: webhookEvent.organizationId,
      endpointId: webhookEvent.endpointId,
      type: webhookEvent.type,
      payload: webhookEvent.payload,
      attempts: webhookEvent.attempts,
      url: webhookEndpoint.url,
      secret: webhookEndpoint.secret,
      enabled: webhookEndpoint.enabled,
      failedEventsInRow: webhookEndpoint.failedEventsInRow,
    });
}

export async function eventExists(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.select({ id: webhookEvent.id }).from(webhookEvent).where(eq(webhookEvent.id, id)).limit(1);
  return rows.length > 0;
}

export async function insertDeliveries(tx: Queryable, rows: Array<typeof webhookDelivery.$inferInsert>): Promise<void> {
  if (rows.length > 0) await tx.insert(webhookDelivery).values(rows);
}

export interface EventOutcome {
  id: string;
  /** The lease it was attempted under: only its holder writes the event. */
  token: string;
  attempts: number;
  succeeded: boolean;
  httpCode: number | null;
  nextAttemptAt: Date | null;
}

/** Writes each attempt's outcome and releases the lease, in one statement, for the events still leased to it. */
export async function finishEvents(tx: Queryable, outcomes: EventOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const values = sql.join(
    outcomes.map(
      (o) =>
        sql`(${o.id}::uuid, ${o.token}::uuid, ${o.attempts}::int, ${o.succeeded}::boolean, ${o.httpCode}::int, ${o.nextAttemptAt?.toISOString() ?? null}::timestamptz)`,
    ),
    sql`, `,
  );
  await tx.execute(sql`
    UPDATE ${webhookEvent} AS e
    SET attempts = v.attempts, succeeded = v.succeeded, last_http_code = v.http_code, next_attempt_at = v.next_attempt_at,
        locked_until = NULL, locked_by = NULL, modified_at = now()
    FROM (VALUES ${values}) AS v(id, token, attempts, succeeded, http_code, next_attempt_at)
    WHERE e.id = v.id AND e.locked_by = v.token`);
}

export async function markSkipped(tx: Queryable, token: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .update(webhookEvent)
    .set({ nextAttemptAt: null, skipped: true, lockedUntil: null, lockedBy: null, modifiedAt: new Date() })
    .where(and(inArray(webhookEvent.id, ids), eq(webhookEvent.lockedBy, token)));
}

/** Gives back leases without recording anything (a worker stopping with attempts it abandoned). */
export async function releaseEvents(db: Queryable, token: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(webhookEvent)
    .set({ lockedUntil: null, lockedBy: null })
    .where(and(inArray(webhookEvent.id, ids), eq(webhookEvent.lockedBy, token)));
}

/**
 * `reset`: an attempt got through, so the count restarts at `failed`; otherwise `failed` more events used up their
 * attempts.
 */
export async function countFailedEvents(
  tx: Queryable,
  endpointId: string,
  reset: boolean,
  failed: number,
): Promise<{ failedEventsInRow: number; enabled: boolean } | undefined> {
  const [row] = await tx
    .update(webhookEndpoint)
    .set({ failedEventsInRow: reset ? failed : sql`${webhookEndpoint.failedEventsInRow} + ${failed}` })
    .where(eq(webhookEndpoint.id, endpointId))
    .returning({ failedEventsInRow: webhookEndpoint.failedEventsInRow, enabled: webhookEndpoint.enabled });
  return row;
}

/** Disables an enabled endpoint (else undefined: it was already disabled or is gone). */
export async function disableEndpoint(tx: Queryable, endpointId: string, reason: string): Promise<EndpointRow | undefined> {
  const [row] = await tx
    .update(webhookEndpoint)
    .set({ enabled: false, disabledReason: reason, modifiedAt: new Date() })
    .where(and(eq(webhookEndpoint.id, endpointId), eq(webhookEndpoint.enabled, true)))
    .returning();
  return row;
}

/** The organization's name (the mail telling its owners an endpoint was disabled names it). */
export async function organizationName(db: Queryable, organizationId: string): Promise<string> {
  const [org] = await db.select({ name: organization.name }).from(organization).where(eq(organization.id, organizationId));
  return org?.name ?? "";
}

// ---- inbound ------------------------------------------------------------------------------------

/** Records a webhook id; false when it was seen before. */
export async function rememberInbound(
  db: Queryable,
  values: { webhookId: string; timestamp: Date; type: string | null },
): Promise<boolean> {
  const rows = await db.insert(inboundWebhook).values(values).onConflictDoNothing().returning({ id: inboundWebhook.webhookId });
  return rows.length > 0;
}

export async function forgetInboundBefore(db: Queryable, before: Date): Promise<void> {
  await db.delete(inboundWebhook).where(lt(inboundWebhook.timestamp, before));
}
