// The billing run: renews every subscription due (the schedule's pass, a test clock's advance). Any number of
// server processes may run it on one database: due subscriptions are claimed with FOR UPDATE SKIP LOCKED,
// and each is renewed under its lock in the claiming transaction, so no two processes renew one subscription
// for the same period; one that fails is rolled back alone (and retried on a later run): a renewal that writes
// only its own rows is written with the batch's (writes.ts, a savepoint per renewal only if those
// statements fail), any other in a savepoint of its own. A batch reads what its renewals share once
// (customers, products, prices, usage, payment methods…), and its orders take their invoice numbers in one
// statement at its end, so processes renewing one organization do not wait on its invoice counter for a whole
// batch (docs/decisions.md, "The billing run").
import type { Queryable } from "../../db/client.js";
import type { ScheduledPass } from "../../tasks/claim.js";
import type { WorkerLog } from "../../tasks/job.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import { orgNow } from "../clock.js";
import { finishBatch, prepareBatch, type RenewalBatch, type RenewalOutput } from "./batch.js";
import { claimDueSubscriptions } from "../subscriptions/service.js";
import { renewLocked } from "./renewal.js";
import { canDefer, NeedsSavepoint, writeDeferred } from "./writes.js";
import { renewals } from "../../metrics/registry.js";

export interface RenewalRun extends ScheduledPass {
  processor: PaymentProcessor;
  baseURL: string;
  log?: WorkerLog;
  /**
   * Claiming transactions this process runs at once (default 1), each on its own connection (the pool needs
   * one more): their batches are disjoint (SKIP LOCKED) and take the invoice counter only at their end, so
   * they overlap their waits on the database.
   */
  concurrency?: number;
  /** Timings (benches): each renewal's own time, and each batch's from its claim to its commit. */
  observe?: { renewal?(ms: number): void; batch?(size: number, ms: number): void };
}

/**
 * Renews every subscription due at `now` (one period each pass; one that is several periods behind is renewed
 * again in the next pass). Returns how many renewals were made; failures are logged and skipped for this run.
 */
export async function runRenewals(run: RenewalRun): Promise<number> {
  const batch = run.batch ?? 50;
  const failed: string[] = [];
  let renewed = 0;
  const claimLoop = async (): Promise<void> => {
    for (;;) {
      const wall = run.now ?? new Date();
      const started = performance.now();
      const claimed = await run.db.transaction(async (tx) => {
        const due = await claimDueSubscriptions(tx, wall, batch, failed, run.organizationId);
        if (due.length === 0) return 0;
        // what the batch's renewals read, one query per kind (batch.ts: prepareBatch); each organization's now once
        const shared = await prepareBatch(tx, run, due);
        const nows = new Map<string, Date>();
        const outputs: RenewalOutput[] = [];
        for (const sub of due) {
          try {
            const now = nows.get(sub.organizationId) ?? (await orgNow(tx, sub.organizationId, wall));
            nows.set(sub.organizationId, now);
            const t = performance.now();
            outputs.push(await renewInBatch(tx, run, shared, sub, now));
            run.observe?.renewal?.(performance.now() - t);
          } catch (err) {
            failed.push(sub.id);
            run.log?.error(err, `renewals: subscription ${sub.id} could not be renewed`);
          }
        }
        // the deferred renewals' rows, a statement per table for all of them (renewal/writes.ts)
        const kept = await writeDeferred(tx, outputs, (out, err) => {
          const id = out.deferred?.terms.id ?? "";
          failed.push(id);
          run.log?.error(err, `renewals: subscription ${id} could not be renewed`);
        });
        // the batch's orders take their invoice numbers now, in one statement per organization, and its events
        // go to the outbox: the organization's invoice counter is locked from here to the commit only
        await finishBatch(tx, shared, kept);
        renewed += kept.length;
        return due.length;
      });
      if (claimed > 0) run.observe?.batch?.(claimed, performance.now() - started);
      if (claimed < batch) return;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.trunc(run.concurrency ?? 1)) }, claimLoop));
  } finally {
    renewals.inc({ outcome: "done" }, renewed);
    renewals.inc({ outcome: "failed" }, failed.length);
  }
  return renewed;
}

/**
 * One renewal of a claimed batch: deferred when it writes only its own rows (renewal/writes.ts: nothing written
 * now, so no savepoint), else — or when it finds out, before charging, that it must write more — in a savepoint
 * of the claiming transaction, so a failure rolls back this renewal alone.
 */
async function renewInBatch(tx: Queryable, run: RenewalRun, batch: RenewalBatch, sub: SubscriptionRow, now: Date): Promise<RenewalOutput> {
  if (canDefer(batch, sub)) {
    const out: RenewalOutput = { orders: [], events: [] };
    try {
      await renewLocked(tx, run, sub, now, false, { batch, out, deferred: true });
      return out;
    } catch (err) {
      if (!(err instanceof NeedsSavepoint)) throw err;
    }
  }
  const out: RenewalOutput = { orders: [], events: [] };
  await tx.transaction((sp) => renewLocked(sp, run, sub, now, false, { batch, out }));
  return out;
}
