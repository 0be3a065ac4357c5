// SQL over the event table — the only code that reads or writes it (usage may move to a columnar store).
// Every function takes the caller's organization id and filters by it.
import { and, asc, desc, eq, gte, ilike, inArray, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { rowsOf as rows, type Queryable } from "../../db/client.js";
import { event } from "../../db/schema/index.js";
import type { Aggregation, AggregationFunction, Filter } from "../../../shared/meter-filter.js";
import { likePattern, metadataWhere } from "../listing.js";
import { filteredTotal, listTotal } from "../list-counts.js";
import { aggregationSql, combineSql, filterSql } from "./predicates.js";

export type EventRow = typeof event.$inferSelect;


// ---- ingest -----------------------------------------------------------------------------------------

/** An event of a batch as the service checked it (rollups.ts, BatchRows). */
export interface EventInsert {
  /** its place in the batch, 1-based */
  n: number;
  name: string;
  timestamp: string;
  customer_id: string | null;
  external_customer_id: string | null;
  external_id: string | null;
  /** the parent as named: an event's id or external_id (resolved by the INSERT) */
  parent_id: string | null;
  metadata: Record<string, unknown>;
}

// ---- selection ------------------------------------------------------------------------------------

/** Which events a read looks at. Customer lists are already resolved both ways by the service. */
export interface EventSelection {
  /** events of these customers: by customer_id, or by the external ids those customers carry */
  customers?: { ids: string[]; externalIds: string[] } | undefined;
  /** events sent for these external customer ids, or for the customers carrying them */
  externalCustomers?: { ids: string[]; externalIds: string[] } | undefined;
  names?: string[] | undefined;
  /** names containing this text (event names search) */
  nameContains?: string | undefined;
  sources?: string[] | undefined;
  /** inclusive bounds, ISO strings */
  start?: string | undefined;
  end?: string | undefined;
  metadata?: Record<string, string[]> | undefined;
  filter?: Filter | undefined;
  /** a meter's selection: its filter and what its aggregation can read */
  meter?: { filter: Filter; aggregation: Aggregation } | undefined;
  query?: { text: string; customerIds: string[] } | undefined;
  parentId?: string | undefined;
  rootsOnly?: boolean | undefined;
}

const customerClause = (c: { ids: string[]; externalIds: string[] }) =>
  or(inArray(event.customerId, c.ids), inArray(event.externalCustomerId, c.externalIds));

export function whereOf(organizationId: string, s: EventSelection): SQL {
  const clauses: Array<SQL | undefined> = [eq(event.organizationId, organizationId)];
  if (s.customers) clauses.push(customerClause(s.customers));
  if (s.externalCustomers) clauses.push(customerClause(s.externalCustomers));
  if (s.names) clauses.push(inArray(event.name, s.names));
  if (s.nameContains) clauses.push(ilike(event.name, likePattern(s.nameContains)));
  if (s.sources) clauses.push(inArray(event.source, s.sources));
  if (s.start) clauses.push(gte(event.timestamp, sql`${s.start}::timestamptz`));
  if (s.end) clauses.push(lte(event.timestamp, sql`${s.end}::timestamptz`));
  clauses.push(...metadataWhere(event.metadata, s.metadata));
  if (s.filter) clauses.push(filterSql(s.filter));
  // a meter measures the usage sellers send, never till's own system events (Polar's meters count user events)
  if (s.meter) clauses.push(eq(event.source, "user"), filterSql(s.meter.filter), aggregationSql(s.meter.aggregation).where);
  if (s.query) {
    const pattern = likePattern(s.query.text);
    clauses.push(
      or(
        ilike(event.name, pattern),
        ilike(event.source, pattern),
        ilike(event.externalCustomerId, pattern),
        sql`${event.metadata}::text ILIKE ${pattern}`,
        inArray(event.customerId, s.query.customerIds),
      ),
    );
  }
  if (s.parentId) clauses.push(eq(event.parentId, s.parentId));
  else if (s.rootsOnly) clauses.push(isNull(event.parentId));
  return and(...clauses) ?? sql`true`;
}

// ---- reads ----------------------------------------------------------------------------------------

export async function findEvent(db: Queryable, organizationId: string, id: string): Promise<EventRow | undefined> {
  const [row] = await db
    .select()
    .from(event)
    .where(and(eq(event.organizationId, organizationId), eq(event.id, id)))
    .limit(1);
  return row;
}

export async function listEvents(
  db: Queryable,
  organizationId: string,
  selection: EventSelection,
  order: "asc" | "desc",
  pageNo: number,
  limit: number,
): Promise<{ rows: EventRow[]; total: number }> {
  const where = whereOf(organizationId, selection);
  const direction = order === "asc" ? asc : desc;
  const unfiltered = Object.values(selection).every((v) => v === undefined || v === false);
  const offset = (pageNo - 1) * limit;
  const ordering = [direction(event.timestamp), direction(event.id)];
  const [items, maintained] = await Promise.all([
    offset === 0
      ? db.select().from(event).where(where).orderBy(...ordering).limit(limit)
      : // a deeper page skips its offset in the index (ids only), then reads its own rows: see listing.ts
        db
          .select()
          .from(event)
          .where(inArray(event.id, db.select({ id: event.id }).from(event).where(where).orderBy(...ordering).limit(limit).offset(offset)))
          .orderBy(...ordering),
    unfiltered ? listTotal(db, organizationId, "event") : undefined,
  ]);
  const total =
    maintained ??
    (await filteredTotal(pageNo, limit, items.length, async () => {
      const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(event).where(where);
      return count?.n ?? 0;
    }));
  return { rows: items, total };
}

/** How many direct children each event has (`child_count`). */
export async function childCounts(db: Queryable, organizationId: string, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const found = await db
    .select({ parentId: event.parentId, n: sql<number>`count(*)::int` })
    .from(event)
    .where(and(eq(event.organizationId, organizationId), inArray(event.parentId, ids)))
    .groupBy(event.parentId);
  return new Map(found.map((r) => [r.parentId ?? "", r.n]));
}

export type EventNameSortKey = "name" | "occurrences" | "first_seen" | "last_seen";

export interface EventNameRow {
  name: string;
  source: string;
  occurrences: number;
  first_seen_ms: number;
  last_seen_ms: number;
}

export async function listEventNames(
  db: Queryable,
  organizationId: string,
  selection: EventSelection,
  sorting: Array<{ key: EventNameSortKey; desc: boolean }>,
  pageNo: number,
  limit: number,
): Promise<{ rows: EventNameRow[]; total: number }> {
  const where = whereOf(organizationId, selection);
  const columns: Record<EventNameSortKey, SQL> = {
    name: sql`name`,
    occurrences: sql`occurrences`,
    first_seen: sql`first_seen_ms`,
    last_seen: sql`last_seen_ms`,
  };
  const orderBy = sql.join(
    [...sorting.map((s) => sql`${columns[s.key]} ${sql.raw(s.desc ? "DESC" : "ASC")}`), sql`name ASC`, sql`source ASC`],
    sql`, `,
  );
  const [items, count] = await Promise.all([
    rows<EventNameRow>(
      db,
      sql`SELECT name, source, count(*)::int AS occurrences,
                 (extract(epoch from min(timestamp)) * 1000)::float8 AS first_seen_ms,
                 (extract(epoch from max(timestamp)) * 1000)::float8 AS last_seen_ms
          FROM ${event} WHERE ${where} GROUP BY name, source
          ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${(pageNo - 1) * limit}`,
    ),
    rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${event} WHERE ${where} GROUP BY name, source) g`),
  ]);
  return { rows: items, total: count[0]?.n ?? 0 };
}

// ---- meter quantities -----------------------------------------------------------------------------

export type TimeInterval = "hour" | "day" | "week" | "month" | "year";

export interface QuantitiesQuery {
  meter: { filter: Filter; aggregation: Aggregation };
  selection: EventSelection;
  start: string;
  end: string;
  interval: TimeInterval;
  timezone: string;
  customerAggregation?: AggregationFunction | undefined;
}

export interface QuantityBucket {
  ts_ms: number;
  quantity: number;
}

/**
 * One bucket per interval from the start's interval to the end's, in the given time zone, zero-filled,
 * plus the total over the whole range. Events are read once: the per-bucket values and the total come
 * out of one GROUPING SETS pass, bounded by [start, end] so the (organization, customer, timestamp)
 * indexes do the work whatever the table's size.
 */
export async function meterQuantities(
  db: Queryable,
  organizationId: string,
  q: QuantitiesQuery,
): Promise<{ buckets: QuantityBucket[]; total: number }> {
  const where = whereOf(organizationId, { ...q.selection, meter: q.meter, start: q.start, end: q.end });
  const agg = aggregationSql(q.meter.aggregation);
  const unit = q.interval;
  const local = sql`date_trunc(${unit}, ${event.timestamp} AT TIME ZONE ${q.timezone})`;
  // per bucket (bucket IS NOT NULL) and over the range (bucket IS NULL)
  const grouped = q.customerAggregation
    ? sql`SELECT bucket, ${combineSql(q.customerAggregation, sql`q`)} AS q FROM (
            SELECT ${local} AS bucket,
                   coalesce(${event.customerId}::text, 'x:' || ${event.externalCustomerId}) AS who,
                   ${agg.value} AS q
            FROM ${event} WHERE ${where}
            GROUP BY GROUPING SETS ((1, 2), (2))
          ) per_customer GROUP BY bucket`
    : sql`SELECT ${local} AS bucket, ${agg.value} AS q FROM ${event} WHERE ${where} GROUP BY GROUPING SETS ((1), ())`;
  return zeroFilledBuckets(db, q, grouped);
}

/**
 * One bucket per interval from the start's interval to the end's, in the query's time zone, zero-filled, and the
 * total: `grouped` answers (bucket, q) rows per local bucket plus one row with a NULL bucket for the whole range
 * (GROUPING SETS). Shared by the raw scan (meterQuantities) and the rollups (rollups.ts).
 */
export async function zeroFilledBuckets(db: Queryable, q: QuantitiesQuery, grouped: SQL): Promise<{ buckets: QuantityBucket[]; total: number }> {
  const unit = q.interval;
  const result = await rows<{ bucket_ms: number | null; quantity: number | null }>(
    db,
    sql`WITH series AS (
          SELECT generate_series(
            date_trunc(${unit}, ${q.start}::timestamptz AT TIME ZONE ${q.timezone}),
            ${q.end}::timestamptz AT TIME ZONE ${q.timezone},
            ('1 ' || ${unit})::interval) AS bucket
        ), measured AS (${grouped})
        SELECT (extract(epoch from (s.bucket AT TIME ZONE ${q.timezone})) * 1000)::float8 AS bucket_ms,
               coalesce(m.q, 0)::float8 AS quantity
        FROM series s LEFT JOIN measured m ON m.bucket = s.bucket
        UNION ALL
        SELECT NULL, coalesce((SELECT q FROM measured WHERE bucket IS NULL), 0)::float8
        ORDER BY 1 NULLS LAST`,
  );
  const buckets: QuantityBucket[] = [];
  let total = 0;
  for (const r of result) {
    if (r.bucket_ms === null) total = r.quantity ?? 0;
    else buckets.push({ ts_ms: r.bucket_ms, quantity: r.quantity ?? 0 });
  }
  return { buckets, total };
}

/** A meter's quantity over everything a selection holds (no buckets): a customer's consumption. */
export async function meterTotal(
  db: Queryable,
  organizationId: string,
  meter: { filter: Filter; aggregation: Aggregation },
  selection: EventSelection,
): Promise<number> {
  const where = whereOf(organizationId, { ...selection, meter });
  const [row] = await rows<{ q: number | null }>(
    db,
    sql`SELECT ${aggregationSql(meter.aggregation).value} AS q FROM ${event} WHERE ${where}`,
  );
  return row?.q ?? 0;
}

/**
 * Several meter totals in one statement (one round trip): each item its meter over its own selection, in
 * order. Subscriptions' usage over their periods reads a whole page of them this way.
 */
export async function meterTotals(
  db: Queryable,
  organizationId: string,
  items: Array<{ meter: { filter: Filter; aggregation: Aggregation }; selection: EventSelection }>,
): Promise<number[]> {
  if (items.length === 0) return [];
  const parts = items.map(
    (item, i) =>
      sql`SELECT ${sql.raw(String(i))} AS i, (${aggregationSql(item.meter.aggregation).value})::float8 AS q FROM ${event} WHERE ${whereOf(organizationId, { ...item.selection, meter: item.meter })}`,
  );
  const result = await rows<{ i: number; q: number | null }>(db, sql.join(parts, sql` UNION ALL `));
  const totals = items.map(() => 0);
  for (const r of result) totals[Number(r.i)] = r.q ?? 0;
  return totals;
}

/** System events, each once per organization and `onceKey` (its external id). */
export async function insertSystemEvents(
  db: Queryable,
  rows: Array<{ organizationId: string; name: string; customerId: string | null; timestamp: Date; metadata: Record<string, string | number | boolean>; onceKey: string }>,
): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(rows.map((r) => ({
    organization_id: r.organizationId, name: r.name, customer_id: r.customerId, timestamp: r.timestamp.toISOString(),
    metadata: r.metadata, once_key: r.onceKey,
  })));
  // once: the key claimed in event_external_id in the same statement (the partitioned table has no unique index on it)
  // by one of the rows carrying it, which alone is inserted; in the keys' order so that concurrent claims never
  // deadlock
  await db.execute(sql`WITH r AS MATERIALIZED (
      SELECT x.*, till_uuid_v7() AS id FROM jsonb_to_recordset(${json}::text::jsonb)
        AS x(organization_id uuid, name text, customer_id uuid, timestamp timestamptz, metadata jsonb, once_key text)),
    keys AS (INSERT INTO event_external_id (organization_id, external_id, event_id, event_timestamp)
      SELECT DISTINCT ON (organization_id, once_key) organization_id, once_key, id, timestamp FROM r ORDER BY organization_id, once_key
      ON CONFLICT DO NOTHING RETURNING event_id)
    INSERT INTO ${event} (id, organization_id, name, source, timestamp, customer_id, external_id, metadata)
    SELECT r.id, r.organization_id, r.name, 'system', r.timestamp, r.customer_id, r.once_key, r.metadata
    FROM r WHERE r.id IN (SELECT event_id FROM keys)`);
}
