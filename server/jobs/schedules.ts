// Periodic jobs beside the webhook worker: renewals of subscriptions whose period has ended. Any number of
// server processes may run them on one database: due subscriptions are claimed with FOR UPDATE SKIP LOCKED,
// and each is renewed under its lock in a savepoint of the claiming transaction, so no two processes renew one
// subscription for the same period, and one that fails is rolled back alone (and retried on a later run).
import type { Db } from "../db/client.js";
import type { PaymentProcessor } from "../payments/processor.js";
import { claimDueSubscriptions } from "../billing/subscriptions/renewal-repository.js";
import { renewLocked } from "../billing/subscriptions/renewal.js";
import { orgNow } from "../billing/test-clock/clock.js";
import { runDunning } from "../billing/dunning/service.js";
import type { WorkerLog } from "./worker.js";

export interface RenewalRun {
  db: Db;
  processor: PaymentProcessor;
  baseURL: string;
  log?: WorkerLog;
  /** Subscriptions claimed per transaction. */
  batch?: number;
  /** The wall clock (default: now); each organization renews at its own now (its test clock, if any). */
  now?: Date;
  /** Only this organization's subscriptions (a test clock's advance). */
  organizationId?: string;
}

/**
 * Renews every subscription due at `now` (one period each pass; one that is several periods behind is renewed
 * again in the next pass). Returns how many renewals were made; failures are logged and skipped for this run.
 */
export async function runRenewals(run: RenewalRun): Promise<number> {
  const batch = run.batch ?? 50;
  const failed: string[] = [];
  let renewed = 0;
  for (;;) {
    const wall = run.now ?? new Date();
    const claimed = await run.db.transaction(async (tx) => {
      const due = await claimDueSubscriptions(tx, wall, batch, failed, run.organizationId);
      for (const sub of due) {
        try {
          const now = await orgNow(tx, sub.organizationId, wall);
          await tx.transaction((sp) => renewLocked(sp, run, sub, now, false));
          renewed += 1;
        } catch (err) {
          failed.push(sub.id);
          run.log?.error(err, `renewals: subscription ${sub.id} could not be renewed`);
        }
      }
      return due.length;
    });
    if (claimed < batch) return renewed;
  }
}

export interface Schedules {
  stop(): Promise<void>;
}

/** Runs the renewals, then the dunning retries, every `intervalMs` until stopped. */
export function startSchedules(deps: Omit<RenewalRun, "now" | "organizationId"> & { intervalMs?: number }): Schedules {
  const intervalMs = deps.intervalMs ?? 60_000;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    running = runRenewals(deps)
      // failed renewal charges whose retry is due (billing/dunning), after the renewals of the same pass
      .then(() => runDunning(deps))
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
