// Meter rollups: every read through the rollups equals the scan of the events — a property test on
// random event streams (late events included: batches arrive in random time order), random filters and
// aggregations, random ranges, intervals and time zones — and the rollups follow a meter's changes: a new
// definition reads the events until the rebuild, archiving stops the upkeep, unarchiving rebuilds.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import type { Aggregation, Filter } from "../../shared/meter-filter.js";
import {
  consumedByCustomer,
  consumedOverPeriods,
  meterQuantities,
  rebuildMeterRollups,
  type MeterDefinition,
} from "../../server/billing/events/service.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let key: string;
let sdk: Polar;
const customers: Array<{ id: string; externalId: string | null }> = [];

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "rollups");
  key = await seller.createKey();
  sdk = sdkFor(server, key);
  for (const [i, ext] of [["a", "ext-a"], ["b", null], ["c", "ext-c"]] as const) {
    const c = await sdk.customers.create({ email: `rollup-${i}-${Date.now()}@example.com`, ...(ext ? { externalId: ext } : {}) });
    customers.push({ id: c.id, externalId: c.externalId ?? null });
  }
});
afterAll(async () => server?.close());

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

const db = () => server.database.db;
const org = () => seller.organizationId;

async function rollupStatus(meterId: string): Promise<string | undefined> {
  const result = (await db().execute(sql`SELECT status FROM meter_rollup_state WHERE meter_id = ${meterId}`)) as unknown;
  const rows = Array.isArray(result) ? (result as Array<{ status: string }>) : (result as { rows: Array<{ status: string }> }).rows;
  return rows[0]?.status;
}

/** Rebuilds (as the worker would) until the meter is ready. */
async function untilReady(meterId: string) {
  for (let i = 0; i < 50 && (await rollupStatus(meterId)) !== "ready"; i++) await rebuildMeterRollups(db(), org(), meterId);
  expect(await rollupStatus(meterId)).toBe("ready");
}

const WINDOW_START = Date.parse("2026-03-01T00:00:00Z");
const WINDOW_MS = 4 * 24 * 3_600_000;

const arbValue = fc.oneof(
  fc.integer({ min: -50, max: 1000 }),
  fc.integer({ min: -400, max: 400 }).map((n) => n / 8),
  fc.constantFrom(0.1, 0.2, 0.3, 1e-3, 12345.678),
  fc.constantFrom("x", "y", "5", "true"),
  fc.boolean(),
);
const arbEvent = fc.record({
  name: fc.constantFrom("call", "tokens", "other"),
  offsetMs: fc.integer({ min: 0, max: WINDOW_MS - 1 }),
  who: fc.integer({ min: 0, max: 4 }),
  v: fc.option(arbValue, { nil: undefined }),
  k: fc.option(fc.constantFrom("p", "q", 3, 4.5), { nil: undefined }),
});
const arbClause = fc.oneof(
  fc.record({ property: fc.constant("name"), operator: fc.constantFrom("eq", "ne", "like"), value: fc.constantFrom("call", "tokens", "ok") }),
  fc.record({ property: fc.constant("metadata.k"), operator: fc.constantFrom("eq", "ne", "gt", "lte"), value: fc.constantFrom("p", 3, 4) }),
  fc.record({ property: fc.constant("metadata.v"), operator: fc.constantFrom("gt", "lt", "eq"), value: fc.constantFrom(0, 10, 100) }),
);
const arbFilter: fc.Arbitrary<Filter> = fc.record({
  conjunction: fc.constantFrom("and" as const, "or" as const),
  clauses: fc.array(arbClause, { maxLength: 3 }),
});
const arbAggregation: fc.Arbitrary<Aggregation> = fc.oneof(
  fc.constant({ func: "count" as const }),
  fc.record({ func: fc.constantFrom("sum" as const, "min" as const, "max" as const, "avg" as const), property: fc.constantFrom("metadata.v", "timestamp") }),
  fc.record({ func: fc.constant("unique" as const), property: fc.constantFrom("metadata.v", "metadata.k", "name", "timestamp") }),
);
const arbRange = fc
  .tuple(fc.integer({ min: -3_600_000, max: WINDOW_MS + 3_600_000 }), fc.integer({ min: 0, max: WINDOW_MS }))
  .map(([a, len]) => ({ start: new Date(WINDOW_START + a), end: new Date(WINDOW_START + a + len) }));

type GenEvent = typeof arbEvent extends fc.Arbitrary<infer T> ? T : never;

