// A check reuses the facts it read before while the customer's and the organization's entitlement stamps (kept by
// triggers, migration 0087) are unchanged: a facts row changed with the triggers off is not seen (so a repeated
// check reads no facts), and every change that alters an answer — a grant revoked, a subscription past due, the
// organization cutting past-due access, credits, a hold and its expiry, usage, a benefit's key, a meter archived,
// the customer deleted — made by a direct write, as another process (or the previous release) would make it, is in
// the very next answer.
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keptFactsCount } from "../../server/billing/entitlements/facts-cache.js";
import { rebuildMeterRollups, recordUsageEvents } from "../../server/billing/events/service.js";
import { rowsOf } from "../../server/db/client.js";
import { rawRequest } from "../helpers/api.js";
import { subscribeThroughCheckout } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const CREDITS = 1000;

let server: TestServer;
let seller: Seller;
let meterId: string;
let flagId: string;
let sub: Subscription;

const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);
const db = () => server.database.db;
const exec = (query: ReturnType<typeof sql>) => rowsOf<Record<string, unknown>>(db(), query);

async function check(feature: string, units?: number): Promise<Record<string, unknown>> {
  const res = await raw("POST", "/v1/entitlements/check", { customer_id: sub.customerId, feature, ...(units === undefined ? {} : { units }) });
  return { status: res.status, ...res.body };
}

