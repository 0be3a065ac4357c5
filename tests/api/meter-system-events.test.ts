// System events (a dispute's `balance.dispute`, recorded by a money domain in its own transaction) and meters: a
// meter measures the usage sellers ingest, never till's own records, so a ready meter whose filter would match a
// system event reads the same through its rollups, through a scan of the events and after a rebuild — none of them
// counting it — and a customer's usage stamp is not moved by it.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Aggregation, Filter } from "../../shared/meter-filter.js";
import {
  consumedByCustomer,
  consumedOverPeriods,
  markRollupsBuilding,
  rebuildMeterRollups,
  recordSystemEvents,
  type MeterDefinition,
} from "../../server/billing/events/service.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let key: string;
let customer: { id: string; externalId: string | null };

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "sysevents");
  key = await seller.createKey();
  const c = await sdkFor(server, key).customers.create({ email: `sysevents-${Date.now()}@example.com`, externalId: "sys-1" });
  customer = { id: c.id, externalId: c.externalId ?? null };
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

async function queryRows<T>(q: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db().execute(q)) as unknown;
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

async function untilReady(meterId: string) {
  const status = async () => (await queryRows<{ status: string }>(sql`SELECT status FROM meter_rollup_state WHERE meter_id = ${meterId}`))[0]?.status;
  for (let i = 0; i < 50 && (await status()) !== "ready"; i++) await rebuildMeterRollups(db(), org(), meterId);
  expect(await status()).toBe("ready");
}

const stamp = async (meterId: string) =>
  (await queryRows<{ n: string }>(sql`SELECT coalesce(sum(writes), 0)::text AS n FROM meter_usage_stamp WHERE meter_id = ${meterId} AND customer_id = ${customer.id}`))[0]?.n;

/** The meter read through its rollups, and the same definition read from the events. */
async function reads(meter: MeterDefinition & { id: string }) {
  const scan: MeterDefinition = { filter: meter.filter, aggregation: meter.aggregation };
  const period = { customer, start: new Date(Date.now() - 86_400_000), end: new Date(Date.now() + 86_400_000) };
  const [rolled] = await consumedOverPeriods(db(), org(), [{ ...period, meter }]);
  const [scanned] = await consumedOverPeriods(db(), org(), [{ ...period, meter: scan }]);
  return { all: await consumedByCustomer(db(), org(), meter, customer), allScanned: await consumedByCustomer(db(), org(), scan, customer), rolled, scanned };
}

describe("system events and meters", () => {
  it("a ready meter whose filter matches a system event counts it nowhere: rollups, scans and a rebuild agree", async () => {
    const orderId = "0190a2b4-0000-7000-8000-00000000d15e";
    const meters: Array<{ name: string; filter: Filter; aggregation: Aggregation }> = [
      { name: "disputes", filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "balance.dispute" }] }, aggregation: { func: "count" } },
      // a filter on metadata alone, as a seller's meter of an order's usage might be
      {
        name: "order-usage",
        filter: { conjunction: "and", clauses: [{ property: "metadata.order_id", operator: "eq", value: orderId }] },
        aggregation: { func: "sum", property: "metadata.amount" },
      },
    ];
    const made: Array<MeterDefinition & { id: string }> = [];
    for (const m of meters) {
      const res = await call("POST", "/v1/meters/", m);
      expect(res.status).toBe(201);
      made.push({ id: res.body.id as string, filter: m.filter, aggregation: m.aggregation });
      await untilReady(res.body.id as string);
    }
    // the seller's own usage event counts on the second meter
    expect((await call("POST", "/v1/events/ingest", { events: [{ name: "usage", customer_id: customer.id, metadata: { order_id: orderId, amount: 7 } }] })).status).toBe(200);
    const before = await Promise.all(made.map((m) => stamp(m.id)));
    await db().transaction(async (tx) => {
      await recordSystemEvents(tx, [
        { organizationId: org(), name: "balance.dispute", customerId: customer.id, timestamp: new Date(), metadata: { order_id: orderId, amount: -1500 }, onceKey: `dispute:test-${Date.now()}` },
      ]);
    });
    const listed = await call("GET", `/v1/events/?customer_id=${customer.id}&source=system`);
    expect((listed.body.items as unknown[]).length).toBe(1);
    const expected = [0, 7];
    for (const [i, m] of made.entries()) {
      expect(await reads(m)).toEqual({ all: expected[i], allScanned: expected[i], rolled: expected[i], scanned: expected[i] });
      expect(await stamp(m.id)).toBe(before[i]);
      // a rebuild from the events reads the same
      await markRollupsBuilding(db(), org(), m.id);
      await untilReady(m.id);
      expect(await reads(m)).toEqual({ all: expected[i], allScanned: expected[i], rolled: expected[i], scanned: expected[i] });
    }
  });
});
