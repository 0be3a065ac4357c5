// Rules for usage events: every read of them — lists, names, and the quantities meters measure (meters ask here,
// never the table) — and the meters' rollups. Ingestion is ingest/ (its one door: ingest/index.ts).
import type { Db, Queryable } from "../../db/client.js";
import type { Aggregation, AggregationFunction, Filter } from "../../../shared/meter-filter.js";
import { customerAliases, loadCustomers, searchCustomerIds } from "../customers/service.js";
import { invalid, notFound } from "../errors.js";
import * as repo from "./repository.js";
import * as rollupReads from "./rollup-reads.js";
import { cachedRollupTotals } from "./usage-stamps.js";
import * as rollups from "./rollups.js";
import * as partitions from "./partitions.js";
import { usageEventRows, type UsageEventInput } from "./usage-events.js";
import { toEventNameWire, toEventWire, toMeterQuantitiesWire, type EventWire } from "./wire.js";

// ---- reads ----------------------------------------------------------------------------------------

/** A read's filter: the selection's own fields, with customers and the search text not yet resolved. */
export type EventReadFilter = Pick<repo.EventSelection, "names" | "sources" | "start" | "end" | "metadata" | "filter" | "meter" | "parentId"> & {
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  query?: string | undefined;
  depth?: number | undefined;
};

async function selectionOf(db: Queryable, organizationId: string, f: EventReadFilter): Promise<repo.EventSelection> {
  const [customers, externalCustomers, searchIds] = await Promise.all([
    f.customerIds ? customerAliases(db, organizationId, { ids: f.customerIds }) : undefined,
    f.externalCustomerIds ? customerAliases(db, organizationId, { externalIds: f.externalCustomerIds }) : undefined,
    f.query ? searchCustomerIds(db, organizationId, f.query) : undefined,
  ]);
  return {
    customers,
    externalCustomers,
    names: f.names,
    sources: f.sources,
    start: f.start,
    end: f.end,
    metadata: f.metadata,
    filter: f.filter,
    meter: f.meter,
    query: f.query !== undefined && searchIds ? { text: f.query, customerIds: searchIds } : undefined,
    parentId: f.parentId,
    rootsOnly: f.depth === 0,
  };
}

async function toWires(db: Queryable, organizationId: string, rows: repo.EventRow[]): Promise<EventWire[]> {
  const [customers, children] = await Promise.all([
    loadCustomers(db, organizationId, {
      ids: rows.flatMap((r) => (r.customerId ? [r.customerId] : [])),
      externalIds: rows.flatMap((r) => (r.externalCustomerId && !r.customerId ? [r.externalCustomerId] : [])),
    }),
    repo.childCounts(
      db,
      organizationId,
      rows.map((r) => r.id),
    ),
  ]);
  return rows.map((r) => {
    const customer = r.customerId
      ? (customers.byId.get(r.customerId) ?? null)
      : r.externalCustomerId
        ? (customers.byExternalId.get(r.externalCustomerId) ?? null)
        : null;
    return toEventWire(r, customer, children.get(r.id) ?? 0);
  });
}

export async function listEvents(
  db: Db,
  organizationId: string,
  filter: EventReadFilter,
  order: "asc" | "desc",
  pageNo: number,
  limit: number,
): Promise<{ items: EventWire[]; total: number }> {
  const selection = await selectionOf(db, organizationId, filter);
  const { rows, total } = await repo.listEvents(db, organizationId, selection, order, pageNo, limit);
  return { items: await toWires(db, organizationId, rows), total };
}

export async function getEvent(db: Db, organizationId: string, id: string): Promise<EventWire> {
  const row = await repo.findEvent(db, organizationId, id);
  if (!row) throw notFound("Event not found.");
  const [wire] = await toWires(db, organizationId, [row]);
  if (!wire) throw notFound("Event not found.");
  return wire;
}

export async function listEventNames(
  db: Db,
  organizationId: string,
  filter: EventReadFilter,
  sorting: Array<{ key: repo.EventNameSortKey; desc: boolean }>,
  pageNo: number,
  limit: number,
) {
  // `query` matches the name only here
  const selection = await selectionOf(db, organizationId, { ...filter, query: undefined });
  const { rows, total } = await repo.listEventNames(
    db,
    organizationId,
    { ...selection, names: undefined, nameContains: filter.query },
    sorting,
    pageNo,
    limit,
  );
  return { items: rows.map(toEventNameWire), total };
}

// ---- what meters measure --------------------------------------------------------------------------

/** Polar's limits on how many buckets one request may ask for (the range in days per interval). */
const MAX_RANGE_DAYS: Record<repo.TimeInterval, number> = { hour: 7, day: 366, week: 7 * 53, month: 365 * 4, year: 365 * 10 };

export interface QuantitiesParams {
  start: string;
  end: string;
  interval: repo.TimeInterval;
  timezone: string;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  metadata?: Record<string, string[]> | undefined;
  customerAggregation?: AggregationFunction | undefined;
}

