// Meter credits the way sellers ask for them, over three periods on the test clock, through @polar-sh/sdk 0.47.1 and
// 0.49.0 where the wire has the field and plain HTTP for till's extension properties (docs/credits.md): credits granted
// once at purchase and never at renewal; a year's credits granted month by month; a credit pool per subscription for
// a customer with two subscriptions on one meter; credits in proportion to a pay-what-you-want amount. The SDKs drop
// the extension properties from their requests and from the responses they parse, so both still read every benefit.
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { claimDueMonthlyCredits } from "../../server/billing/subscriptions/meter-credits-repository.js";
import { benefitGrant } from "../../server/db/schema/index.js";
import { pay, subscribeThroughCheckout } from "../helpers/checkout.js";
import { usingPostgres } from "../helpers/db.js";
import { clockFixture } from "./test-clock-fixtures.js";

const fx = clockFixture();
let n = 0;

async function computeMeter(): Promise<Meter> {
  const name = `compute-${n++}`;
  return fx.sdk.meters.create({ name, filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] }, aggregation: { func: "count" } });
}

/** A meter_credit benefit with till's extension properties, created over plain HTTP. */
async function creditBenefit(properties: Record<string, unknown>): Promise<{ id: string; properties: Record<string, unknown> }> {
  const res = await fx.raw("POST", "/v1/benefits/", { type: "meter_credit", description: `Credits ${n++}`, properties });
  expect(res.status).toBe(201);
  return res.body as { id: string; properties: Record<string, unknown> };
}

async function plan(name: string, interval: "month" | "year", benefitId: string, meter: Meter | null, amount = 1000): Promise<Product> {
  const product = await fx.sdk.products.create({
    name,
    recurringInterval: interval,
    prices: [
      { amountType: "fixed", priceAmount: amount, priceCurrency: "usd" },
      ...(meter ? [{ amountType: "metered_unit" as const, meterId: meter.id, unitAmount: "10", priceCurrency: "usd" as const }] : []),
    ],
  });
  await fx.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefitId] } });
  return product;
}

async function ingest(meter: Meter, customerId: string, count: number, metadata: Record<string, string> = {}) {
  const res = await fx.raw("POST", "/v1/events/ingest", { events: Array.from({ length: count }, () => ({ name: meter.name, customer_id: customerId, metadata })) });
  expect(res.status).toBe(200);
}

async function credited(customerId: string, meter: Meter) {
  const state = await fx.sdk.customers.getState({ id: customerId });
  const m = state.activeMeters.find((a) => a.meterId === meter.id);
  return { credited: m?.creditedUnits ?? 0, consumed: m?.consumedUnits ?? 0, balance: m?.balance ?? 0 };
}

async function lastOrder(subscriptionId: string) {
  const [order] = (await fx.sdk.orders.list({ subscriptionId, sorting: ["-created_at"], limit: 1 })).result.items;
  if (!order) throw new Error("no order");
  return order;
}

const meteredLines = (order: Awaited<ReturnType<typeof lastOrder>>) => order.items.filter((i) => i.label.includes("—")).map((i) => ({ label: i.label, amount: i.amount }));