/** A write past the stamp's triggers on `table` (ALTER TABLE … DISABLE TRIGGER around it). */
async function behindTriggers(table: string, trigger: string, write: ReturnType<typeof sql>): Promise<void> {
  await exec(sql.raw(`ALTER TABLE ${table} DISABLE TRIGGER ${trigger}`));
  try {
    await exec(write);
  } finally {
    await exec(sql.raw(`ALTER TABLE ${table} ENABLE TRIGGER ${trigger}`));
  }
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "stamped-facts");
  const meter = await raw("POST", "/v1/meters/", {
    name: "calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "calls" }] },
    aggregation: { func: "sum", property: "units" },
  });
  expect(meter.status).toBe(201);
  meterId = meter.body.id as string;
  for (let i = 0; i < 50; i++) {
    const [st] = await exec(sql`SELECT status FROM meter_rollup_state WHERE meter_id = ${meterId}::uuid`);
    if (st?.status === "ready") break;
    await rebuildMeterRollups(db(), seller.organizationId, meterId);
  }
  const credit = await raw("POST", "/v1/benefits/", { type: "meter_credit", description: "Calls", properties: { units: CREDITS, rollover: false, meter_id: meterId } });
  const flag = await raw("POST", "/v1/benefits/", { type: "feature_flag", description: "Export", properties: {}, metadata: { key: "export" } });
  expect([credit.status, flag.status]).toEqual([201, 201]);
  flagId = flag.body.id as string;
  const metered = { amount_type: "metered_unit", meter_id: meterId, unit_amount: "1", price_currency: "usd", overage: "credit_only" };
  const product = await raw("POST", "/v1/products/", { name: "Calls plan", recurring_interval: "month", prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }, metered] });
  expect(product.status).toBe(201);
  expect((await raw("POST", `/v1/products/${product.body.id}/benefits`, { benefits: [credit.body.id, flag.body.id] })).status).toBe(200);
  sub = await subscribeThroughCheckout(server, seller.sdk, product.body.id as string, `stamped-facts-${Date.now()}`);
  // the grants are made by jobs: wait for the credits
  for (let i = 0; i < 200 && (await check(meterId)).limit !== CREDITS; i++) await new Promise((r) => setTimeout(r, 50));
  expect(await check(meterId)).toMatchObject({ allowed: true, balance: CREDITS, limit: CREDITS });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe("an entitlement check's facts, reused while the stamps are the same", () => {
  it("a facts row changed behind the triggers is not seen; the next stamped change reads the facts again", async () => {
    expect(await check("export")).toMatchObject({ allowed: true });
    expect(keptFactsCount()).toBeGreaterThan(0);
    const revoke = sql`UPDATE benefit_grant SET revoked_at = now() WHERE customer_id = ${sub.customerId}::uuid AND benefit_id = ${flagId}::uuid`;
    await behindTriggers("benefit_grant", "benefit_grant_entitlement_stamp", revoke);
    // the facts kept are the answer: the revocation was not read
    expect(await check("export")).toMatchObject({ allowed: true });
    // any write the triggers see moves the stamp: the facts are read again
    await exec(sql`UPDATE customer SET name = name WHERE id = ${sub.customerId}::uuid`);
    expect(await check("export")).toMatchObject({ allowed: false, reason: "no_benefit" });
    await exec(sql`UPDATE benefit_grant SET revoked_at = NULL WHERE customer_id = ${sub.customerId}::uuid AND benefit_id = ${flagId}::uuid`);
    expect(await check("export")).toMatchObject({ allowed: true });

    // a meter's check too: credits changed behind the triggers are not seen until a stamped write
    expect(await check(meterId, 1)).toMatchObject({ allowed: true, balance: CREDITS });
    const credits = sql`UPDATE benefit_grant g SET properties = g.properties || '{"last_credited_units": 1}'::jsonb
      FROM benefit b WHERE b.id = g.benefit_id AND b.type = 'meter_credit' AND g.customer_id = ${sub.customerId}::uuid`;
    await behindTriggers("benefit_grant", "benefit_grant_entitlement_stamp", credits);
    expect(await check(meterId, 1)).toMatchObject({ allowed: true, balance: CREDITS });
    await exec(sql`UPDATE customer SET name = name WHERE id = ${sub.customerId}::uuid`);
    expect(await check(meterId, 1)).toMatchObject({ balance: 1, limit: 1 });
    await exec(sql`UPDATE benefit_grant g SET properties = g.properties || jsonb_build_object('last_credited_units', ${CREDITS}::int)
      FROM benefit b WHERE b.id = g.benefit_id AND b.type = 'meter_credit' AND g.customer_id = ${sub.customerId}::uuid`);
    expect(await check(meterId, 1)).toMatchObject({ balance: CREDITS, limit: CREDITS });
  });

  it("a grant revoked, credits changed, a benefit's key changed: each in the next answer", async () => {
    await exec(sql`UPDATE benefit_grant SET revoked_at = now() WHERE customer_id = ${sub.customerId}::uuid AND benefit_id = ${flagId}::uuid`);
    expect(await check("export")).toMatchObject({ allowed: false, reason: "no_benefit" });
    await exec(sql`UPDATE benefit_grant SET revoked_at = NULL WHERE customer_id = ${sub.customerId}::uuid AND benefit_id = ${flagId}::uuid`);
    expect(await check("export")).toMatchObject({ allowed: true });

    const credits = (units: number) => sql`UPDATE benefit_grant g SET properties = g.properties || jsonb_build_object('last_credited_units', ${units}::int)
      FROM benefit b WHERE b.id = g.benefit_id AND b.type = 'meter_credit' AND g.customer_id = ${sub.customerId}::uuid`;
    await exec(credits(300));
    expect(await check(meterId)).toMatchObject({ balance: 300, limit: 300 });
    await exec(credits(CREDITS));
    expect(await check(meterId)).toMatchObject({ balance: CREDITS, limit: CREDITS });

    // the organization's stamp: a benefit's key
    await exec(sql`UPDATE benefit SET metadata = '{"key":"export-renamed"}'::jsonb WHERE id = ${flagId}::uuid`);
    expect(await check("export")).toMatchObject({ status: 422 });
    expect(await check("export-renamed")).toMatchObject({ allowed: true });
    const renamed = await raw("PATCH", `/v1/benefits/${flagId}`, { type: "feature_flag", metadata: { key: "export" } });
    expect(renamed.status).toBe(200);
    expect(await check("export")).toMatchObject({ allowed: true });
  });

  it("a subscription past due, with the organization cutting past-due access: each in the next answer", async () => {
    expect(await check("export")).toMatchObject({ allowed: true });
    await exec(sql`UPDATE subscription SET status = 'past_due' WHERE id = ${sub.id}::uuid`);
    // access while past due is kept unless the organization cuts it
    expect(await check("export")).toMatchObject({ allowed: true });
    const pastDueAccess = (on: boolean) => sql`INSERT INTO billing_organization (organization_id, details)
      VALUES (${seller.organizationId}::uuid, jsonb_build_object('plan_settings', jsonb_build_object('access_while_past_due', ${on}::boolean)))
      ON CONFLICT (organization_id) DO UPDATE SET details = jsonb_set(coalesce(billing_organization.details, '{}'::jsonb), '{plan_settings}',
        coalesce(billing_organization.details -> 'plan_settings', '{}'::jsonb) || jsonb_build_object('access_while_past_due', ${on}::boolean))`;
    await exec(pastDueAccess(false));
    expect(await check("export")).toMatchObject({ allowed: false, reason: "subscription_past_due" });
    await exec(pastDueAccess(true));
    expect(await check("export")).toMatchObject({ allowed: true });
    await exec(pastDueAccess(false));
    expect(await check("export")).toMatchObject({ allowed: false, reason: "subscription_past_due" });
    await exec(sql`UPDATE subscription SET status = 'active' WHERE id = ${sub.id}::uuid`);
    expect(await check("export")).toMatchObject({ allowed: true });
    await exec(pastDueAccess(true));
  });

  it("usage recorded by another process, a hold and its expiry: each in the next answer", async () => {
    const before = (await check(meterId)).balance as number;
    const recorded = await recordUsageEvents(db(), seller.organizationId, [
      { name: "calls", customerId: sub.customerId, timestamp: new Date(), metadata: { units: 7 }, externalId: `stamp-direct-${Date.now()}` },
    ]);
    expect(recorded).toBe(1);
    expect(await check(meterId)).toMatchObject({ balance: before - 7 });
    expect((await raw("POST", "/v1/events/ingest", { events: [{ name: "calls", customer_id: sub.customerId, metadata: { units: 3 } }] })).status).toBe(200);
    expect(await check(meterId)).toMatchObject({ balance: before - 10 });

    // a hold written directly, expiring in two seconds: counted, then not once expired (no write marks that)
    await exec(sql`INSERT INTO entitlement_reservation (organization_id, customer_id, meter_id, units, status, expires_at, metadata)
      VALUES (${seller.organizationId}::uuid, ${sub.customerId}::uuid, ${meterId}::uuid, 5, 'held', now() + interval '2 seconds', '{}'::jsonb)`);
    expect(await check(meterId)).toMatchObject({ balance: before - 15, held: 5 });
    let after = await check(meterId);
    for (let i = 0; i < 100 && after.held !== 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await check(meterId);
    }
    expect(after).toMatchObject({ balance: before - 10, held: 0 });
  });

  it("a meter archived and the customer deleted: each in the next answer", async () => {
    await exec(sql`UPDATE meter SET archived_at = now() WHERE id = ${meterId}::uuid`);
    expect(await check(meterId)).toMatchObject({ status: 422 });
    await exec(sql`UPDATE meter SET archived_at = NULL WHERE id = ${meterId}::uuid`);
    expect(await check(meterId)).toMatchObject({ allowed: true });

    await exec(sql`UPDATE customer SET deleted_at = now() WHERE id = ${sub.customerId}::uuid`);
    expect(await check("export")).toMatchObject({ allowed: false, reason: "customer_not_found" });
    await exec(sql`UPDATE customer SET deleted_at = NULL WHERE id = ${sub.customerId}::uuid`);
    expect(await check("export")).toMatchObject({ allowed: true });
  });
});
