// The expiry pass: an open checkout past its expiry already reads as expired (wire.ts: statusOf); this pass
// announces it once, with Polar's `checkout.expired`. Each claimed checkout is stored as expired and its event
// recorded in the outbox in the claiming transaction (a savepoint each, so one that fails is rolled back alone
// and retried on a later pass). Run by the schedule beside the renewals (jobs/schedules.ts), and by a test
// clock's advance at each stop (test-clock/service.ts), each organization at its own now.
import { enqueue } from "../../db/outbox.js";
import { runClaimLoop, type ScheduledPass } from "../../tasks/claim.js";
import { orgNow } from "../clock.js";
import { publishCheckoutEvents } from "./events.js";
import { claimExpiredCheckouts, updateCheckout } from "./repository.js";
import { loadView } from "./state.js";
import { toCheckoutWire } from "./wire.js";

export interface CheckoutExpiryRun extends ScheduledPass {
  baseURL: string;
}

/** Announces every checkout expired by now, once. Returns how many were announced. */
export async function runCheckoutExpiries(run: CheckoutExpiryRun): Promise<number> {
  return runClaimLoop({
    db: run.db,
    batch: run.batch ?? 100,
    now: run.now,
    nowOf: orgNow,
    claim: (tx, wall, batch, failed) => claimExpiredCheckouts(tx, wall, batch, failed, run.organizationId),
    idOf: (row) => row.id,
    handle: async (sp, row, now) => {
      const view = await loadView(sp, row, run.baseURL, true);
      const stored = await updateCheckout(sp, row.id, { status: "expired", modifiedAt: now });
      await enqueue(sp, { type: "checkout.expired", organizationId: row.organizationId, data: toCheckoutWire({ ...view, row: stored }, now) });
    },
    failed: (row, err) => run.log?.error(err, `checkout expiries: checkout ${row.id} could not be expired`),
    // the customer's page, if open, hears it (after the commit, as an update's)
    committed: (rows) => {
      for (const row of rows) publishCheckoutEvents(row.id, [{ key: "checkout.updated", payload: { status: "expired" } }]);
    },
  });
}
