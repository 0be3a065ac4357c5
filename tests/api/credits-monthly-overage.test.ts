// Monthly credits on a yearly plan bill their overage monthly, over three months and the renewal on the test clock:
// each month's usage beyond the credits so far is billed by an order of its own when the next month is credited
// (billing_reason subscription_cycle, charged to the saved card), the units billed count as the period's credit from
// then on (the next month starts from its own credits), a month within its credits bills nothing, and the yearly
// renewal bills only what no monthly order billed, its line naming the units billed monthly. A credit_only price has
// no monthly order. A monthly order the card declines leaves the subscription past due and in dunning: retried on
// the dunning schedule as the clock moves, canceled when the last retry fails.
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import { describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { subscribeThroughCheckout } from "../helpers/checkout.js";
import { clockFixture, DAY } from "./test-clock-fixtures.js";

const fx = clockFixture();
let n = 0;

async function computeMeter(): Promise<Meter> {
  const name = `overage-${n++}`;
  return fx.sdk.meters.create({ name, filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] }, aggregation: { func: "count" } });
}

async function yearlyPlan(meter: Meter, overage?: "credit_only") {
  const properties = { units: 100, rollover: false, meter_id: meter.id, schedule: "monthly" };
  const b = await fx.raw("POST", "/v1/benefits/", { type: "meter_credit", description: `Monthly credits ${n++}`, properties });
  expect(b.status).toBe(201);
  const metered = { amount_type: "metered_unit", meter_id: meter.id, unit_amount: "10", price_currency: "usd", ...(overage ? { overage } : {}) };
  const product = await fx.raw("POST", "/v1/products/", {
    name: `Yearly ${n++}`,
    recurring_interval: "year",
    prices: [{ amount_type: "fixed", price_amount: 12_000, price_currency: "usd" }, metered],
  });
  expect(product.status).toBe(201);
  expect((await fx.raw("POST", `/v1/products/${product.body.id}/benefits`, { benefits: [b.body.id] })).status).toBe(200);
  return { productId: product.body.id as string, productName: product.body.name as string, benefitId: b.body.id as string };
}

async function ingest(meter: Meter, customerId: string, count: number) {
  const res = await fx.raw("POST", "/v1/events/ingest", { events: Array.from({ length: count }, () => ({ name: meter.name, customer_id: customerId })) });
  expect(res.status).toBe(200);
}

async function meterState(customerId: string, meter: Meter) {
  const state = await fx.sdk.customers.getState({ id: customerId });
  const m = state.activeMeters.find((a) => a.meterId === meter.id);
  return { credited: m?.creditedUnits ?? 0, consumed: m?.consumedUnits ?? 0, balance: m?.balance ?? 0 };
}

async function orders(subscriptionId: string) {
  const list = await fx.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 50 });
  return list.result.items.map((o) => ({ reason: o.billingReason, status: o.status, net: o.netAmount, lines: o.items.map((i) => ({ label: i.label, amount: i.amount })) }));
}

/** Moves the clock just past the subscription's month `month` (its period start plus that many months). */
async function toMonth(start: Date, month: number) {
  const at = new Date(start);
  at.setUTCMonth(at.getUTCMonth() + month);
  const clock = await fx.clock();
  await fx.advance({ to: new Date(Math.max(at.getTime() + 1000, Date.parse(clock.now) + 1000)).toISOString() });
}

