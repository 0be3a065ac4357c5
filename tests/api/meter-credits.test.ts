// Meter credits through @polar-sh/sdk 0.47.1 and 0.49.0: a meter_credit benefit credits its units on
// its meter each period; the renewal bills only the usage beyond the credit (the order's metered line names
// consumed, credited and billed units); unused units roll over when the benefit says so (and not otherwise);
// Subscription.meters and the customer state show consumed, credited and the amount billed; benefit_grant.cycled
// carries the new period's credit and is valid for both SDKs' validateEvent. Money to the minor unit.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { publicSdk, subscribeThroughCheckout } from "../helpers/checkout.js";
import { pdfTextOf } from "../helpers/pdf.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let meter: Meter;
let rolling: Product;
let plain: Product;

const raw = (method: string, path: string, body?: unknown, s: Seller = seller) => rawRequest(server.url, s.token, method, path, body);
const pause = () => new Promise((r) => setTimeout(r, 25));

async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    server.worker.wake();
    await new Promise((r) => setTimeout(r, 100));
  }
}

const subscribe = (product: Product, s: Seller = seller): Promise<Subscription> => subscribeThroughCheckout(server, s.sdk, product.id);

async function ingest(count: number, customerId: string, s: Seller = seller) {
  const res = await raw("POST", "/v1/events/ingest", { events: Array.from({ length: count }, () => ({ name: "compute", customer_id: customerId })) }, s);
  expect(res.status).toBe(200);
}

async function renew(id: string, s: Seller = seller) {
  const current = await raw("GET", `/v1/subscriptions/${id}`, undefined, s);
  await pause();
  const res = await raw("POST", `/v1/subscriptions/${id}/renew`, { current_period_start: current.body.current_period_start }, s);
  expect(res.status).toBe(200);
  await pause();
  const [order] = (await s.sdk.orders.list({ subscriptionId: id, sorting: ["-created_at"], limit: 1 })).result.items;
  if (!order) throw new Error("no order");
  return order;
}

/** The text of the order's invoice PDF, once the worker made it. */
async function invoiceText(orderId: string): Promise<string> {
  await server.worker.start();
  try {
    return await until(`the invoice of ${orderId}`, async () => {
      const res = await raw("GET", `/v1/orders/${orderId}/invoice`);
      if (res.status !== 200) return null;
      return pdfTextOf(new Uint8Array(await (await fetch((res.body as { url: string }).url)).arrayBuffer()));
    });
  } finally {
    await server.worker.stop();
  }
}

async function plan(s: Seller, name: string, rollover: boolean, meterId: string): Promise<Product> {
  const product = await s.sdk.products.create({
    name,
    recurringInterval: "month",
    prices: [
      { amountType: "fixed", priceAmount: 500, priceCurrency: "usd" },
      { amountType: "metered_unit", meterId, unitAmount: "30", priceCurrency: "usd" },
    ],
  });
  const benefit = await s.sdk.benefits.create({ type: "meter_credit", description: `${name} credits`, properties: { units: 10, rollover, meterId } });
  await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
  return product;
}

const computeMeter = (s: Seller) =>
  s.sdk.meters.create({
    name: "Compute",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "compute" }] },
    aggregation: { func: "count" },
  });

beforeAll(async () => {
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  seller = await createSeller(server, "meter-credits");
  meter = await computeMeter(seller);
  rolling = await plan(seller, "Rolling plan", true, meter.id);
  plain = await plan(seller, "Plain plan", false, meter.id);
});
afterAll(async () => server?.close());

/** An invoice's text without the "Service period: … – …" under its lines. */
const withoutPeriods = (text: string) => text.replace(/ Service period: [A-Z][a-z]+ \d{1,2}, \d{4} – [A-Z][a-z]+ \d{1,2}, \d{4}/g, "");

