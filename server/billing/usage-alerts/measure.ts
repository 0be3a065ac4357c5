// What an alert check measures, fast (ingest with alerts must stay within 10% of ingest without):
// the consumed units of (customer, meter, period) items. A `sum` or `count` meter whose rollups are complete is
// summed over its hourly rollups in the statement that reads the subscriptions (repository.ts,
// openSubscriptionsWithSums) — the whole hours from the hour the period started in — less the part of that first
// hour before the period started, read once from the events (the exact path) and remembered in this process:
// that part of the past does not change (an event sent late with a timestamp in it is the one thing it misses).
// Other aggregations, meters still being rebuilt and a subscription's own credit pool (the events naming it) go
// through the exact path (meters' meterUsage), as the renewal reads them.
import type { Queryable } from "../../db/client.js";
import { meterUsage } from "../meters/service.js";
import type { MeterWire } from "../meters/wire.js";

export interface MeasureItem {
  meter: MeterWire;
  customer: { id: string; externalId: string | null };
  start: Date;
  end: Date;
  /** The rollups' sum from the start's hour, when the meter is summed that way (isFast). */
  sum?: number | undefined;
  /** A subscription's own credit pool: only the events naming it count (read exactly, from the events). */
  subscriptionId?: string | undefined;
}

const HOUR = 3600_000;
const firstHourCache = new Map<string, number>();

/** Whether a meter is measured over its rollups (a sum or a count with complete rollups). */
export const isFast = (meter: MeterWire, ready: Set<string>) => ["sum", "count"].includes(meter.aggregation.func) && ready.has(meter.id);

/** The consumed units of each item over [start, end]. */
export async function measureConsumed(db: Queryable, organizationId: string, items: MeasureItem[]): Promise<number[]> {
  if (items.length === 0) return [];
  const fast: number[] = [];
  const exact: number[] = [];
  items.forEach((it, i) => (it.sum !== undefined && it.subscriptionId === undefined ? fast : exact).push(i));
  const keyOf = (it: MeasureItem) => `${it.meter.id}/${it.customer.id}/${it.start.getTime()}`;
  // the part of each first hour before its period started, once per period (none when the period starts on the hour)
  const missing = fast.filter((i) => {
    const it = items[i]!;
    return it.start.getTime() % HOUR !== 0 && !firstHourCache.has(keyOf(it));
  });
  const usageQuery = (it: MeasureItem, start: Date, end: Date) => ({ meterId: it.meter.id, customer: it.customer, start, end, subscriptionId: it.subscriptionId });
  const [before, exactUsage] = await Promise.all([
    meterUsage(
      db,
      organizationId,
      missing.map((i) => {
        const it = items[i]!;
        return usageQuery(it, new Date(Math.floor(it.start.getTime() / HOUR) * HOUR), new Date(it.start.getTime() - 1));
      }),
    ),
    meterUsage(db, organizationId, exact.map((i) => usageQuery(items[i]!, items[i]!.start, items[i]!.end))),
  ]);
  if (firstHourCache.size > 50_000) firstHourCache.clear();
  missing.forEach((i, n) => firstHourCache.set(keyOf(items[i]!), before.consumed[n] ?? 0));
  const out = items.map(() => 0);
  fast.forEach((i) => (out[i] = Math.max(0, (items[i]!.sum ?? 0) - (firstHourCache.get(keyOf(items[i]!)) ?? 0))));
  exact.forEach((i, n) => (out[i] = exactUsage.consumed[n] ?? 0));
  return out;
}