let run = 0;

/** The event (as ingested) of a generated one, for customer slot `who` (ids and external ids both used). */
function toIngest(e: GenEvent, tag: string) {
  const c = customers[e.who % customers.length] as { id: string; externalId: string | null };
  const byExternal = e.who >= customers.length && c.externalId;
  const metadata: Record<string, unknown> = { tag };
  if (e.v !== undefined) metadata.v = e.v;
  if (e.k !== undefined) metadata.k = e.k;
  return {
    name: e.name,
    timestamp: new Date(WINDOW_START + e.offsetMs).toISOString(),
    ...(byExternal ? { external_customer_id: c.externalId } : { customer_id: c.id }),
    metadata,
  };
}

/** Every read through the rollups equals the same read from the events. */
async function expectSameAsScan(meter: MeterDefinition & { id: string }, range: { start: Date; end: Date }, interval: "hour" | "day", timezone: string) {
  const scan: MeterDefinition = { filter: meter.filter, aggregation: meter.aggregation };
  for (const customer of customers) {
    expect(await consumedByCustomer(db(), org(), meter, customer)).toBe(await consumedByCustomer(db(), org(), scan, customer));
  }
  const periods = customers.map((customer) => ({ customer, start: range.start, end: range.end }));
  expect(await consumedOverPeriods(db(), org(), periods.map((p) => ({ ...p, meter })))).toEqual(
    await consumedOverPeriods(db(), org(), periods.map((p) => ({ ...p, meter: scan }))),
  );
  const first = customers[0] as { id: string };
  for (const params of [
    { customerIds: [first.id] },
    { customerAggregation: "max" as const },
    { customerAggregation: "count" as const },
    {},
  ]) {
    const p = { start: range.start.toISOString(), end: range.end.toISOString(), interval, timezone, ...params };
    expect(await meterQuantities(db(), org(), meter.id, async () => meter, p)).toEqual(
      await meterQuantities(db(), org(), undefined, async () => scan, p),
    );
  }
}

