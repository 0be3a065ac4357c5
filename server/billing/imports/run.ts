// One import run, in the worker: read the processor's account, plan against what earlier runs left, and either
// keep the plan (a dry run) or apply it and leave the subscriptions to their hand-overs. A worker that dies mid-way
// leaves its lease to expire; the next one starts the run over, and the links make that a continuation.
import { BillingSourceError } from "../../payments/billing-import.js";
import { orgNow } from "../clock.js";
import { applyPlan } from "./apply.js";
import { settledItem, type HandoverDeps } from "./handover.js";
import { countsOf, linkKey, planImport, type PlanItem } from "./plan.js";
import * as repo from "./repository.js";

export interface RunDeps extends HandoverDeps {
  /** Customers written at once (ApplyContext.lanes). */
  lanes: number;
  /** How long a lease lasts; the run renews its own while it works. */
  leaseMs: number;
}

/** Renews the run's lease while `work` runs (a read of 10,000 customers outlasts one lease). */
async function holdingLease<T>(deps: RunDeps, run: repo.ImportRow, token: string, work: () => Promise<T>): Promise<T> {
  const renew = () => repo.updateRun(deps.db, run.id, token, { lockedUntil: new Date(Date.now() + deps.leaseMs) }).catch(() => false);
  const timer = setInterval(() => void renew(), Math.max(1000, Math.floor(deps.leaseMs / 3)));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

const failed = (deps: RunDeps, run: repo.ImportRow, token: string, error: string) =>
  repo.updateRun(deps.db, run.id, token, { status: "failed", error, finishedAt: new Date(), lockedBy: null, lockedUntil: null });

/** Works one leased run to its next resting state (planned, moving, succeeded or failed). */
export async function workRun(deps: RunDeps, run: repo.ImportRow, token: string): Promise<void> {
  const source = await deps.sourceOf(deps.db, run.organizationId);
  if (!source) {
    await failed(deps, run, token, "Stripe is not connected: connect it with `till stripe connect`, then import again.");
    return;
  }
  await holdingLease(deps, run, token, async () => {
    if (!(await repo.updateRun(deps.db, run.id, token, { status: "reading" }))) return;
    let snapshot;
    // what was read so far, kept at most once a second for whoever follows the run
    const read: Record<string, number> = {};
    let kept = 0;
    const onPage = (kind: string, n: number) => {
      read[kind] = n;
      if (Date.now() - kept < 1000) return;
      kept = Date.now();
      void repo.updateRun(deps.db, run.id, token, { read: { ...read } }).catch(() => false);
    };
    try {
      snapshot = await source.read(onPage);
    } catch (err) {
      if (!(err instanceof BillingSourceError)) throw err;
      await failed(deps, run, token, `Stripe could not be read: ${err.message}`);
      return;
    }
    const existing = await repo.existingOf(deps.db, run.organizationId, source.processor);
    const plan = planImport(snapshot, existing, await orgNow(deps.db, run.organizationId));
    const account = { accountId: snapshot.account.id, livemode: snapshot.account.livemode, read };
    if (run.dryRun) {
      await repo.replaceItems(deps.db, run.id, run.organizationId, plan.items);
      await finish(deps, run, token, plan.items, { ...account, status: "planned", finishedAt: new Date() }, source.requests);
      return;
    }
    if (!(await repo.updateRun(deps.db, run.id, token, { ...account, status: "importing" }))) return;
    const items = new Map<string, PlanItem>(plan.items.map((i) => [linkKey(i.kind, i.sourceId), i]));
    const links = new Map([...existing.links].map(([k, v]) => [k, v.tillId]));
    await applyPlan({ db: deps.db, organizationId: run.organizationId, importId: run.id, processor: source.processor, baseURL: deps.baseURL, links, items, lanes: deps.lanes }, plan);
    // hand-overs are due as soon as staged (Stripe's requests go on while the rest is written): those settled
    // meanwhile are written into the items; the others, locked until the items are written, then find theirs
    await deps.db.transaction(async (tx) => {
      for (const h of await repo.lockHandoversOfRun(tx, run.id)) {
        const item = items.get(linkKey("subscription", h.sourceSubscriptionId));
        const settled = settledItem(h);
        if (item && settled) Object.assign(item, settled);
      }
      await repo.replaceItems(tx, run.id, run.organizationId, plan.items);
    });
    await finish(deps, run, token, plan.items, { status: "moving" }, source.requests);
    await repo.settleRuns(deps.db, [run.id]);
  });
}

async function finish(deps: RunDeps, run: repo.ImportRow, token: string, items: PlanItem[], patch: Parameters<typeof repo.updateRun>[3], requests: { sent: number; throttled: number; limit: number }) {
  const { counts, blocked } = countsOf(items);
  await repo.updateRun(deps.db, run.id, token, { ...patch, counts, blocked, requests: { ...requests }, lockedBy: null, lockedUntil: null });
}
