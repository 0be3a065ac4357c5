// What an alert check measures, fast (issue 29 §2: ingest with alerts must stay within 10% of ingest without):
// the consumed units of (customer, meter, period) items. A `sum` or `count` meter whose rollups are complete is
// read in one statement over its hourly rollups for all items at once — the whole hours from the hour the period
// started in — less the part of that first hour before the period started, read once from the events (the exact
// path) and remembered in this process: that part of the past does not change (an event sent late with a
// timestamp in it is the one thing it misses). Other aggregations, and meters still being rebuilt, go through
// the exact path (meters' meterUsage), as the renewal reads them.
import { sql } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../../db/client.js";
import { readyMeterIdsOfOrganization } from "../../events/service.js";
import { meterUsage, type MeterWire } from "../service.js";

export interface MeasureItem {
  meter: MeterWire;
  customer: { id: string; externalId: string | null };
  start: Date;
  end: Date;
}

const HOUR = 3600_000;
const firstHourCache = new Map<string, number>();

/** One statement: each item's sum (or count) over its meter's hourly rollups from the start's hour to the end. */
async function rollupSums(db: Queryable, items: MeasureItem[]): Promise<number[]> {
  if (items.length === 0) return [];
  const json = JSON.stringify(
    items.map((it, i) => ({
      i,
      m: it.meter.id,
      c: it.customer.id,
      x: it.customer.externalId ?? "",
      s: new Date(Math.floor(it.start.getTime() / HOUR) * HOUR).toISOString(),
      e: it.end.toISOString(),
      n: it.meter.aggregation.func === "count",
    })),
  );
  // by id, and by the external id carried without an id (the rollups' two keys: neither counted twice)
  const found = await rowsOf<{ i: number; q: string | number | null }>(
    db,
    sql`SELECT p.i, sum(CASE WHEN p.n THEN r.events::numeric ELSE coalesce(r.total, 0) END) AS q
      FROM jsonb_to_recordset(${json}::jsonb) AS p(i int, m uuid, c text, x text, s timestamptz, e timestamptz, n boolean)
      JOIN meter_rollup r ON r.meter_id = p.m AND r.bucket >= p.s AND r.bucket < p.e
        AND (r.customer_id = p.c OR (p.x <> '' AND r.customer_id = '' AND r.external_customer_id = p.x))
      GROUP BY p.i`,
  );
  const out = items.map(() => 0);
  for (const r of found) out[Number(r.i)] = Number(r.q ?? 0);
  return out;
}

/** The consumed units of each item over [start, end]. */
export async function measureConsumed(db: Queryable, organizationId: string, items: MeasureItem[]): Promise<number[]> {
  if (items.length === 0) return [];
  const ready = await readyMeterIdsOfOrganization(db, organizationId);
  const fast: number[] = [];
  const exact: number[] = [];
  items.forEach((it, i) => (["sum", "count"].includes(it.meter.aggregation.func) && ready.has(it.meter.id) ? fast : exact).push(i));
  const keyOf = (it: MeasureItem) => `${it.meter.id}/${it.customer.id}/${it.start.getTime()}`;
  // the part of each first hour before its period started, once per period (none when the period starts on the hour)
  const missing = fast.filter((i) => {
    const it = items[i]!;
    return it.start.getTime() % HOUR !== 0 && !firstHourCache.has(keyOf(it));
  });
  const usageQuery = (it: MeasureItem, start: Date, end: Date) => ({ meterId: it.meter.id, customer: it.customer, start, end });
  const [sums, before, exactUsage] = await Promise.all([
    rollupSums(db, fast.map((i) => items[i]!)),
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
  fast.forEach((i, n) => (out[i] = Math.max(0, (sums[n] ?? 0) - (firstHourCache.get(keyOf(items[i]!)) ?? 0))));
  exact.forEach((i, n) => (out[i] = exactUsage.consumed[n] ?? 0));
  return out;
}
