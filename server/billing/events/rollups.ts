// Meter rollups: SQL over the rollup tables (schema/rollups.ts), beside the event table they summarize — the
// only code that writes them. Design (docs/architecture.md, "Meter rollups"):
//
// - Upkeep in the ingest transaction: the INSERT of a batch returns its rows, and in the same statement each
//   meter whose rollups are `ready` adds them to its (customer, UTC hour) buckets with an upsert. A late event
//   lands in its own hour like any other. Count, exact numeric sum, min and max are kept per bucket (avg is
//   sum ÷ count); `unique` meters keep each bucket's distinct values. So every ingest locks the buckets before
//   the list count's row (the statement trigger at the statement's end): two batches taking them in opposite
//   orders deadlock (an upkeep in a statement of its own, after the INSERT, did: tests/api/events-early-insert).
// - A definition change (or a new meter) marks the meter `building`; ingest stops keeping it and reads scan
//   events. The rebuild (worker, or kicked off after the change) takes the organization's ingest lock
//   exclusively — every ingest takes it shared — so no batch is counted twice or missed, recomputes the meter's
//   rollups from the events in one statement, and marks them `ready` unless the definition changed meanwhile.
//   Archiving marks the meter `stopped` (no upkeep); unarchiving rebuilds it.
// - Reads (rollup-reads.ts): whole hours come from the rollups; the part of a range that does not cover a whole
//   hour (and, for quantities in a time zone whose bucket boundary cuts an hour, that hour) is read from events.
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { ADVISORY_LOCK_CLASS, rowsOf as rows, type Queryable } from "../../db/client.js";
import { event, meter as meterTable, meterRollup, meterRollupState, meterRollupValue } from "../../db/schema/index.js";
import type { Aggregation, Filter } from "../../../shared/meter-filter.js";
import { aggregationInputs, filterSql } from "./predicates.js";
import { UUID_RE } from "../../../shared/uuid.js";
import type { EventInsert } from "./repository.js";

export interface RollupMeter {
  id: string;
  filter: Filter;
  aggregation: Aggregation;
}


const hourOf = (ts: SQL) => sql`date_trunc('hour', ${ts}, 'UTC')`;
const rawCustomer = sql`coalesce(${event.customerId}::text, '')`;
const rawExternal = sql`coalesce(${event.externalCustomerId}, '')`;
/** jsonb 'null' stands for "no value" in meter_rollup_value, so a bucket with only such events still exists. */
export const NO_VALUE = sql`'null'::jsonb`;

// ---- the ingest lock --------------------------------------------------------------------------------

/** Taken shared by every ingest and exclusively by a rebuild, per organization, until the transaction ends. */
const ingestLock = (organizationId: string, mode: "shared" | "exclusive") =>
  sql`SELECT ${sql.raw(mode === "shared" ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock")}(${sql.raw(String(ADVISORY_LOCK_CLASS.ingest))}, hashtext(${organizationId}))`;

// ---- upkeep -----------------------------------------------------------------------------------------