/**
 * MeterQuantities: one zero-filled bucket per interval over [start, end], and the total over the range, of the
 * meter `meterId` whose definition `loadMeter` reads (and answers 404 for) — beside the reads that need only the
 * id (the customers named, the rollups' readiness): two rounds of queries in all. No id: a definition only,
 * read from the events.
 */
export async function meterQuantities(
  db: Db,
  organizationId: string,
  meterId: string | undefined,
  loadMeter: () => Promise<MeterDefinition>,
  p: QuantitiesParams,
) {
  const startMs = Date.parse(p.start);
  const endMs = Date.parse(p.end);
  if (startMs > endMs || (endMs - startMs) / 86_400_000 > MAX_RANGE_DAYS[p.interval]) {
    throw invalid(
      ["query"],
      "The interval is too small for the given date range. Use a larger interval or reduce the date range.",
    );
  }
  const [meter, selection, ready] = await Promise.all([
    loadMeter(),
    selectionOf(db, organizationId, {
      customerIds: p.customerIds,
      externalCustomerIds: p.externalCustomerIds,
      metadata: p.metadata,
    }),
    // through the rollups when they are complete (a metadata filter reads the events)
    meterId && !p.metadata ? rollups.readyMeterIds(db, organizationId, [meterId]) : new Set<string>(),
  ]);
  const rollupMeter: rollups.RollupMeter | null =
    meter.id && ready.has(meter.id) ? { id: meter.id, filter: meter.filter, aggregation: meter.aggregation } : null;
  try {
    const query = {
      meter,
      selection,
      // as sent: re-serializing could turn 0001-01-01T00:00+05:00 into year 0000, which PostgreSQL refuses
      start: p.start,
      end: p.end,
      interval: p.interval,
      timezone: p.timezone,
      customerAggregation: p.customerAggregation,
    };
    const { buckets, total } = rollupMeter
      ? await rollupReads.rollupQuantities(db, organizationId, rollupMeter, query)
      : await repo.meterQuantities(db, organizationId, query);
    return toMeterQuantitiesWire(buckets, total);
  } catch (err) {
    // a zone name the runtime knows but PostgreSQL's tz database does not (e.g. SystemV/…)
    if (pgErrorCode(err) === PG_INVALID_PARAMETER_VALUE) {
      throw invalid(["query", "timezone"], "Input should be a valid IANA time zone name");
    }
    throw err;
  }
}

const PG_INVALID_PARAMETER_VALUE = "22023";

function pgErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

// ---- rollup upkeep (see rollups.ts) --------------------------------------------------------------

export const markRollupsBuilding = rollups.markRollupsBuilding;
export const stopRollups = rollups.stopRollups;

/** Rebuilds a meter's rollups in one transaction; whether they are ready now. */
export function rebuildMeterRollups(db: Db, organizationId: string, meterId: string): Promise<boolean> {
  return db.transaction((tx) => rollups.rebuildRollups(tx, organizationId, meterId));
}

/**
 * Starts a meter's rebuild in the background, after the change that asks for it committed. A failure is left
 * to the worker's sweep (events/jobs.ts), which rebuilds every meter still `building`.
 */
export function rebuildSoon(db: Db, organizationId: string, meterId: string): void {
  setImmediate(() => {
    rebuildMeterRollups(db, organizationId, meterId).catch(() => {});
  });
}

/** Rebuilds up to `limit` meters due a rebuild, any organization; how many are ready now. */
export async function rebuildPendingRollups(db: Db, limit = 10): Promise<number> {
  let ready = 0;
  for (const m of await rollups.metersBuilding(db, limit)) {
    if (await rebuildMeterRollups(db, m.organizationId, m.meterId)) ready += 1;
  }
  return ready;
}

/** A meter: its definition, and its id when it has one (then its rollups are read when complete). */
export interface MeterDefinition {
  id?: string | undefined;
  filter: Filter;
  aggregation: Aggregation;
}

interface ConsumedItem {
  meter: MeterDefinition;
  customer: { id: string; externalId: string | null };
  /** none: all of the customer's events */
  start?: Date | undefined;
  end?: Date | undefined;
  /** the customer's usage stamp of the meter, read by the caller (usage-stamps.ts): a total read at it is reused */
  stamp?: string | null | undefined;
}

/**
 * Meter quantities of customers (over periods, or all their events), in two statements: which meters have
 * complete rollups, then every quantity at once — through the rollups for those, from the events otherwise.
 */
