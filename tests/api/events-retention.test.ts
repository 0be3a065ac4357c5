// TILL_EVENT_RETENTION through the worker's hourly upkeep (jobs/cleanup.ts): months are made ahead, a month past
// the retention is dropped whole only once no meter is rebuilding its rollups from the events, and a meter's
// usage over the dropped month still reads the same (from its rollups); the events list's count goes down with it.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../server/db/client.js";
import { maintainEventPartitions, markRollupsBuilding, rebuildMeterRollups } from "../../server/billing/events/service.js";
import { createCleanup } from "../../server/jobs/cleanup.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let key: string;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "retention");
  key = await seller.createKey();
});
afterAll(async () => server?.close());

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

const db = () => server.database.db;
const org = () => seller.organizationId;
const monthName = (d: Date) => `event_y${d.getUTCFullYear()}m${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
const months = async () =>
  (await rowsOf<{ name: string }>(db(), sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'event'::regclass`)).map(
    (r) => r.name,
  );
const status = async (meterId: string) =>
  (await rowsOf<{ status: string }>(db(), sql`SELECT status FROM meter_rollup_state WHERE meter_id = ${meterId}::uuid`))[0]?.status;
async function ready(meterId: string) {
  for (let i = 0; i < 50 && (await status(meterId)) !== "ready"; i++) await rebuildMeterRollups(db(), org(), meterId);
  expect(await status(meterId)).toBe("ready");
}
const eventsListed = async () => ((await call("GET", "/v1/events/?limit=1")).pagination as { total_count: number }).total_count;

describe("event retention", () => {
  it("drops a month past the retention only when no meter is rebuilding; usage over it reads the same", async () => {
    const now = new Date();
    const old = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 14, 10, 12));
    const oldMonth = monthName(old);
    // the month exists (as when its events arrived on time), then its events and this month's are ingested
    await db().execute(sql`SELECT till_event_partition(${old.toISOString()}::timestamptz)`);
    const customer = await call("POST", "/v1/customers/", { email: `retention-${Date.now()}@example.com` });
    const filter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] };
    const meter = await call("POST", "/v1/meters/", { name: "Calls", filter, aggregation: { func: "count" } });
    const other = await call("POST", "/v1/meters/", { name: "Calls again", filter, aggregation: { func: "count" } });
    const at = (d: Date, i: number) => new Date(d.getTime() + i * 60_000).toISOString();
    const events = [
      ...Array.from({ length: 30 }, (_, i) => ({ name: "api.call", customer_id: customer.id, timestamp: at(old, i) })),
      ...Array.from({ length: 5 }, (_, i) => ({ name: "api.call", customer_id: customer.id, timestamp: at(now, -i - 1) })),
    ];
    await call("POST", "/v1/events/ingest", { events });
    await ready(meter.id as string);
    const start = new Date(Date.UTC(old.getUTCFullYear(), old.getUTCMonth(), 1));
    const quantities = async () => {
      const q = new URLSearchParams({ start_timestamp: start.toISOString(), end_timestamp: now.toISOString(), interval: "year", customer_id: customer.id as string });
      return (await call("GET", `/v1/meters/${meter.id as string}/quantities?${q.toString()}`)).total;
    };
    expect(await quantities()).toBe(35);
    const listedBefore = await eventsListed();

    // a meter rebuilding from the events (a definition change; the worker, which would rebuild it, is not
    // started here): the month stays
    await ready(other.id as string);
    await markRollupsBuilding(db(), org(), other.id as string);
    expect(await status(other.id as string)).toBe("building");
    expect(await maintainEventPartitions(db(), 12)).toEqual([]);
    expect(await months()).toContain(oldMonth);

    // rebuilt: the worker's upkeep drops it, and makes the months ahead
    await ready(other.id as string);
    const ahead = monthName(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1)));
    await db().execute(sql.raw(`DROP TABLE IF EXISTS ${ahead}`));
    const lines: string[] = [];
    const cleanup = createCleanup({
      database: server.database,
      retentionDays: 30,
      eventRetentionMonths: 12,
      firstRunMs: 0,
      log: { info: (m) => lines.push(m), error: (_e, m) => lines.push(m ?? "") },
    });
    cleanup.start();
    await expect.poll(() => lines.some((l) => l.includes(`events: retention dropped ${oldMonth}`)), { timeout: 30_000 }).toBe(true);
    await cleanup.stop();
    expect(await months()).toContain(ahead);
    expect(await months()).not.toContain(oldMonth);

    expect(await quantities()).toBe(35);
    expect(await eventsListed()).toBe(listedBefore - 30);
  });
});