/** The INSERT … SELECT that adds `from`'s events (aliased as the event table) to a meter's rollups. */
function rollupInsert(m: RollupMeter, from: SQL, where: SQL, upsert: boolean): SQL {
  const inputs = aggregationInputs(m.aggregation);
  // user events only, as every read of a meter (repository.ts whereOf): system events never reach rollups
  const selected = sql`${from} WHERE ${where} AND ${event.source} = 'user' AND ${filterSql(m.filter)} AND ${inputs.where}`;
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

/** The meters of an organization whose rollups are kept (ready), with their definitions (rows of RollupMeter). */
export const keptMetersSql = (organizationId: string): SQL =>
  sql`SELECT ${meterTable.id} AS id, ${meterTable.filter} AS filter, ${meterTable.aggregation} AS aggregation
      FROM ${meterRollupState} JOIN ${meterTable} ON ${meterTable.id} = ${meterRollupState.meterId}
      WHERE ${meterRollupState.organizationId} = ${organizationId} AND ${meterRollupState.status} = 'ready'
      ORDER BY ${meterTable.id}`;

async function keptMeters(db: Queryable, organizationId: string): Promise<RollupMeter[]> {
  return rows<RollupMeter>(db, keptMetersSql(organizationId));
}

/** The shared ingest lock, as SQL (early-insert.ts sends it itself). */
export const sharedIngestLock = (organizationId: string): SQL => ingestLock(organizationId, "shared");

/**
 * Where a batch's rows come from: the rows the service built from the checked events (JSON of EventInsert; `json`:
 * the same JSON already written, or an expression of it, so that a statement built once can take another batch's
 * as its parameter — rows naming no parent, a domain's usage events: the statement then looks none up), or
 * the `events` array of the request body as sent (early-insert.ts: a batch whose every event needs nothing from
 * the service but an id and, when it has none, the organization's now as its timestamp; with `resolve`, also its
 * parents resolved and `_cost` and `_llm` rewritten here, as the check rewrites them), or that array with what
 * the service decided for some of its events (`patches`, JSON of BatchPatch: the usual path, without writing the
 * batch out again). The service's rows and the body's array with patches or `resolve` name parents (`parent_id`:
 * an event's id or external_id), which the statement resolves (insertBatch).
 */
export type BatchRows = { rows: EventInsert[] } | { json: string | SQL } | { text: string; now: SQL; patches?: string; resolve?: true };

/** Whether the batch's events may name parents (all but a plain text: its `parent_id`s are not read). */
const namesParents = (batch: BatchRows): boolean => "rows" in batch || ("text" in batch && (batch.patches !== undefined || batch.resolve === true));

/**
 * The events of a body's `events` text, each with its place (`n`, 1-based), as `x`: the fields the service
 * stores (`parent_id`, the reference as sent, only when asked: a plain batch has none to read).
 */
const eventsOfText = (text: string, parents: boolean): SQL =>
  parents
    ? sql`ROWS FROM (jsonb_to_recordset(${text}::text::jsonb) AS (
      name text, timestamp timestamptz, customer_id uuid, external_customer_id text, external_id text, parent_id text, metadata jsonb))
    WITH ORDINALITY AS x(name, timestamp, customer_id, external_customer_id, external_id, parent_id, metadata, n)`
    : sql`ROWS FROM (jsonb_to_recordset(${text}::text::jsonb) AS (
      name text, timestamp timestamptz, customer_id uuid, external_customer_id text, external_id text, metadata jsonb))
    WITH ORDINALITY AS x(name, timestamp, customer_id, external_customer_id, external_id, metadata, n)`;

/**
 * What the service decided for the event at `n` (1-based, in the body's order): the metadata keys it rewrote
 * (`_cost`, `_llm`: their checked values).
 */
export interface BatchPatch {
  n: number;
  reserved: Record<string, unknown>;
}

const LLM_KEYS = ["vendor", "model", "prompt", "response", "input_tokens", "cached_input_tokens", "output_tokens", "total_tokens"];
const LLM_COUNTS = ["input_tokens", "cached_input_tokens", "output_tokens", "total_tokens"];

/**
 * The metadata `m` with `_cost` and `_llm` as the check rewrites them (input.ts: costMetadata, llmMetadata).
 * `_cost`: the amount a decimal string, the currency in lower case, no other key; a number's text is float8's,
 * which is JavaScript's String() for the amounts the check lets the early INSERT store (input.ts, costInSql;
 * anything else takes the usual path). `_llm`: its known keys only, the counts as integers (`1.0` is 1, as
 * JSON.parse reads it).
 */
const reservedRewritten = (m: SQL): SQL =>
  sql`CASE WHEN ${m} ?| array['_cost', '_llm'] THEN ${m}
      || CASE WHEN ${m} ? '_cost' THEN jsonb_build_object('_cost', jsonb_build_object(
           'amount', CASE jsonb_typeof(${m} #> '{_cost,amount}') WHEN 'number' THEN (${m} #> '{_cost,amount}')::float8::text
                     ELSE ${m} #>> '{_cost,amount}' END,
           'currency', lower(${m} #>> '{_cost,currency}'))) ELSE '{}'::jsonb END
      || CASE WHEN ${m} ? '_llm' THEN jsonb_build_object('_llm', (
           SELECT jsonb_object_agg(l.key, CASE WHEN l.key = ANY(${sql.raw(`array['${LLM_COUNTS.join("','")}']`)}) THEN to_jsonb((l.value #>> '{}')::numeric::int8) ELSE l.value END)
           FROM jsonb_each(${m} -> '_llm') l WHERE l.key = ANY(${sql.raw(`array['${LLM_KEYS.join("','")}']`)}))) ELSE '{}'::jsonb END
    ELSE coalesce(${m}, '{}'::jsonb) END`;

/** Each event joined to its patch by its place. */
const patchedSelect = (organizationId: string, source: SQL, patches: string, now: SQL): SQL =>
  sql`SELECT x.n, till_uuid_v7(), ${organizationId}::uuid, x.name, 'user', coalesce(x.timestamp, ${now}), x.customer_id,
           x.external_customer_id, x.external_id, x.parent_id,
           CASE WHEN p.reserved IS NULL THEN coalesce(x.metadata, '{}'::jsonb) ELSE coalesce(x.metadata, '{}'::jsonb) || p.reserved END
    FROM ${source}
    LEFT JOIN jsonb_to_recordset(${patches}::text::jsonb) AS p(n bigint, reserved jsonb) ON p.n = x.n`;

function batchSelect(organizationId: string, batch: BatchRows): SQL {
  if ("rows" in batch || "json" in batch) {
    return sql`SELECT x.n, till_uuid_v7(), ${organizationId}::uuid, x.name, 'user', x.timestamp, x.customer_id,
             x.external_customer_id, x.external_id, x.parent_id, coalesce(x.metadata, '{}'::jsonb)
      FROM jsonb_to_recordset(${"json" in batch ? batch.json : JSON.stringify(batch.rows)}::text::jsonb) AS x(
        n bigint, name text, timestamp timestamptz, customer_id uuid, external_customer_id text, external_id text,
        parent_id text, metadata jsonb)`;
  }
  // `||` rebuilds the metadata it is given (about 5 µs for 30 keys): only where there is something to merge
  if (batch.patches !== undefined) return patchedSelect(organizationId, eventsOfText(batch.text, true), batch.patches, batch.now);
  // only the fields the service would store: an `id` or `source` sent in the body is not read, nor a plain
  // batch's `parent_id`
  const resolve = batch.resolve === true;
  return sql`SELECT x.n, till_uuid_v7(), ${organizationId}::uuid, x.name, 'user', coalesce(x.timestamp, ${batch.now}), x.customer_id,
             x.external_customer_id, x.external_id, ${resolve ? sql`x.parent_id` : sql`NULL::text`},
             ${resolve ? reservedRewritten(sql`x.metadata`) : sql`coalesce(x.metadata, '{}'::jsonb)`}
      FROM ${eventsOfText(batch.text, resolve)}`;
}

/** What a batch's INSERT did: the rows inserted; the places (0-based) of events whose parent was not found. */
export interface BatchInserted {
  inserted: number;
  missingParents: number[];
}

/** insertWithUpkeep's answer: one row. */
export interface InsertedRow {
  n: number;
  missing?: number[] | null;
}

/** A row of insertWithUpkeep's answer as BatchInserted. */
export const batchInserted = (row: InsertedRow | undefined): BatchInserted => ({
  inserted: row?.n ?? 0,
  missingParents: row?.missing ?? [],
});

/**
 * One statement inserts the batch (skipping external_ids already stored, and every repeat of an external_id
 * after its first in the batch) and adds what it inserted to every kept meter's rollups. Call inside a
 * transaction: it takes the ingest lock. Events whose parent was not found are inserted without it and named in
 * the answer: the caller refuses the batch and rolls back.
 */
export async function insertEventsWithRollups(db: Queryable, organizationId: string, batch: BatchRows): Promise<BatchInserted> {
  if ("rows" in batch && batch.rows.length === 0) return { inserted: 0, missingParents: [] };
  // in turn: the meters are read once the lock is held (sent together, drizzle's lazy execute went second)
  await db.execute(ingestLock(organizationId, "shared"));
  const meters = await keptMeters(db, organizationId);
  const [row] = await rows<InsertedRow>(db, insertWithUpkeep(organizationId, batch, meters));
  return batchInserted(row);
}

/**
 * The batch's INSERT and, in the same statement, each kept meter's upkeep of what it inserted: one row, `n`
 * inserted and (when the batch may name parents) `missing`, the places (0-based) of events whose parent was not
 * found, or NULL.
 */
export function insertWithUpkeep(organizationId: string, batch: BatchRows, meters: RollupMeter[]): SQL {
  const ins = sql.raw(`"event"`);
  const parents = namesParents(batch);
  // the inserted rows are kept for the meters' upserts only (with none, a row each of a 1,000-event batch: ~2 ms)
  const upkeep = meters.map((m, i) => sql`, ${sql.raw(`r${i}`)} AS (${rollupInsert(m, sql`ins AS ${ins}`, sql`true`, true)} RETURNING 1)`);
  return sql`WITH ${insertBatch(organizationId, batch, meters.length > 0 ? sql`*` : sql`1`, parents)}${sql.join(upkeep, sql``)}
    SELECT count(*)::int AS n${parents ? sql`, (${missingParents}) AS missing` : sql``} FROM ins`;
}

/**
 * Each parent the batch names (`parents`: ref, id; Polar's `parent_id` names an event by its id or its external
 * id): an event of the organization stored before the batch, by external_id (through its claim, which names the
 * event: migration 0070) or else by id (only a ref that is a UUID is looked up, in every month's partition:
 * 1,000 other refs cost about 4 ms more with five months otherwise); else the event of this batch that claimed
 * that external_id (the first carrying it, when it was not stored before). Resolved in the statement, so that a
 * parent in the batch is one it stores.
 */
const resolveParents = (organizationId: string): SQL =>
  sql`parents AS (
      SELECT r.ref, coalesce(
        (SELECT c.event_id FROM event_external_id c
           JOIN ${event} e ON e.organization_id = c.organization_id AND e.id = c.event_id AND e.timestamp = c.event_timestamp
           WHERE c.organization_id = ${organizationId}::uuid AND c.external_id = r.ref),
        CASE WHEN r.ref ~* ${UUID_RE.source} THEN (SELECT e.id FROM ${event} e
           WHERE e.organization_id = ${organizationId}::uuid AND e.id = r.ref::uuid LIMIT 1) END,
        k.event_id) AS id
      FROM (SELECT DISTINCT parent_ref AS ref FROM b WHERE parent_ref IS NOT NULL) r
      LEFT JOIN keys k ON k.external_id = r.ref)`;

/**
 * The places (0-based) of events naming a parent not found (or themselves), a repeat of an external_id earlier
 * in the batch aside (it is skipped, not stored); NULL when there is none.
 */
const missingParents = sql`SELECT array_agg(b.ord - 1 ORDER BY b.ord)::int[] FROM b LEFT JOIN parents p ON p.ref = b.parent_ref
    WHERE b.parent_ref IS NOT NULL AND (p.id IS NULL OR p.id = b.id)
      AND NOT EXISTS (SELECT 1 FROM b f WHERE f.external_id = b.external_id AND f.ord < b.ord)`;

/**
 * The batch's INSERT as CTEs ending in `ins` (each row inserted, `returning` of it), skipping external_ids stored
 * or earlier in the batch; with `parents`, each event's parent resolved (resolveParents). The event table is
 * partitioned by time and so has no unique index on external_id (migration 0060): each external_id is claimed in
 * event_external_id in the same statement, by the first event of the batch that carries it, and only the events
 * whose claim was taken are inserted (0070: the claim names its event). Keys are claimed in their order, as the
 * rollups are upserted in theirs: two batches sharing external_ids wait for each other instead of deadlocking.
 */
function insertBatch(organizationId: string, batch: BatchRows, returning: SQL, parents: boolean): SQL {
  return sql`b AS MATERIALIZED (
      SELECT * FROM (${batchSelect(organizationId, batch)})
        AS s(ord, id, organization_id, name, source, timestamp, customer_id, external_customer_id, external_id, parent_ref, metadata)),
    keys AS (INSERT INTO event_external_id (organization_id, external_id, event_id, event_timestamp)
      SELECT DISTINCT ON (organization_id, external_id) organization_id, external_id, id, timestamp FROM b
      WHERE external_id IS NOT NULL ORDER BY organization_id, external_id, ord
      ON CONFLICT DO NOTHING RETURNING ${parents ? sql`external_id, event_id` : sql`event_id`}),
    ${parents ? sql`${resolveParents(organizationId)},` : sql``}
    ins AS (INSERT INTO ${event} (id, organization_id, name, source, timestamp, customer_id, external_customer_id, external_id, parent_id, metadata)
      SELECT b.id, b.organization_id, b.name, b.source, b.timestamp, b.customer_id, b.external_customer_id, b.external_id,
             ${parents ? sql`p.id` : sql`NULL::uuid`}, b.metadata
      FROM b ${parents ? sql`LEFT JOIN parents p ON p.ref = b.parent_ref` : sql``}
      WHERE b.external_id IS NULL OR b.id IN (SELECT event_id FROM keys)
      RETURNING ${returning})`;
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