describe("meter credits on the test clock", () => {
  it("the SDKs read a benefit with till's properties; their requests carry Polar's three only", async () => {
    const meter = await computeMeter();
    const b = await creditBenefit({ units: 100, rollover: false, meter_id: meter.id, schedule: "monthly", pool: "subscription" });
    expect(b.properties).toEqual({ units: 100, rollover: false, meter_id: meter.id, schedule: "monthly", pool: "subscription" });
    const read = await fx.sdk.benefits.get({ id: b.id });
    expect(read).toMatchObject({ type: "meter_credit", properties: { units: 100, rollover: false, meterId: meter.id } });
    expect((await fx.sdk049.benefits.get({ id: b.id })).type).toBe("meter_credit");
    // through the SDK the extension is dropped from the request: Polar's behaviour (a credit each period)
    const viaSdk = await fx.sdk.benefits.create({ type: "meter_credit", description: "SDK credits", properties: { units: 5, rollover: true, meterId: meter.id } });
    const stored = await fx.raw("GET", `/v1/benefits/${viaSdk.id}`);
    expect(stored.body.properties).toEqual({ units: 5, rollover: true, meter_id: meter.id });
    // bad extension values are a 422 naming the field
    const bad = await fx.raw("POST", "/v1/benefits/", { type: "meter_credit", description: "Bad credits", properties: { units: 5, rollover: true, meter_id: meter.id, min_units: 3 } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain("min_units");
  });

  it("credits granted once at purchase are not granted again at renewal; the unused rest carries over", async () => {
    const meter = await computeMeter();
    const b = await creditBenefit({ units: 50, rollover: true, meter_id: meter.id, schedule: "once" });
    const sub = await subscribeThroughCheckout(fx.server, fx.sdk, (await plan("Once plan", "month", b.id, meter)).id, "once-1");
    expect(await credited(sub.customerId, meter)).toMatchObject({ credited: 50, consumed: 0 });
    // period 1: 20 used of 50
    await ingest(meter, sub.customerId, 20);
    await fx.advance({ to: new Date(sub.currentPeriodEnd.getTime() + 1000).toISOString() });
    expect(meteredLines(await lastOrder(sub.id))).toEqual([{ label: `Once plan — ${meter.name} (20 consumed, 20 credited, 0 billed)`, amount: 0 }]);
    expect(await credited(sub.customerId, meter)).toMatchObject({ credited: 30, consumed: 0 });
    // period 2: 40 used, 30 left of the purchase's credit: 10 billed
    await ingest(meter, sub.customerId, 40);
    const second = await fx.sdk.subscriptions.get({ id: sub.id });
    await fx.advance({ to: new Date(second.currentPeriodEnd.getTime() + 1000).toISOString() });
    expect(meteredLines(await lastOrder(sub.id))).toEqual([{ label: `Once plan — ${meter.name} (40 consumed, 30 credited, 10 billed)`, amount: 100 }]);
    // period 3: nothing credited any more
    expect(await credited(sub.customerId, meter)).toMatchObject({ credited: 0 });
    await ingest(meter, sub.customerId, 5);
    const third = await fx.sdk049.subscriptions.get({ id: sub.id });
    await fx.advance({ to: new Date(third.currentPeriodEnd.getTime() + 1000).toISOString() });
    const [line] = meteredLines(await lastOrder(sub.id));
    expect(line?.label).not.toContain("credited");
    expect(line?.amount).toBe(50);
  });

  it("a yearly plan's credits come month by month, announced with benefit_grant.cycled", async () => {
    const path = "/monthly-credits";
    const endpoint = await fx.sdk.webhooks.createWebhookEndpoint({ url: `${fx.receiver.url}${path}`, format: "raw", events: ["benefit_grant.cycled"] });
    const meter = await computeMeter();
    const b = await creditBenefit({ units: 100, rollover: false, meter_id: meter.id, schedule: "monthly" });
    const sub = await subscribeThroughCheckout(fx.server, fx.sdk, (await plan("Yearly plan", "year", b.id, null, 12_000)).id, "yearly-1");
    expect(await credited(sub.customerId, meter)).toMatchObject({ credited: 100, balance: 100 });
    await ingest(meter, sub.customerId, 80);
    expect(await credited(sub.customerId, meter)).toMatchObject({ credited: 100, consumed: 80, balance: 20 });
    // three months: each adds 100 to the year's credit
    for (const month of [1, 2, 3]) {
      const clock = await fx.clock();
      const at = new Date(sub.currentPeriodStart);
      at.setUTCMonth(at.getUTCMonth() + month);
      await fx.advance({ to: new Date(Math.max(at.getTime() + 1000, Date.parse(clock.now) + 1000)).toISOString() });
      expect(await credited(sub.customerId, meter)).toMatchObject({ credited: 100 * (month + 1), consumed: 80 });
    }
    const grants = await fx.raw("GET", `/v1/benefits/${b.id}/grants`);
    const props = (grants.body.items as Array<{ properties: Record<string, unknown> }>)[0]?.properties;
    expect(props).toMatchObject({ last_credited_units: 400 });
    expect(typeof props?.next_credit_at).toBe("string");
    // no renewal happened: one order, the purchase
    expect((await fx.sdk.orders.list({ subscriptionId: sub.id })).result.items).toHaveLength(1);
    // each month's credit announced, valid for both SDKs (the clock renews the file's other subscriptions meanwhile)
    const ofBenefit = (body: string) => body.includes('"benefit_grant.cycled"') && body.includes(b.id);
    const hits = await fx.receiver.until((all) => {
      const mine = all.filter((h) => h.path === path && ofBenefit(h.body));
      return mine.length >= 3 && mine;
    }, 60_000);
    const units = hits.map((hit) => {
      const event = validateEvent(hit.body, hit.headers, endpoint.secret);
      validateEvent049(hit.body, hit.headers, endpoint.secret);
      return event.type === "benefit_grant.cycled" && "lastCreditedUnits" in event.data.properties ? event.data.properties.lastCreditedUnits : null;
    });
    expect(units.sort()).toEqual([200, 300, 400]);
  });

  // a renewal or a change holds the subscription, then writes its grants: a monthly credit's claim that took the
  // grant and then waited for the subscription would deadlock with it, so it passes the grant by for that round
  it.runIf(usingPostgres)("the monthly credit's claim passes by a grant whose subscription is held, and takes it once free", async () => {
    const meter = await computeMeter();
    const b = await creditBenefit({ units: 10, rollover: false, meter_id: meter.id, schedule: "monthly" });
    const sub = await subscribeThroughCheckout(fx.server, fx.sdk, (await plan("Held plan", "year", b.id, null, 12_000)).id, "held-1");
    const { db } = fx.server.database;
    const org = (await fx.clock()).organization_id;
    const far = new Date(sub.currentPeriodEnd.getTime() - 1000);
    const claimed = () => db.transaction(async (tx) => (await claimDueMonthlyCredits(tx, far, 100, [], org)).map((g) => g.id));
    const grant = (await db.select({ id: benefitGrant.id }).from(benefitGrant).where(eq(benefitGrant.subscriptionId, sub.id)))[0]?.id;
    expect(grant).toBeDefined();
    expect(await claimed()).toContain(grant);
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let held = () => {};
    const isHeld = new Promise<void>((r) => (held = r));
    const holder = db.transaction(async (tx) => {
      await tx.execute(sql`SELECT 1 FROM subscription WHERE id = ${sub.id} FOR UPDATE`);
      held();
      await released;
    });
    await isHeld;
    expect(await claimed()).not.toContain(grant);
    release();
    await holder;
    expect(await claimed()).toContain(grant);
  });

  it("a customer with two subscriptions on one meter has a credit pool per subscription", async () => {
    const meter = await computeMeter();
    const b = await creditBenefit({ units: 10, rollover: false, meter_id: meter.id, pool: "subscription" });
    const product = await plan("Seat plan", "month", b.id, meter);
    await fx.sdk.organizations.update({
      id: (await fx.clock()).organization_id,
      organizationUpdate: {
        subscriptionSettings: { allowMultipleSubscriptions: true, allowCustomerUpdates: true, prorationBehavior: "invoice", benefitRevocationGracePeriod: 0, preventTrialAbuse: false },
      },
    });
    const first = await subscribeThroughCheckout(fx.server, fx.sdk, product.id, "pool-1");
    const checkout = await fx.sdk.checkouts.create({ products: [product.id], externalCustomerId: "pool-1" });
    await pay(fx.server, checkout, { customerEmail: "pool-1@example.com" });
    const [order] = (await fx.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const second: Subscription = await fx.sdk.subscriptions.get({ id: order?.subscriptionId ?? "" });
    expect(second.customerId).toBe(first.customerId);
    await ingest(meter, first.customerId, 15, { subscription_id: first.id });
    await ingest(meter, first.customerId, 3, { subscription_id: second.id });
    // each subscription's usage against its own pool; the customer's total beside them
    expect((await fx.sdk.subscriptions.get({ id: first.id })).meters[0]).toMatchObject({ consumedUnits: 15, creditedUnits: 10, amount: 50 });
    expect((await fx.sdk049.subscriptions.get({ id: second.id })).meters[0]).toMatchObject({ consumedUnits: 3, creditedUnits: 10, amount: 0 });
    expect(await credited(first.customerId, meter)).toMatchObject({ credited: 20, consumed: 18 });
    await fx.advance({ to: new Date(Math.max(first.currentPeriodEnd.getTime(), second.currentPeriodEnd.getTime()) + 1000).toISOString() });
    expect(meteredLines(await lastOrder(first.id))).toEqual([{ label: `Seat plan — ${meter.name} (15 consumed, 10 credited, 5 billed)`, amount: 50 }]);
    expect(meteredLines(await lastOrder(second.id))).toEqual([{ label: `Seat plan — ${meter.name} (3 consumed, 3 credited, 0 billed)`, amount: 0 }]);
  });

  it("a pay-what-you-want price credits in proportion to the amount paid, within the bounds", async () => {
    const meter = await computeMeter();
    const b = await creditBenefit({ units: 10, rollover: false, meter_id: meter.id, per_amount: 100, min_units: 20, max_units: 500 });
    const product = await fx.sdk.products.create({
      name: "Credit pack",
      prices: [{ amountType: "custom", minimumAmount: 100, maximumAmount: 100_000, presetAmount: 1000, priceCurrency: "usd" }],
    });
    await fx.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [b.id] } });
    const buy = async (amount: number, externalId: string) => {
      await fx.sdk.customers.create({ email: `${externalId}@example.com`, externalId, name: externalId });
      const checkout = await fx.sdk.checkouts.create({ products: [product.id], amount, externalCustomerId: externalId });
      await pay(fx.server, checkout, { customerEmail: `${externalId}@example.com` });
      const customer = await fx.sdk.customers.getExternal({ externalId });
      return (await credited(customer.id, meter)).credited;
    };
    // $16 at 10 credits per $1; $1 is below the floor; $900 above the ceiling
    expect(await buy(1600, "pwyw-1")).toBe(160);
    expect(await buy(100, "pwyw-2")).toBe(20);
    expect(await buy(90_000, "pwyw-3")).toBe(500);
  });
});
