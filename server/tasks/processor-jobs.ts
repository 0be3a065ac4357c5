// Calls to the payment processor that an outbox event causes (an open bank transfer canceled, a wallet's
// auto-recharge charged) are jobs: the fan-out's transaction records one row per call owed (recordProcessorJobs), and a
// leased job (processorCallJob) makes the call with no transaction open — a slow or unreachable processor holds no row
// lock and no fan-out — then records the outcome in a short transaction of its own. The call is keyed by the domain
// (an idempotency key of the cause), so a job done again after a crash or a lost answer asks under the same key and
// gets the processor's first answer. Jobs of one subject (an order, a wallet) run one at a time, oldest first.
// A platform leaf: the domains name their kind and do the work; it knows nothing of billing.
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db, Queryable } from "../db/client.js";
import { processorJob } from "../db/schema/index.js";
import type { JobContext } from "./job.js";
import { leasedJob } from "./lease-loop.js";
import type { Job } from "./job.js";

export type ProcessorJobKind = "transfer_cancel" | "wallet_recharge";
export type ProcessorJobRow = typeof processorJob.$inferSelect;

/** Waits before the attempts after one that threw (a database error, a bug); the last one repeats. */
export const PROCESSOR_JOB_RETRY_MS = [30_000, 2 * 60_000, 10 * 60_000, 3600_000, 6 * 3600_000];

export interface NewProcessorJob {
  organizationId: string;
  kind: ProcessorJobKind;
  subject: string;
  cause: string;
}

/** Records the calls owed, in the caller's transaction; one recorded already for its kind and cause is left. */
export async function recordProcessorJobs(tx: Queryable, jobs: NewProcessorJob[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const done = await tx.insert(processorJob).values(jobs).onConflictDoNothing().returning({ id: processorJob.id });
  return done.length;
}

const leaseUntil = (ms: number) => sql`now() + make_interval(secs => ${ms / 1000})`;

/**
 * Leases up to `limit` due jobs of `kind` to `token`, none whose subject has an older pending job or one leased now
 * (another worker's): a subject's jobs run in the order they were recorded, one at a time, so a job that may have
 * called (started, then crashed) is the one done again before any newer one of its subject.
 */
export async function claimProcessorJobs(db: Queryable, kind: ProcessorJobKind, limit: number, leaseMs: number, token: string): Promise<ProcessorJobRow[]> {
  const due = db
    .select({ id: processorJob.id })
    .from(processorJob)
    .where(
      and(
        eq(processorJob.kind, kind),
        eq(processorJob.status, "pending"),
        lte(processorJob.nextAttemptAt, sql`now()`),
        or(isNull(processorJob.lockedUntil), lt(processorJob.lockedUntil, sql`now()`)),
        sql`NOT EXISTS (SELECT 1 FROM processor_job o WHERE o.organization_id = ${processorJob.organizationId} AND o.subject = ${processorJob.subject}
          AND o.kind = ${processorJob.kind} AND o.status = 'pending' AND o.id <> ${processorJob.id}
          AND (o.locked_until > now() OR (o.created_at, o.id) < (${processorJob.createdAt}, ${processorJob.id})))`,
      ),
    )
    .orderBy(asc(processorJob.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return db.update(processorJob).set({ lockedUntil: leaseUntil(leaseMs), lockedBy: token }).where(inArray(processorJob.id, due)).returning();
}

/** Notes that the call is about to be made with `data` (a retry sends it again as it is); false: the lease is lost. */
export async function startProcessorJob(tx: Queryable, id: string, token: string, data: Record<string, unknown>): Promise<boolean> {
  const rows = await tx
    .update(processorJob)
    .set({ startedAt: sql`now()`, data })
    .where(and(eq(processorJob.id, id), eq(processorJob.lockedBy, token)))
    .returning({ id: processorJob.id });
  return rows.length > 0;
}

/** Ends the job with its outcome if `token` still holds it (in the transaction recording the outcome). */
export async function finishProcessorJob(tx: Queryable, id: string, token: string, outcome: string): Promise<boolean> {
  const rows = await tx
    .update(processorJob)
    .set({ status: "done", outcome, attempts: sql`${processorJob.attempts} + 1`, lockedUntil: null, lockedBy: null, finishedAt: sql`now()` })
    .where(and(eq(processorJob.id, id), eq(processorJob.lockedBy, token)))
    .returning({ id: processorJob.id });
  return rows.length > 0;
}

/** Gives the job back to be tried again in `delayMs` (its lease ends). */
export async function retryProcessorJob(db: Queryable, id: string, token: string, error: string | null, delayMs: number): Promise<void> {
  await db
    .update(processorJob)
    .set({ attempts: sql`${processorJob.attempts} + 1`, lastError: error?.slice(0, 1000) ?? null, lockedUntil: null, lockedBy: null, nextAttemptAt: leaseUntil(delayMs) })
    .where(and(eq(processorJob.id, id), eq(processorJob.lockedBy, token)));
}

/** What a processor job's work is given. */
export interface ProcessorJobEnv {
  db: Db;
  processor: JobContext["processor"];
  log: JobContext["log"];
}

/**
 * A worker's job doing the calls of `kind`: `run` makes one job's call and records its outcome (finishProcessorJob
 * under `token`, or retryProcessorJob); one that throws is tried again later (PROCESSOR_JOB_RETRY_MS). The claim
 * leases a subject's oldest pending job only, so jobs of different subjects run side by side, one subject's in turn.
 */
export function processorCallJob(spec: { name: string; kind: ProcessorJobKind; run(env: ProcessorJobEnv, job: ProcessorJobRow, token: string): Promise<void> }): Job {
  return leasedJob({
    name: spec.name,
    failure: `${spec.name}: claiming due jobs failed`,
    concurrency: () => 8,
    // a call to a slow processor may hang: a stop waits stopGraceMs at most, the lease brings the job back
    stopsWithWorker: true,
    env: ({ db, processor, log }): ProcessorJobEnv => ({ db, processor, log }),
    claim: (env, lease) => claimProcessorJobs(env.db, spec.kind, lease.limit, lease.leaseMs, lease.token),
    async work(env, due, token, hand) {
      await Promise.all(
        due.map(async (job) => {
          try {
            await spec.run(env, job, token);
            hand.count();
          } catch (err) {
            if (hand.killed()) return;
            env.log.error(err, `${spec.name}: job ${job.id} (${job.subject}) failed; tried again later`);
            const delay = PROCESSOR_JOB_RETRY_MS[Math.min(job.attempts, PROCESSOR_JOB_RETRY_MS.length - 1)]!;
            await retryProcessorJob(env.db, job.id, token, err instanceof Error ? err.message : String(err), delay).catch(() => {});
          }
        }),
      );
    },
  });
}