describe("meter rollups", () => {
  it("read the same as the scan of events, for random streams, filters, aggregations and ranges", async () => {
    await fc.assert(
      fc.asyncProperty(
        arbFilter,
        arbAggregation,
        fc.array(fc.array(arbEvent, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3 }),
        arbRange,
        fc.constantFrom("hour" as const, "day" as const),
        fc.constantFrom("UTC", "Asia/Kolkata", "America/New_York", "Australia/Lord_Howe"),
        async (filter, aggregation, batches, range, interval, timezone) => {
          const tag = `run${run++}`;
          // each run's meter sees only its own events
          const scoped: Filter = { conjunction: "and", clauses: [{ property: "metadata.tag", operator: "eq", value: tag }, filter] };
          const created = await call("POST", "/v1/meters/", { name: tag, filter: scoped, aggregation });
          expect(created.status).toBe(201);
          const meter = { id: created.body.id as string, filter: scoped, aggregation };
          await untilReady(meter.id);
          // upkeep at ingest: batches arrive in any time order (late events land in their hour)
          for (const batch of batches) {
            const res = await call("POST", "/v1/events/ingest", { events: batch.map((e) => toIngest(e, tag)) });
            expect(res.status).toBe(200);
          }
          expect(await rollupStatus(meter.id)).toBe("ready");
          await expectSameAsScan(meter, range, interval, timezone);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("read an edge hour as its rollup minus the events outside the range, where that is the smaller side", async () => {
    // Two edge hours full of events on both sides of the range's ends, a third customer whose only events lie
    // outside the range in an edge hour (it must not count as a customer with usage), and a late event in each.
    const H = Date.parse("2026-03-05T10:00:00Z");
    const minute = 60_000;
    const minutes = [1, 5, 14, 15, 16, 29, 31, 44, 45, 46, 59];
    for (const aggregation of [{ func: "count" }, { func: "sum", property: "metadata.v" }, { func: "avg", property: "metadata.v" }] as Aggregation[]) {
      const tag = `edges-${aggregation.func}`;
      const filter: Filter = { conjunction: "and", clauses: [{ property: "metadata.tag", operator: "eq", value: tag }] };
      const created = await call("POST", "/v1/meters/", { name: tag, filter, aggregation });
      const meter = { id: created.body.id as string, filter, aggregation };
      await untilReady(meter.id);
      const at = (who: number, ms: number, v: number) => ({
        name: "call",
        customer_id: (customers[who] as { id: string }).id,
        timestamp: new Date(ms).toISOString(),
        metadata: { tag, v },
      });
      const events = [
        ...minutes.flatMap((m, i) => [at(0, H + m * minute, i + 0.1), at(1, H + 2 * 3_600_000 + m * minute, 3 * i)]),
        at(1, H + 5 * minute, 7),
        at(2, H + 2 * minute, 11),
        at(2, H + 2 * 3_600_000 + 55 * minute, 13),
      ];
      // sent in two batches, the second late (older events after newer ones)
      await call("POST", "/v1/events/ingest", { events: events.slice(12) });
      await call("POST", "/v1/events/ingest", { events: events.slice(0, 12) });
      for (const [startMin, endMin] of [
        [15, 45],
        [14, 46],
        [44, 16],
        [1, 59],
        [30, 30],
        [0, 60],
      ] as const) {
        const range = { start: new Date(H + startMin * minute), end: new Date(H + 2 * 3_600_000 + endMin * minute) };
        for (const timezone of ["UTC", "America/New_York"]) await expectSameAsScan(meter, range, "hour", timezone);
      }
    }
  });

  it("rebuild after a definition change (reads scan events meanwhile), stop on archive, rebuild on unarchive", async () => {
    const tag = "changes";
    const filter: Filter = { conjunction: "and", clauses: [{ property: "metadata.tag", operator: "eq", value: tag }] };
    const created = await call("POST", "/v1/meters/", { name: tag, filter, aggregation: { func: "sum", property: "metadata.v" } });
    const id = created.body.id as string;
    await untilReady(id);
    const c = customers[0] as { id: string; externalId: string | null };
    const events = Array.from({ length: 30 }, (_, i) => ({
      name: i % 2 ? "a" : "b",
      customer_id: c.id,
      timestamp: new Date(WINDOW_START + i * 1_700_000).toISOString(),
      metadata: { tag, v: i },
    }));
    await call("POST", "/v1/events/ingest", { events });
    const sumAll = (30 * 29) / 2;
    const state = async () => {
      const res = await call("GET", `/v1/customers/${c.id}/state`);
      const m = (res.body.active_meters as Array<{ meter_id: string; consumed_units: number }>).find((x) => x.meter_id === id);
      return m?.consumed_units;
    };
    expect(await state()).toBe(sumAll);

    // a new filter: the rollups are rebuilt; until then reads scan the events and already answer for the new one
    const onlyA: Filter = { conjunction: "and", clauses: [...filter.clauses, { property: "name", operator: "eq", value: "a" }] };
    const updated = await call("PATCH", `/v1/meters/${id}`, { filter: onlyA });
    expect(updated.status).toBe(200);
    const sumA = events.filter((e) => e.name === "a").reduce((s, e) => s + e.metadata.v, 0);
    expect(await state()).toBe(sumA);
    await untilReady(id);
    expect(await state()).toBe(sumA);
    // a late event lands in its (old) bucket and is counted once
    await call("POST", "/v1/events/ingest", {
      events: [{ name: "a", customer_id: c.id, timestamp: new Date(WINDOW_START + 60_000).toISOString(), metadata: { tag, v: 1000 } }],
    });
    expect(await state()).toBe(sumA + 1000);
    const range = { start: new Date(WINDOW_START - 1), end: new Date(WINDOW_START + WINDOW_MS) };
    await expectSameAsScan({ id, filter: onlyA, aggregation: { func: "sum", property: "metadata.v" } }, range, "day", "UTC");

    // archived: no more upkeep (the rollups are dropped); unarchived: rebuilt, events sent meanwhile included
    await call("PATCH", `/v1/meters/${id}`, { is_archived: true });
    expect(await rollupStatus(id)).toBe("stopped");
    await call("POST", "/v1/events/ingest", { events: [{ name: "a", customer_id: c.id, metadata: { tag, v: 5 } }] });
    const rollupRows = (await db().execute(sql`SELECT count(*)::int AS n FROM meter_rollup WHERE meter_id = ${id}`)) as unknown;
    const n = Array.isArray(rollupRows) ? (rollupRows as Array<{ n: number }>)[0]?.n : (rollupRows as { rows: Array<{ n: number }> }).rows[0]?.n;
    expect(n).toBe(0);
    await call("PATCH", `/v1/meters/${id}`, { is_archived: false });
    await untilReady(id);
    expect(await state()).toBe(sumA + 1005);
  });
});