async function consumed(db: Queryable, organizationId: string, items: ConsumedItem[], readySet?: Set<string>): Promise<number[]> {
  if (items.length === 0) return [];
  const ids = [...new Set(items.flatMap((i) => (i.meter.id ? [i.meter.id] : [])))];
  const ready = readySet ?? (await rollups.readyMeterIds(db, organizationId, ids));
  const selectionOfItem = (item: ConsumedItem): repo.EventSelection => ({
    customers: { ids: [item.customer.id], externalIds: item.customer.externalId ? [item.customer.externalId] : [] },
  });
  const viaRollups: number[] = [];
  const viaEvents: number[] = [];
  items.forEach((item, i) => (item.meter.id && ready.has(item.meter.id) ? viaRollups : viaEvents).push(i));
  const [fromRollups, fromEvents] = await Promise.all([
    cachedRollupTotals(
      db,
      organizationId,
      viaRollups.map((i) => {
        const item = items[i] as ConsumedItem;
        const m = item.meter;
        return {
          meter: { id: m.id ?? "", filter: m.filter, aggregation: m.aggregation },
          selection: selectionOfItem(item),
          range: item.start && item.end ? { start: item.start.toISOString(), end: item.end.toISOString() } : undefined,
          stamp: item.stamp,
          stampOf: item.customer,
        };
      }),
    ),
    repo.meterTotals(
      db,
      organizationId,
      viaEvents.map((i) => {
        const item = items[i] as ConsumedItem;
        return {
          meter: { filter: item.meter.filter, aggregation: item.meter.aggregation },
          selection: {
            ...selectionOfItem(item),
            ...(item.start && item.end ? { start: item.start.toISOString(), end: item.end.toISOString() } : {}),
          },
        };
      }),
    ),
  ]);
  const out = items.map(() => 0);
  viaRollups.forEach((i, n) => (out[i] = fromRollups[n] ?? 0));
  viaEvents.forEach((i, n) => (out[i] = fromEvents[n] ?? 0));
  return out;
}

/** A meter's quantity over all of a customer's events (by id or by the external id it carries). */
export async function consumedByCustomer(
  db: Queryable,
  organizationId: string,
  meter: MeterDefinition,
  customer: { id: string; externalId: string | null },
): Promise<number> {
  const [q] = await consumed(db, organizationId, [{ meter, customer }]);
  return q ?? 0;
}

/**
 * Several meters' quantities over one customer's events (CustomerState): each over the period `periods[i]` when
 * given, else over all of them; one statement when `ready` (the organization's meters with complete rollups,
 * readyMeterIdsOfOrganization) was read beforehand, else two.
 */
export function consumedByCustomerOfMeters(
  db: Queryable,
  organizationId: string,
  meters: MeterDefinition[],
  customer: { id: string; externalId: string | null },
  periods: Array<{ start: Date; end: Date } | null> = [],
  ready?: Set<string>,
  stamps?: Array<string | null>,
): Promise<number[]> {
  return consumed(
    db,
    organizationId,
    meters.map((meter, i) => ({ meter, customer, ...(periods[i] ?? {}), ...(stamps ? { stamp: stamps[i] ?? null } : {}) })),
    ready,
  );
}

/** The organization's meters whose rollups are complete (reads of the others scan events). */
export function readyMeterIdsOfOrganization(db: Queryable, organizationId: string): Promise<Set<string>> {
  return rollups.readyMeterIdsOfOrganization(db, organizationId);
}

/**
 * Meter quantities of customers over periods, in one go: for each item its meter over the customer's
 * events (by id or by the external id it carries) with timestamps in [start, end].
 */
export function consumedOverPeriods(
  db: Queryable,
  organizationId: string,
  items: Array<{ meter: MeterDefinition; customer: { id: string; externalId: string | null }; start: Date; end: Date }>,
): Promise<number[]> {
  return consumed(db, organizationId, items);
}

/**
 * Records usage events in the caller's transaction as an ingest would (rollups kept, an external id seen before
 * skipped); returns how many were stored.
 */
export async function recordUsageEvents(tx: Queryable, organizationId: string, events: UsageEventInput[]): Promise<number> {
  return (await rollups.insertEventsWithRollups(tx, organizationId, { rows: usageEventRows(events) })).inserted;
}

/** A system event (source "system", Polar's SystemEvent: `balance.dispute`, …) that a money domain records. */
export interface SystemEventInput {
  organizationId: string;
  name: string;
  customerId: string | null;
  timestamp: Date;
  metadata: Record<string, string | number | boolean>;
  /** Makes the event once: a second record with the same key is a no-op. */
  onceKey: string;
}

/**
 * Records system events in the caller's transaction, once per `onceKey` (kept as the event's external id). They
 * are listed by the events API beside the user's; meters count user events, so these do not reach rollups.
 */
export async function recordSystemEvents(tx: Queryable, events: SystemEventInput[]): Promise<void> {
  if (events.length > 0) await repo.insertSystemEvents(tx, events);
}

/**
 * The event table's monthly partitions (partitions.ts): this month and the next three exist; with a retention in
 * months (TILL_EVENT_RETENTION), the months older than it are dropped whole. Returns the months dropped.
 */
export async function maintainEventPartitions(db: Db, retentionMonths: number | undefined): Promise<string[]> {
  await partitions.createEventPartitionsAhead(db);
  return retentionMonths ? partitions.dropEventPartitions(db, retentionMonths) : [];
}
