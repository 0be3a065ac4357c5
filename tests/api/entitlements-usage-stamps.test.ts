// A meter's check reuses a usage total read before while the customer's usage stamp (the meter's rollup version
// and the count of statements that changed the customer's rollups, kept by triggers) is unchanged: a repeated
// check reads no rollup, and any write of usage — through the API, or by a writer that is not this process's
// code (a direct recording, as another process or the previous release would make) — is in the very next answer.
// A definition change is a new stamp; events naming the customer by its external id count too.
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildMeterRollups, recordUsageEvents } from "../../server/billing/events/service.js";
import { rawRequest } from "../helpers/api.js";
import { subscribeThroughCheckout } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const CREDITS = 1000;

let server: TestServer;
let seller: Seller;
let meterId: string;
let sub: Subscription;
let externalId: string;

const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);
const db = () => server.database.db;

async function balance(): Promise<number> {
  const res = await raw("POST", "/v1/entitlements/check", { customer_id: sub.customerId, feature: meterId, units: 1 });
  expect(res.status).toBe(200);
  return res.body.balance as number;
}

async function ingest(event: Record<string, unknown>): Promise<void> {
  const res = await raw("POST", "/v1/events/ingest", { events: [{ name: "tokens", ...event }] });
  expect(res.status).toBe(200);
  expect(res.body.inserted).toBe(1);
}

async function rollupStatus(): Promise<string | undefined> {
  const result = (await db().execute(sql`SELECT status FROM meter_rollup_state WHERE meter_id = ${meterId}`)) as unknown;
  const rows = Array.isArray(result) ? (result as Array<{ status: string }>) : (result as { rows: Array<{ status: string }> }).rows;
  return rows[0]?.status;
}

/** Rebuilds (as the worker would) until the meter's rollups are complete. */
async function untilReady(): Promise<void> {
  for (let i = 0; i < 50 && (await rollupStatus()) !== "ready"; i++) await rebuildMeterRollups(db(), seller.organizationId, meterId);
  expect(await rollupStatus()).toBe("ready");
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "stamped");
  const meter = await raw("POST", "/v1/meters/", {
    name: "tokens",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] },
    aggregation: { func: "sum", property: "units" },
  });
  expect(meter.status).toBe(201);
  meterId = meter.body.id as string;
  await untilReady();
  const credit = await raw("POST", "/v1/benefits/", { type: "meter_credit", description: "Tokens", properties: { units: CREDITS, rollover: false, meter_id: meterId } });
  expect(credit.status).toBe(201);
  const metered = { amount_type: "metered_unit", meter_id: meterId, unit_amount: "1", price_currency: "usd" };
  const product = await raw("POST", "/v1/products/", { name: "Tokens plan", recurring_interval: "month", prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }, metered] });
  expect(product.status).toBe(201);
  expect((await raw("POST", `/v1/products/${product.body.id}/benefits`, { benefits: [credit.body.id] })).status).toBe(200);
  externalId = `stamped-${Date.now()}`;
  sub = await subscribeThroughCheckout(server, seller.sdk, product.body.id as string, externalId);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe("a meter check's usage, reused while its stamp is the same", () => {
  it("a repeated check reads no rollup; any writer's usage is in the next answer", async () => {
    await ingest({ customer_id: sub.customerId, metadata: { units: 5 } });
    expect(await balance()).toBe(CREDITS - 5);
    // A rollup row of a later hour of the period, written with the stamp's triggers off: the rollups now say 100
    // more, and only a read of them would see it. The next check does not read them.
    await db().execute(sql`ALTER TABLE meter_rollup DISABLE TRIGGER meter_rollup_stamp_ins`);
    await db().execute(sql`INSERT INTO meter_rollup (meter_id, customer_id, external_customer_id, bucket, events, total, minimum, maximum)
      VALUES (${meterId}::uuid, ${sub.customerId}, '', date_trunc('hour', now()) + interval '2 hours', 1, 100, 100, 100)`);
    await db().execute(sql`ALTER TABLE meter_rollup ENABLE TRIGGER meter_rollup_stamp_ins`);
    expect(await balance()).toBe(CREDITS - 5);

    // usage recorded outside the API's request (as another process would): the stamp moves, the rollups are read
    const recorded = await recordUsageEvents(db(), seller.organizationId, [
      { name: "tokens", customerId: sub.customerId, timestamp: new Date(), metadata: { units: 1 }, externalId: `direct-${Date.now()}` },
    ]);
    expect(recorded).toBe(1);
    expect(await balance()).toBe(CREDITS - 5 - 100 - 1);
    expect(await balance()).toBe(CREDITS - 106);

    await ingest({ customer_id: sub.customerId, metadata: { units: 2 } });
    expect(await balance()).toBe(CREDITS - 108);
  });

  it("counts events that name the customer by its external id", async () => {
    const before = await balance();
    await ingest({ external_customer_id: externalId, metadata: { units: 7 } });
    expect(await balance()).toBe(before - 7);
  });

  it("a definition change is a new stamp: the check answers for the new definition, before and after the rebuild", async () => {
    const before = await balance();
    const changed = await raw("PATCH", `/v1/meters/${meterId}`, { aggregation: { func: "count" } });
    expect(changed.status).toBe(200);
    // the rollups are rebuilding (or rebuilt already): the count of the period's four events either way, never the
    // sum, and never the row written past the triggers (a rebuild starts from the events)
    const counted = await balance();
    expect(before).toBe(CREDITS - 115);
    expect(counted).toBe(CREDITS - 4);
    await untilReady();
    expect(await balance()).toBe(counted);
    await ingest({ customer_id: sub.customerId, metadata: { units: 50 } });
    expect(await balance()).toBe(counted - 1);
  });
});
