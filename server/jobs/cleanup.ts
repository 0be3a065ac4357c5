// Retention of what webhook delivery leaves behind: processed outbox rows, finished webhook events and the
// delivery log older than TILL_WEBHOOK_RETENTION_DAYS (Polar keeps its delivery log about 30 days) are deleted in
// bounded batches. Pending or leased work is never touched: an event is finished when nothing is due and no worker
// holds it, an outbox row when it was processed. `till listen` replays recent processed outbox rows; a retention of
// at least one day (the minimum) keeps that replay working. The same hourly pass compacts the lists' counts,
// keeps the usage events' months and folds the metrics' rollups: it spans domains (webhooks, idempotency, lists,
// events, metrics) in one order under one abort, so it is the worker's own job rather than one domain's.
import { sql } from "drizzle-orm";
import type { Database, Db } from "../db/client.js";
import type { Job } from "../tasks/job.js";
import { periodic, periodicJob } from "../tasks/periodic.js";
import { outbox, webhookDelivery, webhookEvent } from "../db/schema/index.js";
import { deleteExpiredIdempotencyKeys } from "../http/idempotency.js";
import { compactListCounts } from "../billing/list-counts.js";
import { foldAllMetricRollups } from "../billing/metrics/fold.js";
import { maintainEventPartitions } from "../billing/events/service.js";

export interface CleanupOptions {
  /** Rows deleted per statement. */
  batchSize: number;
  /** Statements per table and run; what is left waits for the next run. */
  maxBatches: number;
}

export const DEFAULT_CLEANUP_OPTIONS: CleanupOptions = { batchSize: 1_000, maxBatches: 50 };