describe("meter credits", () => {
  it("bills only the usage beyond the credit, and rolls unused units over to the next period", async () => {
    const sub = await subscribe(rolling);
    expect(sub.meters[0]).toMatchObject({ meterId: meter.id, consumedUnits: 0, creditedUnits: 10, amount: 0 });
    await ingest(4, sub.customerId);
    // within the credit: nothing to bill
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).meters[0]).toMatchObject({ consumedUnits: 4, creditedUnits: 10, amount: 0 });

    const first = await renew(sub.id);
    expect(first.items.map((i) => ({ label: i.label, amount: i.amount }))).toEqual([
      { label: "Rolling plan", amount: 500 },
      { label: "Rolling plan — Compute (4 consumed, 4 credited, 0 billed)", amount: 0 },
    ]);
    expect(first).toMatchObject({ billingReason: "subscription_cycle", subtotalAmount: 500, totalAmount: 500 });
    // 10 new + 6 unused
    const second = await seller.sdk049.subscriptions.get({ id: sub.id });
    expect(second.meters[0]).toMatchObject({ consumedUnits: 0, creditedUnits: 16, amount: 0 });

    await ingest(20, sub.customerId);
    // 20 − 16 = 4 units beyond the credit, at 30 each
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).meters[0]).toMatchObject({ consumedUnits: 20, creditedUnits: 16, amount: 120 });
    const state = await seller.sdk.customers.getState({ id: sub.customerId });
    expect(state.activeSubscriptions.find((a) => a.id === sub.id)?.meters[0]).toMatchObject({ meterId: meter.id, consumedUnits: 20, creditedUnits: 16, amount: 120 });

    const secondOrder = await renew(sub.id);
    expect(secondOrder.items.map((i) => ({ label: i.label, amount: i.amount }))).toEqual([
      { label: "Rolling plan", amount: 500 },
      { label: "Rolling plan — Compute (20 consumed, 16 credited, 4 billed)", amount: 120 },
    ]);
    expect(secondOrder).toMatchObject({ subtotalAmount: 620, totalAmount: 620, status: "paid" });
    // the credit was used up: 10 new, nothing rolled over
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).meters[0]).toMatchObject({ consumedUnits: 0, creditedUnits: 10 });
  });

  it("without rollover, each period is credited the benefit's units only", async () => {
    const sub = await subscribe(plain);
    await ingest(3, sub.customerId);
    const order = await renew(sub.id);
    expect(order.items.map((i) => i.amount)).toEqual([500, 0]);
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).meters[0]).toMatchObject({ consumedUnits: 0, creditedUnits: 10 });
    await ingest(12, sub.customerId);
    const next = await renew(sub.id);
    // 12 − 10 = 2 units at 30
    expect(next.items.map((i) => [i.label, i.amount])).toEqual([
      ["Plain plan", 500],
      ["Plain plan — Compute (12 consumed, 10 credited, 2 billed)", 60],
    ]);
    expect(next.totalAmount).toBe(560);
  });

  it("the customer state, the portal's meters and the renewal's invoice show the period's consumed, credited and billed units", async () => {
    const sub = await subscribe(rolling);
    const { token } = await seller.sdk.customerSessions.create({ customerId: sub.customerId });
    const meterOf = async () => {
      const state = await seller.sdk.customers.getState({ id: sub.customerId });
      const viaPortal = await publicSdk(server).customerPortal.customerMeters.list({ customerSession: token }, { meterId: meter.id });
      const mine = state.activeMeters.find((m) => m.meterId === meter.id);
      expect(viaPortal.result.items.map((m) => ({ consumedUnits: m.consumedUnits, creditedUnits: m.creditedUnits, balance: m.balance }))).toEqual([
        { consumedUnits: mine?.consumedUnits, creditedUnits: mine?.creditedUnits, balance: mine?.balance },
      ]);
      return mine;
    };
    await ingest(4, sub.customerId);
    expect(await meterOf()).toMatchObject({ consumedUnits: 4, creditedUnits: 10, balance: 6 });
    await renew(sub.id);
    // the meter starts over with the period: 10 new units and the 6 unused rolled over
    expect(await meterOf()).toMatchObject({ consumedUnits: 0, creditedUnits: 16, balance: 16 });
    await ingest(20, sub.customerId);
    expect(await meterOf()).toMatchObject({ consumedUnits: 20, creditedUnits: 16, balance: -4 });
    const order = await renew(sub.id);
    expect(await meterOf()).toMatchObject({ consumedUnits: 0, creditedUnits: 10, balance: 10 });

    // the invoice's metered line names the units (20 consumed, 16 credited, 4 billed) and is 4 × $0.30
    // (each line's service period, printed under it, is left out here: tests/api/invoices.test.ts reads those)
    const text = withoutPeriods(await invoiceText(order.id));
    expect(text).toContain("Rolling plan — Compute (20 consumed, 16 credited, 4 billed) 4 $0.30 $1.20");
    expect(text).toContain("Total $6.20");
  });

  it("an invoice prints a metered line as billed units × the price's unit amount, a fractional one as the price has it", async () => {
    const product = await seller.sdk.products.create({
      name: "Fraction plan",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 500, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "1.5", priceCurrency: "usd" },
      ],
    });
    const sub = await subscribe(product);
    await ingest(7, sub.customerId);
    const order = await renew(sub.id);
    // 7 × 1.5¢ = 10.5¢, billed 11¢ (rounded half up, stored on the line): the unit price keeps its digits
    expect(order.items.map((i) => i.amount)).toEqual([500, 11]);
    const text = withoutPeriods(await invoiceText(order.id));
    expect(text).toContain("Fraction plan 1 $5.00 $5.00");
    expect(text).toContain("Fraction plan — Compute 7 $0.015 $0.11");
    expect(text).toContain("Total $5.11");
  });

  it("a renewal paid late (past due, then paid from the portal) credits the new period as the renewal would have", async () => {
    const sub = await subscribe(rolling);
    const { token: session } = await seller.sdk.customerSessions.create({ customerId: sub.customerId });
    const portal = (method: string, path: string, body?: unknown) => rawRequest(server.url, session, method, `/v1/customer-portal${path}`, body);
    const card = async (number: string) => {
      const res = await portal("POST", "/customers/me/payment-methods/test-card", { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: "123" });
      expect(res.status).toBe(200);
      return res.body.confirmation_token_id as string;
    };
    // the customer's default card becomes one whose charges fail
    const added = await portal("POST", "/customers/me/payment-methods", { confirmation_token_id: await card("4000 0000 0000 0341"), set_default: true, return_url: "https://example.com/" });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    await ingest(4, sub.customerId);
    const order = await renew(sub.id);
    expect(order).toMatchObject({ status: "pending", totalAmount: 500 });
    // declined: no new credit yet
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).meters[0]).toMatchObject({ consumedUnits: 0, creditedUnits: 10 });
    const paid = await portal("POST", `/orders/${order.id}/confirm-payment`, { confirmation_token_id: await card("4242 4242 4242 4242") });
    expect(paid.body).toMatchObject({ status: "succeeded" });
    // paid: 10 new + the 6 the renewed period left unused
    const after = await seller.sdk.subscriptions.get({ id: sub.id });
    expect(after.status).toBe("active");
    expect(after.meters[0]).toMatchObject({ consumedUnits: 0, creditedUnits: 16 });
  });

  it("benefit_grant.cycled carries the new period's credit, valid for both SDKs", async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const s = await createSeller(server, "meter-credits-hooks");
      const m = await computeMeter(s);
      const product = await plan(s, "Hooks plan", true, m.id);
      const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/m`, format: "raw", events: ["benefit_grant.cycled", "order.paid"] });
      const sub = await subscribe(product, s);
      await ingest(7, sub.customerId, s);
      await server.worker.start();
      await renew(sub.id, s);
      const hits = await receiver.until((all) => {
        const parsed = all.map((h) => ({ h, body: JSON.parse(h.body) as { type: string; data: Record<string, unknown> } }));
        const cycled = parsed.find((p) => p.body.type === "benefit_grant.cycled");
        const paid = parsed.find((p) => p.body.type === "order.paid" && p.body.data.billing_reason === "subscription_cycle");
        return cycled && paid ? [cycled, paid] : undefined;
      });
      for (const { h, body } of hits) {
        expect(validateEvent(h.body, h.headers, endpoint.secret).type).toBe(body.type);
        expect(validateEvent049(h.body, h.headers, endpoint.secret).type).toBe(body.type);
      }
      const cycled = validateEvent(hits[0]!.h.body, hits[0]!.h.headers, endpoint.secret);
      if (cycled.type !== "benefit_grant.cycled") throw new Error("not cycled");
      // 10 new + 3 unused of the first period's 10
      expect(cycled.data.properties).toMatchObject({ lastCreditedMeterId: m.id, lastCreditedUnits: 13 });
      expect((hits[1]!.body.data.items as Array<{ label: string; amount: number }>).map((i) => i.label)).toEqual([
        "Hooks plan",
        "Hooks plan — Compute (7 consumed, 7 credited, 0 billed)",
      ]);
    } finally {
      await server.worker.stop();
      await receiver.stop();
    }
  });
});
