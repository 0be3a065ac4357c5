// POST /v1/entitlements/check: feature flags by benefit id or metadata.key, meters by id or name with balance,
// limit and units; credit_only refuses at zero and credit_then_invoice does not; an unknown customer is an answer;
// an unknown feature is a 422; another organization's customer is unknown here; the scope entitlements:read is
// implied by customers:read. The renewal bills nothing past the credits of a credit_only price.
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outbox } from "../../server/db/schema/index.js";
import { verifySnapshot, type Jwks } from "../../packages/entitlements-verifier/src/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, subscribeThroughCheckout, uniqueBuyer } from "../helpers/checkout.js";
import { claimSeat } from "../helpers/seats.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let meter: Meter;
let flagId: string;
let creditOnlySub: { id: string; customerId: string };
let invoicedSub: { id: string; customerId: string };

const raw = (method: string, path: string, body?: unknown, token = seller.token) => rawRequest(server.url, token, method, path, body);
const check = async (body: Record<string, unknown>, token = seller.token) => {
  const res = await raw("POST", "/v1/entitlements/check", body, token);
  return res;
};

async function product(name: string, overage: "credit_only" | null, credits: number | null) {
  const benefits: string[] = [flagId];
  if (credits !== null) {
    const b = await raw("POST", "/v1/benefits/", { type: "meter_credit", description: `${name} credits`, properties: { units: credits, rollover: false, meter_id: meter.id } });
    expect(b.status).toBe(201);
    benefits.push(b.body.id as string);
  }
  const metered = { amount_type: "metered_unit", meter_id: meter.id, unit_amount: "25", price_currency: "usd", ...(overage ? { overage } : {}) };
  const p = await raw("POST", "/v1/products/", { name, recurring_interval: "month", prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }, metered] });
  expect(p.status).toBe(201);
  const set = await raw("POST", `/v1/products/${p.body.id}/benefits`, { benefits });
  expect(set.status).toBe(200);
  return p.body as { id: string; prices: Array<{ amount_type: string; overage?: string }> };
}

/** customer.state_changed rows recorded for the customer (sent or not). */
async function stateChanges(customerId: string): Promise<number> {
  const rows = await server.database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(outbox)
    .where(and(eq(outbox.type, "customer.state_changed"), sql`${outbox.payload} ->> 'id' = ${customerId}`));
  return Number(rows[0]?.n ?? 0);
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "entitled");
  other = await createSeller(server, "stranger");
  meter = await seller.sdk.meters.create({
    name: "compute",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "compute" }] },
    aggregation: { func: "count" },
  });
  const flag = await raw("POST", "/v1/benefits/", { type: "feature_flag", description: "PDF export", properties: {}, metadata: { key: "pdf_export" } });
  expect(flag.status).toBe(201);
  flagId = flag.body.id as string;
  const creditOnly = await product("Credits only", "credit_only", 10);
  expect(creditOnly.prices.find((p) => p.amount_type === "metered_unit")?.overage).toBe("credit_only");
  const invoiced = await product("Pay as you go", null, null);
  expect(invoiced.prices.find((p) => p.amount_type === "metered_unit")?.overage).toBe("credit_then_invoice");
  const a = await subscribeThroughCheckout(server, seller.sdk, creditOnly.id);
  const b = await subscribeThroughCheckout(server, seller.sdk, invoiced.id);
  creditOnlySub = { id: a.id, customerId: a.customerId };
  invoicedSub = { id: b.id, customerId: b.customerId };
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe("feature flags", () => {
  it("are found by metadata.key and by benefit id", async () => {
    const byKey = await check({ customer_id: creditOnlySub.customerId, feature: "pdf_export" });
    expect(byKey.status).toBe(200);
    expect(byKey.body).toMatchObject({ allowed: true, reason: null, kind: "feature_flag", benefit_id: flagId, customer_id: creditOnlySub.customerId, feature: "pdf_export" });
    const byId = await check({ customer_id: creditOnlySub.customerId, feature: flagId });
    expect(byId.body).toMatchObject({ allowed: true, kind: "feature_flag" });
  });

  it("refuse a customer without the benefit, and answer for a customer till does not know", async () => {
    const customer = await seller.sdk.customers.create({ email: `nobody-${Date.now()}@example.com`, externalId: `ext-${Date.now()}` });
    const none = await check({ external_customer_id: customer.externalId, feature: "pdf_export" });
    expect(none.body).toMatchObject({ allowed: false, reason: "no_benefit", customer_id: customer.id });
    const unknown = await check({ external_customer_id: "never-seen", feature: "pdf_export" });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ allowed: false, reason: "customer_not_found", customer_id: null });
  });
});