export interface CleanupResult {
  outbox: number;
  events: number;
  deliveries: number;
  /** Idempotency keys past their 24 hours (whatever the retention). */
  idempotencyKeys: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes up to `batchSize` rows per call of `step` until a call deletes fewer, `maxBatches` calls, or an abort. */
async function inBatches(opts: CleanupOptions, step: (limit: number) => Promise<number>, signal?: AbortSignal): Promise<number> {
  let total = 0;
  for (let i = 0; i < opts.maxBatches && !signal?.aborted; i++) {
    const n = await step(opts.batchSize);
    total += n;
    if (n < opts.batchSize) break;
  }
  return total;
}

// Each statement locks what it deletes with SKIP LOCKED, so replicas cleaning at once (or a worker recording or
// redelivering an event) are never waited for; a row that changed meanwhile is checked again by the lock.
const finished = sql`${webhookEvent.nextAttemptAt} IS NULL AND ${webhookEvent.lockedBy} IS NULL`;

async function deleteDeliveries(db: Db, before: Date, limit: number): Promise<number> {
  const rows = await db.execute<{ id: string }>(sql`
    DELETE FROM ${webhookDelivery} WHERE ${webhookDelivery.id} IN (
      SELECT d.id FROM ${webhookDelivery} d JOIN ${webhookEvent} ON ${webhookEvent.id} = d.event_id
      WHERE d.created_at < ${before.toISOString()}::timestamptz AND ${finished}
      LIMIT ${limit} FOR UPDATE OF d SKIP LOCKED)
    RETURNING ${webhookDelivery.id}`);
  return rowCount(rows);
}

/**
 * Finished events whose last change is older than `before` (finishing an event always sets modified_at); their
 * remaining deliveries go with them (cascade).
 */
async function deleteEvents(db: Db, before: Date, limit: number): Promise<number> {
  const rows = await db.execute<{ id: string }>(sql`
    DELETE FROM ${webhookEvent} WHERE ${webhookEvent.id} IN (
      SELECT ${webhookEvent.id} FROM ${webhookEvent}
      WHERE ${finished} AND ${webhookEvent.modifiedAt} < ${before.toISOString()}::timestamptz
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${webhookEvent.id}`);
  return rowCount(rows);
}

async function deleteOutbox(db: Db, before: Date, limit: number): Promise<number> {
  const rows = await db.execute<{ id: string }>(sql`
    DELETE FROM ${outbox} WHERE ${outbox.id} IN (
      SELECT ${outbox.id} FROM ${outbox} WHERE ${outbox.processedAt} < ${before.toISOString()}::timestamptz
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${outbox.id}`);
  return rowCount(rows);
}

/** postgres.js returns the rows as an array, PGlite as `{ rows }`. */
function rowCount(result: unknown): number {
  if (Array.isArray(result)) return result.length;
  const rows = (result as { rows?: unknown[] }).rows;
  return rows?.length ?? 0;
}

/**
 * One pass: everything finished before `before`, at most `maxBatches × batchSize` rows per table; `signal` stops
 * it between two statements (a server shutting down does not wait for a long pass).
 */
export async function cleanupOnce(
  db: Db,
  before: Date,
  opts: CleanupOptions = DEFAULT_CLEANUP_OPTIONS,
  signal?: AbortSignal,
): Promise<CleanupResult> {
  const deliveries = await inBatches(opts, (n) => deleteDeliveries(db, before, n), signal);
  const events = await inBatches(opts, (n) => deleteEvents(db, before, n), signal);
  const outboxRows = await inBatches(opts, (n) => deleteOutbox(db, before, n), signal);
  const idempotencyKeys = await inBatches(opts, (n) => deleteExpiredIdempotencyKeys(db, n), signal);
  return { outbox: outboxRows, events, deliveries, idempotencyKeys };
}

export interface CleanupLog {
  info(msg: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface Cleanup {
  start(): void;
  /** Stops the schedule; a pass in progress ends after its current statement. */
  stop(): Promise<void>;
}

interface CleanupDeps {
  database: Database;
  retentionDays: number;
  /** TILL_EVENT_RETENTION: usage events' months older than this many are dropped; absent, kept. */
  eventRetentionMonths?: number | undefined;
  log: CleanupLog;
  options?: CleanupOptions;
}

/** One pass: each part logs its own failure, so one part failing does not keep the others from running. */
async function cleanupPass(deps: CleanupDeps, signal: AbortSignal): Promise<void> {
  try {
    const before = new Date(Date.now() - deps.retentionDays * DAY_MS);
    const r = await cleanupOnce(deps.database.db, before, deps.options, signal);
    if (r.outbox + r.events + r.deliveries > 0) {
      deps.log.info(`webhooks: retention removed ${r.outbox} outbox rows, ${r.events} events, ${r.deliveries} deliveries`);
    }
    if (r.idempotencyKeys > 0) deps.log.info(`idempotency: removed ${r.idempotencyKeys} expired keys`);
  } catch (err) {
    deps.log.error(err, "webhooks: retention cleanup failed");
  }
  // the lists' maintained counts (billing/list-counts.ts): each (organization, list)'s delta rows folded into one
  try {
    const opts = deps.options ?? DEFAULT_CLEANUP_OPTIONS;
    await inBatches(opts, (n) => compactListCounts(deps.database.db, n), signal);
  } catch (err) {
    deps.log.error(err, "list counts: compaction failed");
  }
  // the usage events' months: created ahead, and dropped past their retention (billing/events/partitions.ts)
  try {
    const dropped = await maintainEventPartitions(deps.database.db, deps.eventRetentionMonths);
    if (dropped.length > 0) deps.log.info(`events: retention dropped ${dropped.join(", ")}`);
  } catch (err) {
    deps.log.error(err, "events: partition upkeep failed");
  }
  // the metrics' hourly rollups (billing/metrics/rollups.ts): each organization's delta rows folded
  try {
    const opts = deps.options ?? DEFAULT_CLEANUP_OPTIONS;
    await inBatches(opts, (n) => foldAllMetricRollups(deps.database.db, n), signal);
  } catch (err) {
    deps.log.error(err, "metric rollups: folding failed");
  }
}

/** How often the cleanup runs: a minute after start, then every hour. */
const FIRST_MS = 60_000;
const EVERY_MS = 60 * 60_000;

/** Runs a pass `firstRunMs` after start (a minute), then every `everyMs` (an hour), keeping `retentionDays` days. */
export function createCleanup(deps: CleanupDeps & { firstRunMs?: number; everyMs?: number }): Cleanup {
  return periodic({
    firstMs: deps.firstRunMs ?? FIRST_MS,
    everyMs: deps.everyMs ?? EVERY_MS,
    unref: true,
    log: deps.log,
    failure: "webhooks: retention cleanup failed",
    pass: (signal) => cleanupPass(deps, signal),
  });
}

/** The cleanup as the worker's job, where TILL_WEBHOOK_RETENTION_DAYS is set. */
export const jobs: Job[] = [
  periodicJob({
    name: "cleanup",
    firstMs: FIRST_MS,
    everyMs: EVERY_MS,
    unref: true,
    failure: "webhooks: retention cleanup failed",
    pass(ctx) {
      const { retentionDays } = ctx.config.webhooks;
      if (!retentionDays) return undefined;
      const deps = { database: ctx.database, retentionDays, eventRetentionMonths: ctx.config.events?.retentionMonths, log: ctx.log };
      return (signal) => cleanupPass(deps, signal);
    },
  }),
];