describe("monthly credits on a yearly plan", () => {
  it("bill each month's overage when the next month is credited; the renewal bills the rest", async () => {
    const meter = await computeMeter();
    const plan = await yearlyPlan(meter);
    const sub = await subscribeThroughCheckout(fx.server, fx.sdk, plan.productId, "monthly-overage-1");
    const line = (text: string, amount: number) => ({ label: `${plan.productName} — ${meter.name} (${text})`, amount });
    // month 1: 150 used of 100 credits — 50 billed at the month's end, and month 2 starts from its own 100
    await ingest(meter, sub.customerId, 150);
    await toMonth(sub.currentPeriodStart, 1);
    let list = await orders(sub.id);
    expect(list).toHaveLength(2);
    expect(list[1]).toEqual({ reason: "subscription_cycle", status: "paid", net: 500, lines: [line("150 consumed, 100 credited, 50 billed", 500)] });
    expect(await meterState(sub.customerId, meter)).toEqual({ credited: 250, consumed: 150, balance: 100 });
    // month 2: 30 used, within its credits: no order
    await ingest(meter, sub.customerId, 30);
    await toMonth(sub.currentPeriodStart, 2);
    expect(await orders(sub.id)).toHaveLength(2);
    expect(await meterState(sub.customerId, meter)).toMatchObject({ credited: 350, consumed: 180 });
    // month 3: 200 used; month 2's 70 unused credits still count within the year: 30 billed
    await ingest(meter, sub.customerId, 200);
    await toMonth(sub.currentPeriodStart, 3);
    list = await orders(sub.id);
    expect(list).toHaveLength(3);
    expect(list[2]).toEqual({ reason: "subscription_cycle", status: "paid", net: 300, lines: [line("380 consumed, 300 credited, 50 billed monthly, 30 billed", 300)] });
    expect((await fx.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    // the renewal: nothing more past the credits, the units billed monthly said apart; the new period starts afresh
    await fx.advance({ to: new Date(sub.currentPeriodEnd.getTime() + 1000).toISOString() });
    list = await orders(sub.id);
    const renewal = list[list.length - 1];
    expect(renewal?.lines).toContainEqual(line("380 consumed, 300 credited, 80 billed monthly, 0 billed", 0));
    expect(renewal?.net).toBe(12_000);
    expect(list.filter((o) => o.reason === "subscription_cycle")).toHaveLength(3);
    const grants = await fx.raw("GET", `/v1/benefits/${plan.benefitId}/grants`);
    const props = (grants.body.items as Array<{ properties: Record<string, unknown> }>)[0]?.properties;
    expect(props).toMatchObject({ last_credited_units: 100, monthly_billed_units: 0 });
  }, 180_000);

  it("a credit_only price has no monthly order: usage past the credits is not billed", async () => {
    const meter = await computeMeter();
    const plan = await yearlyPlan(meter, "credit_only");
    const sub = await subscribeThroughCheckout(fx.server, fx.sdk, plan.productId, "monthly-overage-2");
    await ingest(meter, sub.customerId, 150);
    await toMonth(sub.currentPeriodStart, 1);
    expect(await orders(sub.id)).toHaveLength(1);
    expect(await meterState(sub.customerId, meter)).toMatchObject({ credited: 200, consumed: 150 });
  });

  it("a declined monthly order puts the subscription past due and duns it", async () => {
    const meter = await computeMeter();
    const plan = await yearlyPlan(meter);
    const sub = await subscribeThroughCheckout(fx.server, fx.sdk, plan.productId, "monthly-overage-3");
    // the customer makes a card whose charges fail its default, in the portal
    const { token } = await fx.sdk.customerSessions.create({ customerId: sub.customerId });
    const portal = (method: string, path: string, body?: unknown) => rawRequest(fx.server.url, token, method, `/v1/customer-portal${path}`, body);
    const card = await portal("POST", "/customers/me/payment-methods/test-card", { number: "4000 0000 0000 0341", exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: "123" });
    expect(card.status).toBe(200);
    const added = await portal("POST", "/customers/me/payment-methods", { confirmation_token_id: card.body.confirmation_token_id, set_default: true, return_url: "https://example.com/" });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    await ingest(meter, sub.customerId, 150);
    await toMonth(sub.currentPeriodStart, 1);
    const list = await orders(sub.id);
    expect(list).toHaveLength(2);
    expect(list[1]).toMatchObject({ reason: "subscription_cycle", status: "pending", net: 500 });
    expect((await fx.sdk.subscriptions.get({ id: sub.id })).status).toBe("past_due");
    // dunning: retried 3 days after the failure (declined again: still past due), then after 5 and 7 more
    const retry = async (days: number) => {
      const now = Date.parse((await fx.clock()).now);
      const res = await fx.raw("POST", "/v1/test-clock/advance", { to: new Date(now + days * DAY + 1000).toISOString() });
      expect(res.status).toBe(200);
      return res.body.retries;
    };
    expect(await retry(3)).toBe(1);
    expect((await fx.sdk.subscriptions.get({ id: sub.id })).status).toBe("past_due");
    expect((await orders(sub.id))[1]).toMatchObject({ status: "pending", net: 500 });
    expect(await retry(5)).toBe(1);
    expect(await retry(7)).toBe(1);
    // the last retry failed: the organization's final action (cancel by default) ends the subscription
    const ended = await fx.sdk.subscriptions.get({ id: sub.id });
    expect(ended.status).toBe("canceled");
    expect(ended.endedAt).not.toBeNull();
  }, 180_000);
});
