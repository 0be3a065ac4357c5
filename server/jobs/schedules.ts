// Periodic jobs beside the webhook worker: renewals of subscriptions whose period has ended (then dunning's
// retries and the checkout expiries, billing/checkouts/expiry.ts, which claim the same way). Any number of
// server processes may run them on one database: due subscriptions are claimed with FOR UPDATE SKIP LOCKED,
// and each is renewed under its lock in the claiming transaction, so no two processes renew one subscription
// for the same period; one that fails is rolled back alone (and retried on a later run): a renewal that writes
// only its own rows is written with the batch's (renewal/writes.ts, a savepoint per renewal only if those
// statements fail), any other in a savepoint of its own. A batch reads what its renewals share once
// (customers, products, prices, usage, payment methods…), and its orders take their invoice numbers in one
// statement at its end, so processes renewing one organization do not wait on its invoice counter for a whole
// batch (docs/decisions.md, "The billing run").
import type { Queryable } from "../db/client.js";
import type { PaymentProcessor } from "../payments/processor.js";
import { claimDueSubscriptions } from "../billing/renewal/repository.js";
import { renewLocked } from "../billing/renewal/renewal.js";
import { finishBatch, prepareBatch, type RenewalBatch, type RenewalOutput } from "../billing/renewal/batch.js";
import { canDefer, NeedsSavepoint, writeDeferred } from "../billing/renewal/writes.js";
import type { SubscriptionRow } from "../billing/subscriptions/wire.js";
import { orgNow } from "../billing/test-clock/clock.js";
import { runDunning } from "../billing/dunning/service.js";
import { runCheckoutExpiries } from "../billing/checkouts/expiry.js";
import type { ScheduledPass } from "./claim.js";
import type { WorkerLog } from "./worker.js";

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
        // what the batch's renewals read, one query per kind (renewal.ts: prepareBatch); each organization's now once
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
  await Promise.all(Array.from({ length: Math.max(1, Math.trunc(run.concurrency ?? 1)) }, claimLoop));
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

export interface Schedules {
  stop(): Promise<void>;
}

/** Runs the renewals, then the dunning retries, then the checkout expiries, every `intervalMs` until stopped. */
export function startSchedules(deps: Omit<RenewalRun, "now" | "organizationId"> & { intervalMs?: number }): Schedules {
  const intervalMs = deps.intervalMs ?? 60_000;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    running = runRenewals(deps)
      // failed renewal charges whose retry is due (billing/dunning), after the renewals of the same pass
      .then(() => runDunning(deps))
      // open checkouts past their expiry, announced once with checkout.expired (billing/checkouts/expiry.ts)
      .then(() => runCheckoutExpiries(deps))
      .then(() => undefined)
      .catch((err: unknown) => deps.log?.error(err, "renewals: run failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
