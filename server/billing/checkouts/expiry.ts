// The expiry pass: an open checkout past its expiry already reads as expired (wire.ts: statusOf); this pass
// announces it once, with Polar's `checkout.expired`. Each claimed checkout is stored as expired and its event
// recorded in the outbox in the claiming transaction (a savepoint each, so one that fails is rolled back alone
// and retried on a later pass). Run by the schedule beside the renewals (jobs/schedules.ts), and by a test
// clock's advance at each stop (test-clock/service.ts), each organization at its own now.
import type { Db } from "../../db/client.js";
import { enqueue } from "../../jobs/outbox.js";
import type { WorkerLog } from "../../jobs/worker.js";
import { orgNow } from "../test-clock/clock.js";
import { publishCheckoutEvents } from "./events.js";
import { claimExpiredCheckouts, updateCheckout } from "./repository.js";
import { loadView } from "./state.js";
import { toCheckoutWire } from "./wire.js";

export interface CheckoutExpiryRun {
  db: Db;
  baseURL: string;
  log?: WorkerLog;
  /** Checkouts claimed per transaction. */
  batch?: number;
  /** The wall clock (default: now); each organization expires at its own now (its test clock, if any). */
  now?: Date;
  /** Only this organization's checkouts (a test clock's advance). */
  organizationId?: string;
}

/** Announces every checkout expired by now, once. Returns how many were announced. */
export async function runCheckoutExpiries(run: CheckoutExpiryRun): Promise<number> {
  const batch = run.batch ?? 100;
  const failed: string[] = [];
  let expired = 0;
  for (;;) {
    const wall = run.now ?? new Date();
    const announced: string[] = [];
    const claimed = await run.db.transaction(async (tx) => {
      const due = await claimExpiredCheckouts(tx, wall, batch, failed, run.organizationId);
      const nows = new Map<string, Date>();
      for (const row of due) {
        try {
          const now = nows.get(row.organizationId) ?? (await orgNow(tx, row.organizationId, wall));
          nows.set(row.organizationId, now);
          await tx.transaction(async (sp) => {
            const view = await loadView(sp, row, run.baseURL, true);
            const stored = await updateCheckout(sp, row.id, { status: "expired", modifiedAt: now });
            await enqueue(sp, { type: "checkout.expired", organizationId: row.organizationId, data: toCheckoutWire({ ...view, row: stored }, now) });
          });
          announced.push(row.id);
        } catch (err) {
          failed.push(row.id);
          run.log?.error(err, `checkout expiries: checkout ${row.id} could not be expired`);
        }
      }
      return due.length;
    });
    // the customer's page, if open, hears it (after the commit, as an update's)
    for (const id of announced) publishCheckoutEvents(id, [{ key: "checkout.updated", payload: { status: "expired" } }]);
    expired += announced.length;
    if (claimed < batch) return expired;
  }
}
