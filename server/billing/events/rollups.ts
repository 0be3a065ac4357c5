// Meter rollups: SQL over the rollup tables (schema/rollups.ts), beside the event table they summarize — the
// only code that writes them. Design (docs/architecture.md, "Meter rollups"):
//
// - Upkeep in the ingest transaction: the INSERT of a batch returns its rows, and in the same statement each
//   meter whose rollups are `ready` adds them to its (customer, UTC hour) buckets with an upsert. A late event
//   lands in its own hour like any other. Count, exact numeric sum, min and max are kept per bucket (avg is
//   sum ÷ count); `unique` meters keep each bucket's distinct values.
// - A definition change (or a new meter) marks the meter `building`; ingest stops keeping it and reads scan
//   events. The rebuild (worker, or kicked off after the change) takes the organization's ingest lock
//   exclusively — every ingest takes it shared — so no batch is counted twice or missed, recomputes the meter's
//   rollups from the events in one statement, and marks them `ready` unless the definition changed meanwhile.
//   Archiving marks the meter `stopped` (no upkeep); unarchiving rebuilds it.
// - Reads: whole hours come from the rollups; the part of a range that does not cover a whole hour (and, for
//   quantities in a time zone whose bucket boundary cuts an hour, that hour) is read from events. Both sides
//   produce the same partial states, so the result equals the scan of events exactly.
import { and, eq, gte, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { event, meter as meterTable, meterRollup, meterRollupState, meterRollupValue } from "../../db/schema/index.js";
import type { Aggregation, AggregationFunction, Filter } from "../../../shared/meter-filter.js";
import { aggregationInputs, combineSql, filterSql } from "./predicates.js";
import { whereOf, zeroFilledBuckets, type EventInsert, type EventSelection, type QuantitiesQuery, type QuantityBucket } from "./repository.js";

export interface RollupMeter {
  id: string;
  filter: Filter;
  aggregation: Aggregation;
}

async function rows<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

const HOUR_MS = 3_600_000;
const hourOf = (ts: SQL) => sql`date_trunc('hour', ${ts}, 'UTC')`;
const rawCustomer = sql`coalesce(${event.customerId}::text, '')`;
const rawExternal = sql`coalesce(${event.externalCustomerId}, '')`;
/** jsonb 'null' stands for "no value" in meter_rollup_value, so a bucket with only such events still exists. */
const NO_VALUE = sql`'null'::jsonb`;

// ---- the ingest lock --------------------------------------------------------------------------------

/** Taken shared by every ingest and exclusively by a rebuild, per organization, until the transaction ends. */
const ingestLock = (organizationId: string, mode: "shared" | "exclusive") =>
  sql`SELECT ${sql.raw(mode === "shared" ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock")}(7316, hashtext(${organizationId}))`;

// ---- upkeep -----------------------------------------------------------------------------------------

/** The INSERT … SELECT that adds `from`'s events (aliased as the event table) to a meter's rollups. */
function rollupInsert(m: RollupMeter, from: SQL, where: SQL, upsert: boolean): SQL {
  const inputs = aggregationInputs(m.aggregation);
  const selected = sql`${from} WHERE ${where} AND ${filterSql(m.filter)} AND ${inputs.where}`;
  if (inputs.distinct) {
    return sql`INSERT INTO ${meterRollupValue} AS r (meter_id, customer_id, external_customer_id, bucket, value)
      SELECT DISTINCT ${m.id}::uuid, ${rawCustomer}, ${rawExternal}, ${hourOf(sql`${event.timestamp}`)}, coalesce(${inputs.distinct}, ${NO_VALUE})
      FROM ${selected} ORDER BY 2, 3, 4, 5
      ${upsert ? sql`ON CONFLICT DO NOTHING` : sql``}`;
  }
  const n = inputs.number;
  return sql`INSERT INTO ${meterRollup} AS r (meter_id, customer_id, external_customer_id, bucket, events, total, minimum, maximum)
    SELECT ${m.id}::uuid, ${rawCustomer}, ${rawExternal}, ${hourOf(sql`${event.timestamp}`)}, count(*),
           ${n ? sql`sum(${n})` : sql`NULL::numeric`}, ${n ? sql`min((${n})::float8)` : sql`NULL::float8`},
           ${n ? sql`max((${n})::float8)` : sql`NULL::float8`}
    FROM ${selected} GROUP BY 2, 3, 4 ORDER BY 2, 3, 4
    ${
      upsert
        ? sql`ON CONFLICT (meter_id, customer_id, external_customer_id, bucket) DO UPDATE SET
            events = r.events + excluded.events, total = r.total + excluded.total,
            minimum = least(r.minimum, excluded.minimum), maximum = greatest(r.maximum, excluded.maximum)`
        : sql``
    }`;
}

/** The meters of an organization whose rollups are kept (ready), with their definitions. */
async function keptMeters(db: Queryable, organizationId: string): Promise<RollupMeter[]> {
  const found = await db
    .select({ id: meterTable.id, filter: meterTable.filter, aggregation: meterTable.aggregation })
    .from(meterRollupState)
    .innerJoin(meterTable, eq(meterTable.id, meterRollupState.meterId))
    .where(and(eq(meterRollupState.organizationId, organizationId), eq(meterRollupState.status, "ready")))
    .orderBy(meterTable.id);
  return found.map((r) => ({ id: r.id, filter: r.filter as unknown as Filter, aggregation: r.aggregation as unknown as Aggregation }));
}

/**
 * One statement inserts the batch (skipping external_ids already stored) and adds what it inserted to every
 * kept meter's rollups; returns how many were inserted. Call inside a transaction: it takes the ingest lock.
 */
export async function insertEventsWithRollups(db: Queryable, organizationId: string, batch: EventInsert[]): Promise<number> {
  if (batch.length === 0) return 0;
  // in turn: the meters are read once the lock is held (sent together, drizzle's lazy execute went second)
  await db.execute(ingestLock(organizationId, "shared"));
  const meters = await keptMeters(db, organizationId);
  const ins = sql.raw(`"event"`);
  // the inserted rows are kept for the meters' upserts only (with none, a row each of a 1,000-event batch: ~2 ms)
  const upkeep = meters.map((m, i) => sql`, ${sql.raw(`r${i}`)} AS (${rollupInsert(m, sql`ins AS ${ins}`, sql`true`, true)} RETURNING 1)`);
  const [row] = await rows<{ n: number }>(
    db,
    sql`WITH ins AS (
      INSERT INTO ${event} (id, organization_id, name, source, timestamp, customer_id, external_customer_id, external_id, parent_id, metadata)
      SELECT coalesce(x.id, gen_random_uuid()), ${organizationId}::uuid, x.name, 'user', x.timestamp, x.customer_id,
             x.external_customer_id, x.external_id, x.parent_id, coalesce(x.metadata, '{}'::jsonb)
      FROM jsonb_to_recordset(${JSON.stringify(batch)}::text::jsonb) AS x(
        id uuid, name text, timestamp timestamptz, customer_id uuid, external_customer_id text, external_id text,
        parent_id uuid, metadata jsonb)
      ON CONFLICT (organization_id, external_id) WHERE external_id IS NOT NULL DO NOTHING
      RETURNING ${meters.length > 0 ? sql`*` : sql`1`}
    )${sql.join(upkeep, sql``)} SELECT count(*)::int AS n FROM ins`,
  );
  return row?.n ?? 0;
}

// ---- state ------------------------------------------------------------------------------------------

/** A new meter, or a filter/aggregation change: the meter's rollups are due a rebuild (reads scan events). */
export async function markRollupsBuilding(db: Queryable, organizationId: string, meterId: string): Promise<void> {
  await db
    .insert(meterRollupState)
    .values({ meterId, organizationId, status: "building" })
    .onConflictDoUpdate({
      target: meterRollupState.meterId,
      set: { status: "building", version: sql`${meterRollupState.version} + 1`, modifiedAt: sql`now()` },
    });
}

/** Archived: no more upkeep, rollups dropped; reads of the meter scan events. */
export async function stopRollups(db: Queryable, organizationId: string, meterId: string): Promise<void> {
  await db
    .insert(meterRollupState)
    .values({ meterId, organizationId, status: "stopped" })
    .onConflictDoUpdate({
      target: meterRollupState.meterId,
      set: { status: "stopped", version: sql`${meterRollupState.version} + 1`, modifiedAt: sql`now()` },
    });
  await db.delete(meterRollup).where(eq(meterRollup.meterId, meterId));
  await db.delete(meterRollupValue).where(eq(meterRollupValue.meterId, meterId));
}

/** Which of these meters (of this organization) have complete rollups. */
export async function readyMeterIds(db: Queryable, organizationId: string, meterIds: string[]): Promise<Set<string>> {
  if (meterIds.length === 0) return new Set();
  const found = await db
    .select({ id: meterRollupState.meterId })
    .from(meterRollupState)
    .where(
      and(
        eq(meterRollupState.organizationId, organizationId),
        inArray(meterRollupState.meterId, meterIds),
        eq(meterRollupState.status, "ready"),
      ),
    );
  return new Set(found.map((r) => r.id));
}

/** Every meter of this organization with complete rollups (a handful of rows: read whole, no meter ids needed). */
export async function readyMeterIdsOfOrganization(db: Queryable, organizationId: string): Promise<Set<string>> {
  const found = await db
    .select({ id: meterRollupState.meterId })
    .from(meterRollupState)
    .where(and(eq(meterRollupState.organizationId, organizationId), eq(meterRollupState.status, "ready")));
  return new Set(found.map((r) => r.id));
}

/** Meters due a rebuild, any organization (the worker's sweep). */
export async function metersBuilding(db: Queryable, limit: number): Promise<Array<{ meterId: string; organizationId: string }>> {
  return db
    .select({ meterId: meterRollupState.meterId, organizationId: meterRollupState.organizationId })
    .from(meterRollupState)
    .where(eq(meterRollupState.status, "building"))
    .orderBy(meterRollupState.modifiedAt)
    .limit(limit);
}

/**
 * Rebuilds one meter's rollups from its events and marks them ready — unless its definition changed or it was
 * archived meanwhile (then another rebuild, or none, is due). Call inside a transaction: it takes the
 * organization's ingest lock exclusively, so batches in flight finish first and new ones wait for the commit.
 * Returns whether the meter is ready now.
 */
export async function rebuildRollups(db: Queryable, organizationId: string, meterId: string): Promise<boolean> {
  const [state] = await db
    .select({ version: meterRollupState.version, status: meterRollupState.status })
    .from(meterRollupState)
    .where(and(eq(meterRollupState.organizationId, organizationId), eq(meterRollupState.meterId, meterId)));
  if (!state || state.status !== "building") return state?.status === "ready";
  await db.execute(ingestLock(organizationId, "exclusive"));
  const [row] = await db
    .select({ filter: meterTable.filter, aggregation: meterTable.aggregation })
    .from(meterTable)
    .where(and(eq(meterTable.organizationId, organizationId), eq(meterTable.id, meterId)));
  if (!row) return false;
  const m: RollupMeter = { id: meterId, filter: row.filter as unknown as Filter, aggregation: row.aggregation as unknown as Aggregation };
  await db.delete(meterRollup).where(eq(meterRollup.meterId, meterId));
  await db.delete(meterRollupValue).where(eq(meterRollupValue.meterId, meterId));
  await db.execute(rollupInsert(m, sql`${event}`, sql`${event.organizationId} = ${organizationId}::uuid`, false));
  const done = await db
    .update(meterRollupState)
    .set({ status: "ready", modifiedAt: sql`now()` })
    .where(
      and(eq(meterRollupState.meterId, meterId), eq(meterRollupState.version, state.version), eq(meterRollupState.status, "building")),
    )
    .returning({ id: meterRollupState.meterId });
  return done.length > 0;
}

// ---- reads ------------------------------------------------------------------------------------------

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
  const rawCols = (ts: SQL) => {
    const cols: SQL[] = [];
    if (p.bucketing) cols.push(sql`${p.bucketing.of(ts)} AS bucket`);
    if (p.who) cols.push(sql`coalesce(${event.customerId}::text, 'x:' || ${event.externalCustomerId}) AS who`);
    if (unique) cols.push(sql`coalesce(${inputs.distinct}, ${NO_VALUE}) AS v`);
    else {
      const n = inputs.number;
      cols.push(sql`1::bigint AS cnt`, n ? sql`(${n}) AS tot` : sql`NULL::numeric AS tot`);
      cols.push(n ? sql`(${n})::float8 AS mn, (${n})::float8 AS mx` : sql`NULL::float8 AS mn, NULL::float8 AS mx`);
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
  const from = sql`${iso(wholeFrom)}::timestamptz`;
  const to = sql`${iso(wholeTo)}::timestamptz`;
  const parts: SQL[] = [
    rollupFrom([sql`${rb} >= ${from}`, sql`${rb} < ${to}`, ...(p.bucketing ? [p.bucketing.whole(rb)] : [])]),
    sql`SELECT ${rawCols(ts)} FROM ${event} WHERE ${rawWhere([gte(event.timestamp, start), lt(event.timestamp, from)])}`,
    sql`SELECT ${rawCols(ts)} FROM ${event} WHERE ${rawWhere([gte(event.timestamp, to), sql`${event.timestamp} <= ${end}`])}`,
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

/** The meter's value over a group of partial states (null over none, except count). */
function finalSql(func: AggregationFunction): SQL {
  switch (func) {
    case "count":
      return sql`coalesce(sum(cnt), 0)::float8`;
    case "sum":
      return sql`sum(tot)::float8`;
    case "avg":
      return sql`(sum(tot) / sum(cnt))::float8`;
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
}

/** Several totals in one statement, each its meter over its selection (and range), read through the rollups. */
export async function rollupTotals(db: Queryable, organizationId: string, items: RollupTotalItem[]): Promise<number[]> {
  if (items.length === 0) return [];
  const parts = items.map(
    (item, i) =>
      sql`SELECT ${sql.raw(String(i))} AS i, ${finalSql(item.meter.aggregation.func)} AS q FROM (${partsSql({
        organizationId,
        meter: item.meter,
        selection: item.selection,
        range: item.range,
      })}) AS parts`,
  );
  const result = await rows<{ i: number; q: number | null }>(db, sql.join(parts, sql` UNION ALL `));
  const totals = items.map(() => 0);
  for (const r of result) totals[Number(r.i)] = r.q ?? 0;
  return totals;
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
  const grouped = q.customerAggregation
    ? sql`SELECT bucket, ${combineSql(q.customerAggregation, sql`q`)} AS q FROM (
            SELECT bucket, who, ${final} AS q FROM (${parts}) AS parts GROUP BY GROUPING SETS ((bucket, who), (who))
          ) per_customer GROUP BY bucket`
    : sql`SELECT bucket, ${final} AS q FROM (${parts}) AS parts GROUP BY GROUPING SETS ((bucket), ())`;
  return zeroFilledBuckets(db, q, grouped);
}