describe("meters", () => {
  it("answer balance and limit, by name or id, and refuse units the credits do not cover", async () => {
    const byName = await check({ customer_id: creditOnlySub.customerId, feature: "compute" });
    expect(byName.body).toMatchObject({ allowed: true, kind: "meter", meter_id: meter.id, balance: 10, limit: 10, held: 0, units: null, overage: "credit_only" });
    const tooMany = await check({ customer_id: creditOnlySub.customerId, feature: meter.id, units: 11 });
    expect(tooMany.body).toMatchObject({ allowed: false, reason: "insufficient_balance", balance: 10, units: 11 });
  });

  it("a signed snapshot answers locally what the check answers", async () => {
    const snap = await raw("GET", `/v1/customers/${creditOnlySub.customerId}/entitlements/snapshot?ttl=60`);
    expect(snap.status).toBe(200);
    const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json?organization_id=${seller.organizationId}`)).json()) as Jwks;
    const local = await verifySnapshot(snap.body.token as string, jwks, { organizationId: seller.organizationId });
    for (const [feature, units] of [["pdf_export", null], ["compute", null], [meter.id, 11], ["compute", 10], ["unheld", null]] as const) {
      const mine = local.check(feature, units);
      if (feature === "unheld") {
        expect(mine).toMatchObject({ allowed: false, reason: "no_benefit" });
        continue;
      }
      const theirs = (await check({ customer_id: creditOnlySub.customerId, feature, ...(units === null ? {} : { units }) })).body;
      expect({ ...mine }).toMatchObject({ allowed: theirs.allowed, reason: theirs.reason, balance: theirs.balance, limit: theirs.limit, held: theirs.held, kind: theirs.kind });
    }
  });

  it("credit_only refuses at zero; credit_then_invoice lets usage go on", async () => {
    const events = (customer_id: string, n: number) => ({ events: Array.from({ length: n }, () => ({ name: "compute", customer_id })) });
    expect((await raw("POST", "/v1/events/ingest", events(creditOnlySub.customerId, 10))).status).toBe(200);
    const empty = await check({ customer_id: creditOnlySub.customerId, feature: "compute" });
    expect(empty.body).toMatchObject({ allowed: false, reason: "insufficient_balance", balance: 0, limit: 10 });
    expect((await raw("POST", "/v1/events/ingest", events(invoicedSub.customerId, 3))).status).toBe(200);
    const invoiced = await check({ customer_id: invoicedSub.customerId, feature: "compute", units: 1000 });
    expect(invoiced.body).toMatchObject({ allowed: true, reason: null, balance: -3, limit: null, overage: "credit_then_invoice" });
  });

  it("a credit_only renewal bills nothing past the credits", async () => {
    const events = { events: Array.from({ length: 5 }, () => ({ name: "compute", customer_id: creditOnlySub.customerId })) };
    expect((await raw("POST", "/v1/events/ingest", events)).status).toBe(200);
    const current = await raw("GET", `/v1/subscriptions/${creditOnlySub.id}`);
    const renewed = await raw("POST", `/v1/subscriptions/${creditOnlySub.id}/renew`, { current_period_start: current.body.current_period_start });
    expect(renewed.status).toBe(200);
    const orders = await seller.sdk.orders.list({ subscriptionId: creditOnlySub.id, sorting: ["-created_at"], limit: 1 });
    const order = orders.result.items[0]!;
    // the fixed 9.00 only: 15 units consumed, 10 credited, the 5 past them not invoiced
    expect(order.subtotalAmount).toBe(900);
  });
});

describe("past due", () => {
  it("keeps access while dunning retries, unless the organization cuts it at the first failed renewal", async () => {
    const product = await createProduct(seller, "trial");
    expect((await raw("POST", `/v1/products/${product.id}/benefits`, { benefits: [flagId] })).status).toBe(200);
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    // a card that attaches but whose charges are declined
    await pay(server, checkout, { customerEmail: uniqueBuyer("entitled") }, "4000 0000 0000 9995");
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id, limit: 10 })).result.items;
    if (!sub) throw new Error("no subscription");
    const renewed = await raw("POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    expect(renewed.body.status).toBe("past_due");
    const asked = { customer_id: sub.customerId, feature: "pdf_export" };
    expect((await check(asked)).body).toMatchObject({ allowed: true, reason: null });
    const cut = await raw("PATCH", `/v1/organizations/${seller.organizationId}`, { plan_settings: { access_while_past_due: false } });
    expect(cut.status).toBe(200);
    expect((cut.body.plan_settings as { access_while_past_due: boolean }).access_while_past_due).toBe(false);
    expect((await check(asked)).body).toMatchObject({ allowed: false, reason: "subscription_past_due", kind: "feature_flag" });
    // a customer holding the flag through a paid subscription as well keeps it
    expect((await check({ customer_id: creditOnlySub.customerId, feature: "pdf_export" })).body).toMatchObject({ allowed: true });
    await raw("PATCH", `/v1/organizations/${seller.organizationId}`, { plan_settings: { access_while_past_due: true } });
  });

  it("a seat holder's access follows the team's subscription: refused with it past due when the organization cuts", async () => {
    // seats on a trial, paid with a card that attaches but whose charges are declined: the first renewal goes past due
    const product = await createProduct(seller, "seats", { trialInterval: "day", trialIntervalCount: 14 });
    expect((await raw("POST", `/v1/products/${product.id}/benefits`, { benefits: [flagId] })).status).toBe(200);
    const checkout = await seller.sdk.checkouts.create({ products: [product.id], seats: 2 });
    await pay(server, checkout, { customerEmail: uniqueBuyer("team") }, "4000 0000 0000 9995");
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id, limit: 10 })).result.items;
    if (!sub) throw new Error("no subscription");
    const email = uniqueBuyer("holder");
    // the invitation is mailed by the worker
    await server.worker.start();
    await seller.sdk.customerSeats.assignSeat({ subscriptionId: sub.id, email });
    const claimed = await claimSeat(server, email);
    const holderId = claimed.seat.customerId;
    if (!holderId) throw new Error("the seat has no holder");
    const asked = { customer_id: holderId, feature: "pdf_export" };
    expect((await check(asked)).body).toMatchObject({ allowed: true, kind: "feature_flag" });
    const before = await stateChanges(holderId);
    const renewed = await raw("POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    expect(renewed.body.status).toBe("past_due");
    // the holder's cache is told: its answers may change with the team's subscription
    expect(await stateChanges(holderId)).toBe(before + 1);
    expect((await check(asked)).body).toMatchObject({ allowed: true });
    expect((await raw("PATCH", `/v1/organizations/${seller.organizationId}`, { plan_settings: { access_while_past_due: false } })).status).toBe(200);
    try {
      expect((await check(asked)).body).toMatchObject({ allowed: false, reason: "subscription_past_due", kind: "feature_flag" });
    } finally {
      await raw("PATCH", `/v1/organizations/${seller.organizationId}`, { plan_settings: { access_while_past_due: true } });
    }
  });
});

describe("the caller", () => {
  it("an unknown feature is the seller's mistake: 422", async () => {
    const res = await check({ customer_id: creditOnlySub.customerId, feature: "no-such-thing" });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain("feature");
  });

  it("exactly one of customer_id and external_customer_id", async () => {
    expect((await check({ feature: "pdf_export" })).status).toBe(422);
    expect((await check({ customer_id: creditOnlySub.customerId, external_customer_id: "x", feature: "pdf_export" })).status).toBe(422);
  });

  it("another organization's customer is unknown here", async () => {
    const flag = await rawRequest(server.url, other.token, "POST", "/v1/benefits/", { type: "feature_flag", description: "PDF export", properties: {}, metadata: { key: "pdf_export" } });
    expect(flag.status).toBe(201);
    const res = await check({ customer_id: creditOnlySub.customerId, feature: "pdf_export" }, other.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ allowed: false, reason: "customer_not_found", customer_id: null });
  });

  it("customers:read or entitlements:read may check; other scopes may not", async () => {
    const reader = await seller.createKey({ customers: ["read"] });
    expect((await check({ customer_id: creditOnlySub.customerId, feature: "pdf_export" }, reader)).body).toMatchObject({ allowed: true });
    const narrow = await seller.createKey({ entitlements: ["read"] });
    expect((await check({ customer_id: creditOnlySub.customerId, feature: "pdf_export" }, narrow)).status).toBe(200);
    expect((await raw("GET", `/v1/customers/${creditOnlySub.customerId}`, undefined, narrow)).status).toBe(403);
    const products = await seller.createKey({ products: ["read"] });
    expect((await check({ customer_id: creditOnlySub.customerId, feature: "pdf_export" }, products)).status).toBe(403);
  });
});
