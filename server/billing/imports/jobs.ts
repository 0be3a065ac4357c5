// The imports' jobs: runs (read the processor's account, plan, apply) and hand-overs (one subscription at a time
// from the processor to till, or back), each over leased rows: a worker that dies leaves its lease to expire and the
// work is taken up again, where it was safe to redo. They run where the worker has the server secret (the
// organizations' keys are sealed with it).
import type { Queryable } from "../../db/client.js";
import type { BillingSource } from "../../payments/billing-import.js";
import { processorAccounts } from "../../payments/index.js";
import { leasedJob } from "../../tasks/lease-loop.js";
import type { JobContext } from "../../tasks/job.js";
import { workHandover } from "./handover.js";
import { claimHandovers, claimRuns, updateRun } from "./repository.js";
import { workRun } from "./run.js";

/** Each organization's source, kept a minute so that concurrent hand-overs share its pace (one request bucket). */
function sources(ctx: JobContext, secret: string, stripeApiUrl: string, limit: number | undefined) {
  const accounts = processorAccounts({ secret, stripeApiUrl, baseURL: ctx.config.baseURL ?? "" });
  const kept = new Map<string, { at: number; source: Promise<BillingSource | null> }>();
  return (db: Queryable, organizationId: string): Promise<BillingSource | null> => {
    const hit = kept.get(organizationId);
    if (hit && Date.now() - hit.at < 60_000) return hit.source;
    const source = accounts.billingSource(db, organizationId, limit === undefined ? {} : { limit });
    kept.set(organizationId, { at: Date.now(), source });
    return source;
  };
}

function env(ctx: JobContext) {
  const { secret, config } = ctx;
  if (!secret || !config.payments) return undefined;
  return {
    db: ctx.db,
    log: ctx.log,
    baseURL: config.baseURL ?? "",
    leaseMs: ctx.opts.leaseMs,
    lanes: ctx.database.driver === "postgres" ? 4 : 1,
    sourceOf: sources(ctx, secret, config.payments.stripeApiUrl, config.payments.stripeImportRate),
  };
}

/** How long a worker holds a hand-over it claimed. */
const HANDOVER_LEASE_MS = 5 * 60_000;

export const jobs = [
  leasedJob({
    name: "billing-imports",
    failure: "imports: an import run failed",
    concurrency: () => 1,
    env,
    claim: (c, lease) => claimRuns(c.db, lease.limit, lease.leaseMs, lease.token),
    async work(c, due, token, hand) {
      for (const run of due) {
        if (!hand.running()) break;
        await workRun(c, run, token).catch(async (err: unknown) => {
          // not Stripe's refusal (a run records those itself): the run stops here, and running it again continues
          c.log.error(err, `imports: the import ${run.id} of organization ${run.organizationId} stopped`);
          const error = "The import stopped on an unexpected error: run it again to continue where it stopped.";
          await updateRun(c.db, run.id, token, { status: "failed", error, finishedAt: new Date(), lockedBy: null, lockedUntil: null });
        });
        hand.count();
      }
    },
  }),
  leasedJob({
    name: "subscription-handovers",
    failure: "imports: handing subscriptions over failed",
    concurrency: () => 16,
    env,
    // a hand-over's Stripe calls may take a minute (the client's 20 s timeout, tried three times) and more at the pace:
    // its lease outlasts them, so no other worker (or undo) acts on it meanwhile; a dead worker's wait a little longer
    claim: (c, lease) => claimHandovers(c.db, lease.limit, Math.max(lease.leaseMs, HANDOVER_LEASE_MS), lease.token),
    async work(c, due, token, hand) {
      await Promise.all(due.map(async (h) => {
        if (!hand.running()) return;
        await workHandover(c, h, token).catch((err: unknown) => c.log.error(err, `imports: the hand-over of subscription ${h.subscriptionId} failed`));
        hand.count();
      }));
    },
  }),
];
