// The UTC hours a period boundary cuts (a zone with a half- or quarter-hour offset), read from the source rows:
// the scan of repository.ts restricted to those hours, its sums named as the rollups' columns so that rollups.ts
// adds them to the periods the rollups answered (docs/metrics.md, "Rollups").
import type { Queryable } from "../../db/client.js";
import { CANCELLATION_REASONS } from "../../../shared/cancellation-reasons.js";
import * as repo from "./repository.js";

const REASONS = new Set<string>(CANCELLATION_REASONS);

/** The sums of the rows in `ranges`, per period start (a start before `from`: rows of the sums before). */
export async function cutHours(db: Queryable, s: repo.Scope, from: number, to: number, ranges: readonly repo.Range[]) {
  const [orders, levels, subscriptions, checkouts, events] = await Promise.all([
    repo.orderBuckets(db, s, from, to, ranges),
    repo.levelBuckets(db, s, from, to, ranges),
    repo.subscriptionEvents(db, s, from, to, ranges),
    repo.checkoutBuckets(db, s, from, to, ranges),
    repo.eventBuckets(db, s, from, to, ranges),
  ]);
  const out = new Map<number, Record<string, number>>();
  const add = (b: number, k: string, v: number) => {
    const sums = out.get(b) ?? {};
    sums[k] = (sums[k] ?? 0) + v;
    out.set(b, sums);
  };
  for (const r of [...orders.buckets, ...levels.buckets]) {
    for (const [k, v] of Object.entries(r)) if (k !== "b") add(Number(r.b), k, Number(v));
  }
  for (const e of subscriptions) {
    const b = Number(e.b);
    if (e.kind === "new") add(b, "new_subscriptions", Number(e.n));
    else if (e.kind === "churned") add(b, "churned", Number(e.n));
    else {
      add(b, "canceled", Number(e.n));
      if (e.reason && REASONS.has(e.reason)) add(b, `canceled_${e.reason}`, Number(e.n));
    }
  }
  for (const c of checkouts) {
    add(Number(c.b), "checkouts", Number(c.checkouts));
    add(Number(c.b), "succeeded_checkouts", Number(c.succeeded));
  }
  // the customers with events are a distinct count: users.ts counts the cut hours' with the rest
  for (const e of events.buckets) add(Number(e.b), "costs", Number(e.costs));
  return [...out].map(([b, sums]) => ({ b, sums }));
}
