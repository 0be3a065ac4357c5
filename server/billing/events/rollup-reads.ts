// Meter reads through the rollups (rollups.ts keeps them): whole UTC hours come from the rollup tables, and the
// part of a range that does not cover a whole hour (and, for quantities in a time zone whose bucket boundary cuts
// an hour, that hour) from events — for count, sum and avg, the smaller side of an edge hour: its events inside
// the range, or the hour's rollup minus its events outside. Both sides produce the same partial states (counts
// and numeric totals add and subtract exactly), so the result equals the scan of events exactly.
import { and, eq, gte, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { queryOf, sendQuery } from "../../db/prepared.js";
import { event, meterRollup, meterRollupValue, meterUsageStamp } from "../../db/schema/index.js";
import type { AggregationFunction } from "../../../shared/meter-filter.js";
import { aggregationInputs, combineSql } from "./predicates.js";
import { whereOf, zeroFilledBuckets, type EventSelection, type QuantitiesQuery, type QuantityBucket } from "./repository.js";
import { NO_VALUE, type RollupMeter } from "./rollups.js";

const HOUR_MS = 3_600_000;

type CustomerSet = { ids: string[]; externalIds: string[] };

function rollupCustomerWhere(table: typeof meterRollup | typeof meterRollupValue, s: EventSelection): SQL[] {
  const clause = (c: CustomerSet) =>
    or(inArray(table.customerId, c.ids.length > 0 ? c.ids : [""]), inArray(table.externalCustomerId, c.externalIds)) ?? sql`false`;
  const out: SQL[] = [];
  if (s.customers) out.push(clause(s.customers));
  if (s.externalCustomers) out.push(clause(s.externalCustomers));
  return out;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at `ms` in minutes, or null when the runtime does not know the zone. */
function offsetMinutes(timezone: string, ms: number): number | null {
  try {
    let f = offsetFormats.get(timezone);
    if (!f) {
      f = new Intl.DateTimeFormat("en-US", { timeZone: timezone, timeZoneName: "longOffset" });
      if (offsetFormats.size < 1000) offsetFormats.set(timezone, f);
    }
    const name = f.formatToParts(ms).find((part) => part.type === "timeZoneName")?.value ?? "";
    const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
    if (!m) return null;
    return m[1] ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  } catch {
    return null;
  }
}

/**
 * Whether the zone's offset is a whole number of hours over [from, to] (checked every 3 days and at both ends):
 * then local bucket boundaries (whole local hours) fall on UTC hours and no hour is cut. Otherwise (India's
 * +05:30, Lord Howe's half-hour DST, a zone the runtime does not know) the cut hours are found in SQL.
 */
function wholeHourZone(timezone: string, from: number, to: number): boolean {
  const step = 3 * 86_400_000;
  for (let t = from; ; t = Math.min(to, t + step)) {
    const off = offsetMinutes(timezone, t);
    if (off === null || off % 60 !== 0) return false;
    if (t >= to) return true;
  }
}

/** A bucket expression (from a timestamptz) and which UTC hours lie wholly within one of its buckets. */
interface Bucketing {
  timezone: string;
  of: (ts: SQL) => SQL;
  /** true for an hour whose events all fall in one bucket */
  whole: (hour: SQL) => SQL;
}

interface PartsSpec {
  organizationId: string;
  meter: RollupMeter;
  selection: EventSelection;
  /** inclusive bounds as sent; none: everything */
  range?: { start: string; end: string } | undefined;
  bucketing?: Bucketing | undefined;
  who?: boolean | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Rows of partial states — (bucket?, who?, cnt, tot, mn, mx), or (bucket?, who?, v) for unique — from the
 * rollups for whole hours and from events for the rest; `finalSql` turns a group of them into the value.
 */
function partsSql(p: PartsSpec): SQL {
  const inputs = aggregationInputs(p.meter.aggregation);
  const unique = inputs.distinct !== null;
  const table = unique ? meterRollupValue : meterRollup;
  const rb = sql`${table.bucket}`;
  const rawWhere = (extra: Array<SQL | undefined>) =>
    and(whereOf(p.organizationId, { ...p.selection, meter: p.meter }), ...extra) ?? sql`true`;
  /** The partial state of each event; `taken`: its count and total negated (an hour's rollup minus these events). */
  const rawCols = (ts: SQL, taken = false) => {
    const cols: SQL[] = [];
    if (p.bucketing) cols.push(sql`${p.bucketing.of(ts)} AS bucket`);
    if (p.who) cols.push(sql`coalesce(${event.customerId}::text, 'x:' || ${event.externalCustomerId}) AS who`);
    if (unique) cols.push(sql`coalesce(${inputs.distinct}, ${NO_VALUE}) AS v`);
    else {
      const n = inputs.number;
      const sign = sql.raw(taken ? "-" : "");
      cols.push(sql`${sign}1::bigint AS cnt`, n ? sql`${sign}(${n}) AS tot` : sql`NULL::numeric AS tot`);
      cols.push(n && !taken ? sql`(${n})::float8 AS mn, (${n})::float8 AS mx` : sql`NULL::float8 AS mn, NULL::float8 AS mx`);
    }
    return sql.join(cols, sql`, `);
  };
  const rollupCols = () => {
    const cols: SQL[] = [];
    if (p.bucketing) cols.push(sql`${p.bucketing.of(rb)} AS bucket`);
    if (p.who) {
      cols.push(sql`CASE WHEN ${table.customerId} <> '' THEN ${table.customerId} ELSE 'x:' || ${table.externalCustomerId} END AS who`);
    }
    cols.push(
      unique
        ? sql`${meterRollupValue.value} AS v`
        : sql`${meterRollup.events} AS cnt, ${meterRollup.total} AS tot, ${meterRollup.minimum} AS mn, ${meterRollup.maximum} AS mx`,
    );
    return sql.join(cols, sql`, `);
  };
  const rollupFrom = (extra: SQL[]) =>
    sql`SELECT ${rollupCols()} FROM ${table} WHERE ${and(eq(table.meterId, p.meter.id), ...rollupCustomerWhere(table, p.selection), ...extra)}`;
  if (!p.range) return rollupFrom([]);

  const startMs = Date.parse(p.range.start);
  const endMs = Date.parse(p.range.end);
  const wholeFrom = Math.ceil(startMs / HOUR_MS) * HOUR_MS;
  const wholeTo = Math.floor(endMs / HOUR_MS) * HOUR_MS;
  const ts = sql`${event.timestamp}`;
  const start = sql`${p.range.start}::timestamptz`;
  const end = sql`${p.range.end}::timestamptz`;
  // no whole hour in the range (or a range before 1970, which ISO strings of its hours would not express): events only
  if (!(wholeFrom < wholeTo) || !(startMs >= 0)) {
    return sql`SELECT ${rawCols(ts)} FROM ${event} WHERE ${rawWhere([gte(event.timestamp, start), sql`${event.timestamp} <= ${end}`])}`;
  }
  // An edge of the range that cuts an hour is read from events: the part of the hour inside the range, or — when
  // that is the larger part and the aggregation subtracts (count, sum, avg) — the hour's rollup minus the events
  // of the part outside, so that at most half an hour of events is read at each edge (none at an end of "now").
  const subtracts = !unique && p.meter.aggregation.func !== "min" && p.meter.aggregation.func !== "max";
  const edgesFromRollups = subtracts && (!p.bucketing || wholeHourZone(p.bucketing.timezone, wholeFrom - HOUR_MS, wholeTo + HOUR_MS));
  const firstHour = wholeFrom - HOUR_MS;
  const startFromRollup = edgesFromRollups && startMs - firstHour < wholeFrom - startMs;
  const endFromRollup = edgesFromRollups && wholeTo + HOUR_MS - endMs < endMs - wholeTo;
  const from = sql`${iso(startFromRollup ? firstHour : wholeFrom)}::timestamptz`;
  const to = sql`${iso(endFromRollup ? wholeTo + HOUR_MS : wholeTo)}::timestamptz`;
  const parts: SQL[] = [
    rollupFrom([sql`${rb} >= ${from}`, sql`${rb} < ${to}`, ...(p.bucketing ? [p.bucketing.whole(rb)] : [])]),
    startFromRollup
      ? sql`SELECT ${rawCols(ts, true)} FROM ${event} WHERE ${rawWhere([gte(event.timestamp, from), lt(event.timestamp, start)])}`
      : sql`SELECT ${rawCols(ts)} FROM ${event} WHERE ${rawWhere([gte(event.timestamp, start), lt(event.timestamp, from)])}`,
    endFromRollup
      ? sql`SELECT ${rawCols(ts, true)} FROM ${event} WHERE ${rawWhere([sql`${event.timestamp} > ${end}`, lt(event.timestamp, to)])}`
      : sql`SELECT ${rawCols(ts)} FROM ${event} WHERE ${rawWhere([gte(event.timestamp, to), sql`${event.timestamp} <= ${end}`])}`,
  ];
  if (p.bucketing && !wholeHourZone(p.bucketing.timezone, wholeFrom, wholeTo)) {
    const cut = sql`SELECT h FROM generate_series(${from}, ${to} - interval '1 hour', interval '1 hour') AS h WHERE NOT ${p.bucketing.whole(sql`h`)}`;
    parts.push(
      // LATERAL: one index range per such hour (none in a whole-hour time zone), never a join over the range's events
      sql`SELECT e.* FROM (${cut}) AS cut CROSS JOIN LATERAL (
            SELECT ${rawCols(ts)} FROM ${event}
            WHERE ${rawWhere([sql`${event.timestamp} >= cut.h`, sql`${event.timestamp} < cut.h + interval '1 hour'`])} OFFSET 0) AS e`,
    );
  }
  return sql.join(
    parts.map((q) => sql`(${q})`),
    sql` UNION ALL `,
  );
}

/**
 * The meter's value over a group of partial states (null over none, except count; avg also over a group whose
 * events were all subtracted again: an edge hour's rollup minus the events outside the range).
 */
function finalSql(func: AggregationFunction): SQL {
  switch (func) {
    case "count":
      return sql`coalesce(sum(cnt), 0)::float8`;
    case "sum":
      return sql`sum(tot)::float8`;
    case "avg":
      return sql`(sum(tot) / nullif(sum(cnt), 0))::float8`;
    case "min":
      return sql`min(mn)::float8`;
    case "max":
      return sql`max(mx)::float8`;
    case "unique":
      return sql`count(DISTINCT nullif(v, ${NO_VALUE}))::float8`;
  }
}

export interface RollupTotalItem {
  meter: RollupMeter;
  selection: EventSelection;
  /** inclusive; none: all of the selection's events */
  range?: { start: string; end: string } | undefined;
  /** also read the usage stamp of this customer (usageStampSql), in the same statement as the total */
  stampOf?: { id: string; externalId: string | null } | undefined;
}

/**
 * A customer's usage stamp of a meter with complete rollups: the meter's rollup version and how many ingests
 * changed the customer's rollups of it (meter_usage_stamp), as text; null while the meter is not ready. Two reads
 * of the meter's usage over the same range that saw the same stamp read the same quantity. The entitlement facts'
 * statement (entitlements/facts-repository.ts) computes the same text.
 */
const usageStampSql = (meterId: string, c: { id: string; externalId: string | null }): SQL =>
  sql`(SELECT st.version::text || ':' || coalesce((SELECT sum(u.writes) FROM ${meterUsageStamp} u WHERE u.meter_id = st.meter_id
      AND (u.customer_id = ${c.id} OR u.external_customer_id = ${c.externalId})), 0)::text
    FROM meter_rollup_state st WHERE st.meter_id = ${meterId}::uuid AND st.status = 'ready')`;

/**
 * The statements of recent totals, by what they were built from (plain data: the same items build the same text
 * and parameters), at most BUILT_LIMIT (oldest first out): a check or a hold reading a customer's period again
 * builds nothing, and sends it prepared (db/prepared.ts sendQuery).
 */
const built = new Map<string, { text: string; params: Array<string | null> }>();
const BUILT_LIMIT = 500;

function totalsStatement(organizationId: string, items: RollupTotalItem[]): { text: string; params: Array<string | null> } {
  const key = JSON.stringify([organizationId, items]);
  const hit = built.get(key);
  if (hit) return hit;
  const parts = items.map(
    (item, i) =>
      sql`SELECT ${sql.raw(String(i))} AS i, ${finalSql(item.meter.aggregation.func)} AS q, ${
        item.stampOf ? usageStampSql(item.meter.id, item.stampOf) : sql`NULL::text`
      } AS stamp FROM (${partsSql({ organizationId, meter: item.meter, selection: item.selection, range: item.range })}) AS parts`,
  );
  const query = queryOf(sql.join(parts, sql` UNION ALL `));
  if (built.size >= BUILT_LIMIT) built.delete(built.keys().next().value!);
  built.set(key, query);
  return query;
}

/**
 * Several totals in one statement, each its meter over its selection (and range), read through the rollups; with
 * each total, the usage stamp its item asked for (`stampOf`), read in the same snapshot.
 */
export async function rollupTotalsStamped(db: Queryable, organizationId: string, items: RollupTotalItem[]): Promise<Array<{ total: number; stamp: string | null }>> {
  if (items.length === 0) return [];
  const result = (await sendQuery(db, totalsStatement(organizationId, items))) as Array<{ i: number; q: number | null; stamp: string | null }>;
  const out = items.map(() => ({ total: 0, stamp: null as string | null }));
  for (const r of result) out[Number(r.i)] = { total: r.q ?? 0, stamp: r.stamp ?? null };
  return out;
}

/** Several totals in one statement, each its meter over its selection (and range), read through the rollups. */
export async function rollupTotals(db: Queryable, organizationId: string, items: RollupTotalItem[]): Promise<number[]> {
  return (await rollupTotalsStamped(db, organizationId, items)).map((t) => t.total);
}

/** The same answer as repository.meterQuantities, through the rollups (no metadata filter: the caller checks). */
export async function rollupQuantities(
  db: Queryable,
  organizationId: string,
  meter: RollupMeter,
  q: QuantitiesQuery,
): Promise<{ buckets: QuantityBucket[]; total: number }> {
  const unit = q.interval;
  const local = (ts: SQL) => sql`date_trunc(${unit}, ${ts} AT TIME ZONE ${q.timezone})`;
  const bucketing: Bucketing = {
    timezone: q.timezone,
    of: local,
    whole: (h) => sql`(${local(h)} = ${local(sql`(${h} + interval '1 hour' - interval '1 microsecond')`)})`,
  };
  const parts = partsSql({
    organizationId,
    meter,
    selection: q.selection,
    range: { start: q.start, end: q.end },
    bucketing,
    who: q.customerAggregation !== undefined,
  });
  const final = finalSql(meter.aggregation.func);
  // a customer counts in a bucket where it has events (a count of none: its edge events all subtracted again)
  const having = meter.aggregation.func === "unique" ? sql`` : sql` HAVING sum(cnt) > 0`;
  const grouped = q.customerAggregation
    ? sql`SELECT bucket, ${combineSql(q.customerAggregation, sql`q`)} AS q FROM (
            SELECT bucket, who, ${final} AS q FROM (${parts}) AS parts GROUP BY GROUPING SETS ((bucket, who), (who))${having}
          ) per_customer GROUP BY bucket`
    : sql`SELECT bucket, ${final} AS q FROM (${parts}) AS parts GROUP BY GROUPING SETS ((bucket), ())`;
  return zeroFilledBuckets(db, q, grouped);
}
