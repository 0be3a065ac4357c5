// Tiers, caps and usage alerts on metered prices over three periods on the test clock, against
// amounts computed by hand: a graduated price (first 1,000 free, next 9,000 at $0.002, then $0.0015 and a $5
// flat fee) and a volume price (1,000 at $0.01, up to 10,000 at $0.005, then all at $0.0025 + $10) capped at
// $40, with usage at the tiers' boundaries and a cap reached in the middle of the third period. Every answer
// carrying the new data parses in both SDKs (unit_tiers is till's own and dropped by them); usage alerts fire
// once per alert, customer and period at ingest time, go only to the endpoint that names their type, and mail
// the owners (and the customer when asked); the invoice PDFs show the tier lines and the cap note; an alert's measure
// over the rollups leaves out the events of the period's first hour from before the period started, as the renewal
// does.
import type { Polar } from "@polar-sh/sdk";
import type { Polar as Polar049 } from "polar-sdk-049";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerEmail, meterRollupState, usageAlertCrossing } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { subscribeThroughCheckout } from "../helpers/checkout.js";
import { pdfTextOf } from "../helpers/pdf.js";
import { formatMoney, formatUnitAmount } from "../../shared/money.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { uniqueEmail } from "../helpers/client.js";

let server: TestServer;
let seller: Seller;
let receiver: Receiver;
let key: string;
let sdk: Polar;
let sdk049: Polar049;

const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, key, method, path, body);

async function eventually<T>(fn: () => Promise<T | null>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error("not ready in time");
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "tiers");
  key = await seller.createSandboxKey();
  sdk = sdkFor(server, key);
  sdk049 = sdk049For(server, key);
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

const subscribe = (product: Product, externalId: string): Promise<Subscription> => subscribeThroughCheckout(server, sdk, product.id, externalId);

const ingest = async (externalId: string, units: number) => {
  const res = await raw("POST", "/v1/events/ingest", { events: [{ name: "tokens", external_customer_id: externalId, metadata: { units } }] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

describe("tiered and capped metered prices over three periods, with usage alerts", () => {
  it("bills hand-computed amounts at the tiers' boundaries and the cap, says so on the lines, and fires each alert once per period", async () => {
    const meter = await sdk.meters.create({
      name: "tokens",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] },
      aggregation: { func: "sum", property: "units" },
    });
    const tiers = async (name: string, price: Record<string, unknown>) => {
      const res = await raw("POST", "/v1/products/", {
        name,
        recurring_interval: "month",
        prices: [{ amount_type: "metered_unit", meter_id: meter.id, price_currency: "usd", ...price }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return sdk.products.get({ id: res.body.id as string });
    };
    const graduated = await tiers("Graduated", {
      unit_tiers: {
        tier_type: "graduated",
        tiers: [
          { up_to: 1000, unit_amount: "0" },
          { up_to: 10000, unit_amount: "0.2" },
          { up_to: null, unit_amount: "0.15", flat_amount: 500 },
        ],
      },
    });
    const volume = await tiers("Volume", {
      cap_amount: 4000,
      unit_tiers: {
        tier_type: "volume",
        tiers: [
          { up_to: 1000, unit_amount: "1" },
          { up_to: 10000, unit_amount: "0.5" },
          { up_to: null, unit_amount: "0.25", flat_amount: 1000 },
        ],
      },
    });
    // both SDKs parse the products (unit_amount is the first tier's; unit_tiers is till's and not theirs)
    expect(graduated.prices[0]).toMatchObject({ amountType: "metered_unit", unitAmount: "0", capAmount: null });
    expect((await sdk049.products.get({ id: volume.id })).prices[0]).toMatchObject({ amountType: "metered_unit", unitAmount: "1", capAmount: 4000 });
    expect((await sdk049.products.list({ limit: 10 })).result.items).toHaveLength(2);
    const rawVolume = await raw("GET", `/v1/products/${volume.id}`);
    expect((rawVolume.body.prices as Array<Record<string, unknown>>)[0]?.unit_tiers).toMatchObject({ tier_type: "volume" });

    // alerts: 5,000 units for every customer; the cap reached, mailed to the customer too
    const units = await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "units", threshold: 5000 });
    expect(units.status, JSON.stringify(units.body)).toBe(201);
    const cap = await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "cap_percent", threshold: 100, notify_customer: true });
    expect(cap.status).toBe(201);
    expect((await raw("GET", `/v1/usage-alerts/?meter_id=${meter.id}`)).body.items).toHaveLength(2);
    // one endpoint names till's alert type, another takes every Polar type: only the first gets alerts
    await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/alerts`, format: "raw", events: ["till.usage_alert.triggered"] as never });
    const polarEndpoint = await sdk.webhooks.createWebhookEndpoint({
      url: `${receiver.url}/polar`,
      format: "raw",
      events: ["order.paid", "subscription.updated", "customer.state_changed"],
    });

    const a = await subscribe(graduated, "grad-1");
    const b = await subscribe(volume, "vol-1");

    // period 1: exactly the first tier's bound
    await ingest("grad-1", 1000);
    await ingest("vol-1", 1000);
    const renewTo = async (sub: Subscription) => {
      const end = (await sdk.subscriptions.get({ id: sub.id })).currentPeriodEnd;
      const res = await raw("POST", "/v1/test-clock/advance", { to: new Date(end.getTime() + 60_000).toISOString() });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await renewTo(b.currentPeriodEnd > a.currentPeriodEnd ? b : a);
    // period 2: one unit past the second tier
    await ingest("grad-1", 10001);
    await ingest("vol-1", 10001);
    await renewTo(b.currentPeriodEnd > a.currentPeriodEnd ? b : a);
    // period 3: 15,000, then the cap is reached in the middle of the period, then 15,000 more
    await ingest("grad-1", 15000);
    await ingest("vol-1", 15000);
    const mid = await sdk049.subscriptions.get({ id: b.id });
    // 15,000 × $0.0025 + $10 = $47.50, capped at $40
    expect(mid.meters[0]).toMatchObject({ consumedUnits: 15000, amount: 4000 });
    // graduated: 9,000 × 0.2 + 5,000 × 0.15 + 500 = 1,800 + 750 + 500
    expect((await sdk.subscriptions.get({ id: a.id })).meters[0]).toMatchObject({ consumedUnits: 15000, amount: 3050 });
    const state = await sdk049.customers.getState({ id: a.customerId });
    expect(state.activeSubscriptions[0]?.meters[0]).toMatchObject({ consumedUnits: 15000, amount: 3050 });
    await sdk.customers.getState({ id: b.customerId });
    // the customer meters (units: the same consumption, no tiers or cap in Polar's shape) parse in both SDKs
    const meters047 = (await sdk.customerMeters.list({ customerId: b.customerId })).result.items;
    const meters049 = (await sdk049.customerMeters.list({ customerId: b.customerId })).result.items;
    expect(meters047.map((m) => m.consumedUnits)).toEqual([15000]);
    expect(meters049.map((m) => m.consumedUnits)).toEqual([15000]);
    await ingest("grad-1", 15000);
    await ingest("vol-1", 15000);
    // the volume customer reads German: its last invoice says the metered line in German, from the line's figures
    expect((await raw("PATCH", `/v1/customers/${b.customerId}`, { locale: "de" })).status).toBe(200);
    await renewTo(b.currentPeriodEnd > a.currentPeriodEnd ? b : a);

    const cycles = async (sub: Subscription) =>
      (await sdk049.orders.list({ subscriptionId: sub.id, sorting: ["created_at"], limit: 10 })).result.items.filter((o) => o.billingReason === "subscription_cycle");
    const gradOrders = await cycles(a);
    expect(gradOrders.map((o) => o.items.map((i) => [i.label, i.amount]))).toEqual([
      [["Graduated — tokens: 1,000 at $0.00", 0]],
      // 0 + 1,800 + 0.15 + 500 = 2,300.15 → 2,300
      [["Graduated — tokens: first 1,000 at $0.00, next 9,000 at $0.002, 1 at $0.0015 + $5.00", 2300]],
      // 0 + 1,800 + 3,000 + 500
      [["Graduated — tokens: first 1,000 at $0.00, next 9,000 at $0.002, 20,000 at $0.0015 + $5.00", 5300]],
    ]);
    const volOrders = await cycles(b);
    expect(volOrders.map((o) => o.items.map((i) => [i.label, i.amount]))).toEqual([
      [["Volume — tokens: 1,000 at $0.01", 1000]],
      // 10,001 × 0.25 + 1,000 = 3,500.25 → 3,500
      [["Volume — tokens: 10,001 at $0.0025 + $10.00", 3500]],
      // 30,000 × 0.25 + 1,000 = 8,500, capped at 4,000
      [["Volume — tokens: 30,000 at $0.0025 + $10.00; capped at $40.00; $45.00 of usage not billed", 4000]],
    ]);
    expect(volOrders.map((o) => o.totalAmount)).toEqual([1000, 3500, 4000]);
    await sdk.orders.get({ id: volOrders[2]!.id });

    // the invoices of period 3, read back as text: the tier lines and the cap note, amounts equal to the order's
    const invoiceText = (orderId: string) =>
      eventually(async () => {
        const res = await raw("GET", `/v1/orders/${orderId}/invoice`);
        if (res.status !== 200) return null;
        return pdfTextOf(new Uint8Array(await (await fetch(res.body.url as string)).arrayBuffer()));
      });
    const gradPdf = await invoiceText(gradOrders[2]!.id);
    expect(gradPdf).toContain("Graduated — tokens: first 1,000 at $0.00, next 9,000 at $0.002, 20,000 at $0.0015 + $5.00");
    expect(gradPdf).toMatch(/\$0\.002, 20,000 at \$0\.0015 \+ \$5\.00.*\$53\.00.*Total \$53\.00/);
    const volPdf = (await invoiceText(volOrders[2]!.id)).replace(/\s+/g, " ");
    const de = (minor: number) => formatMoney(minor, "usd", "de").replace(/\s+/g, " ");
    const deUnit = formatUnitAmount("0.25", "usd", "de").replace(/\s+/g, " ");
    // (the stored label, for the API, stays English)
    expect(volPdf).toContain(`Volume — tokens: 30.000 zu je ${deUnit} + ${de(1000)}; gedeckelt bei ${de(4000)}; ${de(4500)} der Nutzung nicht berechnet`);
    expect(volPdf).toContain(`Gesamtbetrag ${de(4000)}`);
    expect(volPdf).not.toContain("capped at");
    expect(volPdf).not.toContain(de(8500));

    // alerts: units ≥ 5,000 in periods 2 and 3 of each customer (once each, though period 3 crossed it twice);
    // the cap reached once, in period 3 of the volume customer (the graduated price has no cap)
    const alerts = await eventually(async () => (receiver.at("/alerts").length >= 5 ? receiver.at("/alerts") : null));
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at("/alerts")).toHaveLength(5);
    const payloads = alerts.map((h) => JSON.parse(h.body) as { type: string; data: Record<string, unknown> });
    expect(payloads.every((p) => p.type === "till.usage_alert.triggered")).toBe(true);
    const capHit = payloads.find((p) => (p.data.alert as { kind: string }).kind === "cap_percent");
    expect(capHit?.data).toMatchObject({ consumed_units: 15000, amount: 4750, cap_amount: 4000, value: 118.75, customer: { external_id: "vol-1" } });
    // the other endpoint got only Polar's types, each valid for both SDKs
    const polar = receiver.at("/polar");
    expect(polar.length).toBeGreaterThan(0);
    for (const hit of polar) {
      expect(JSON.parse(hit.body).type).not.toMatch(/^till\./);
      expect(() => validateEvent(hit.body, hit.headers, polarEndpoint.secret)).not.toThrow();
      expect(() => validateEvent049(hit.body, hit.headers, polarEndpoint.secret)).not.toThrow();
    }
    // emails: the owner for each crossing, the volume customer for the cap
    const mails = await server.database.db.select().from(customerEmail).where(eq(customerEmail.type, "usage_alert"));
    expect(mails.filter((m) => m.recipient === "vol-1@example.com")).toHaveLength(1);
    expect(mails.filter((m) => m.recipient !== "vol-1@example.com")).toHaveLength(5);
    // and they render and go out (the worker's mail loop)
    await eventually(async () => {
      const rows = await server.database.db.select().from(customerEmail).where(eq(customerEmail.type, "usage_alert"));
      return rows.every((m) => m.sentAt !== null) ? rows : null;
    });
  });

  it("refuses bad tiers and alerts with 422, another organization's alert with 404", async () => {
    const meter = await sdk.meters.create({ name: "bad", filter: { conjunction: "and", clauses: [] }, aggregation: { func: "count" } });
    const bad = (tiers: unknown[]) =>
      raw("POST", "/v1/products/", {
        name: "Bad",
        recurring_interval: "month",
        prices: [{ amount_type: "metered_unit", meter_id: meter.id, unit_tiers: { tier_type: "graduated", tiers } }],
      });
    expect((await bad([])).status).toBe(422);
    expect((await bad([{ up_to: 10, unit_amount: "1" }])).status).toBe(422);
    expect((await bad([{ up_to: 10, unit_amount: "1" }, { up_to: 5, unit_amount: "1" }, { up_to: null, unit_amount: "1" }])).status).toBe(422);
    expect((await bad([{ up_to: null, unit_amount: "1" }, { up_to: 5, unit_amount: "1" }])).status).toBe(422);
    expect((await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "amount", threshold: 1.5 })).status).toBe(422);
    expect((await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "percent", threshold: 1 })).status).toBe(422);
    const created = await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "units", threshold: 10 });
    const other = await createSeller(server, "tiers-other");
    const otherKey = await other.createSandboxKey();
    const id = created.body.id as string;
    expect((await rawRequest(server.url, otherKey, "GET", `/v1/usage-alerts/${id}`)).status).toBe(404);
    expect((await rawRequest(server.url, otherKey, "DELETE", `/v1/usage-alerts/${id}`)).status).toBe(404);
    expect((await rawRequest(server.url, otherKey, "POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "units", threshold: 1 })).status).toBe(422);
    expect((await raw("DELETE", `/v1/usage-alerts/${id}`)).status).toBe(204);
    expect((await raw("GET", `/v1/usage-alerts/${id}`)).status).toBe(404);
  });

  it("fires an amount alert and a credits_percent alert at ingest when their thresholds are reached, once each", async () => {
    const meter = await sdk.meters.create({
      name: "calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "call" }] },
      aggregation: { func: "count" },
    });
    const credit = await sdk.benefits.create({ type: "meter_credit", description: "10 free calls", properties: { meterId: meter.id, units: 10, rollover: false } });
    const product = await sdk.products.create({
      name: "Calls plan",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 0, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "2", priceCurrency: "usd" },
      ],
    });
    await sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [credit.id] } });
    const customer = await sdk.customers.create({ email: uniqueEmail("calls") });
    const sub = await sdk.subscriptions.create({ productId: product.id, customerId: customer.id });
    await eventually(async () => ((await sdk.subscriptions.get({ id: sub.id })).meters[0]?.creditedUnits === 10 ? true : null));
    // 50 % of the credits; 10 minor units of usage beyond them (5 calls × 2)
    const credits = await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "credits_percent", threshold: 50 });
    const amount = await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, customer_id: customer.id, kind: "amount", threshold: 10 });
    expect([credits.status, amount.status]).toEqual([201, 201]);
    const call = async (n: number) => {
      const events = Array.from({ length: n }, () => ({ name: "call", customer_id: customer.id }));
      expect((await raw("POST", "/v1/events/ingest", { events })).status).toBe(200);
    };
    const crossings = async (alert: { body: Record<string, unknown> }) =>
      (await server.database.db.select().from(usageAlertCrossing).where(eq(usageAlertCrossing.alertId, alert.body.id as string))).map((c) => c.measured);
    await call(4);
    expect([await crossings(credits), await crossings(amount)]).toEqual([[], []]);
    await call(1);
    expect(await crossings(credits)).toEqual([expect.objectContaining({ value: 50, consumed: 5 })]);
    expect(await crossings(amount)).toEqual([]);
    await call(9);
    expect(await crossings(amount)).toEqual([]);
    await call(1);
    expect(await crossings(amount)).toEqual([expect.objectContaining({ value: 10, consumed: 15 })]);
    await call(5);
    expect([(await crossings(credits)).length, (await crossings(amount)).length]).toEqual([1, 1]);
  });

  it("measures an alert over the rollups as the renewal does: events of the period's first hour before it started do not count", async () => {
    const meter = await sdk.meters.create({
      name: "probes",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "probe" }] },
      aggregation: { func: "count" },
    });
    // the alert check reads the rollups once the worker built them
    await eventually(async () => {
      const [state] = await server.database.db.select().from(meterRollupState).where(eq(meterRollupState.meterId, meter.id));
      return state?.status === "ready" ? state : null;
    });
    const product = await raw("POST", "/v1/products/", {
      name: "Probe plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 0 }, { amount_type: "metered_unit", meter_id: meter.id, unit_amount: "1" }],
    });
    const customer = await sdk.customers.create({ email: uniqueEmail("probe") });
    const sub = await sdk.subscriptions.create({ productId: product.body.id as string, customerId: customer.id });
    const start = sub.currentPeriodStart.getTime();
    const hour = Math.floor(start / 3600_000) * 3600_000;
    const alert = await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, customer_id: customer.id, kind: "units", threshold: 3 });
    expect(alert.status).toBe(201);
    const probe = async (n: number, timestamp?: number) => {
      const events = Array.from({ length: n }, () => ({ name: "probe", customer_id: customer.id, ...(timestamp ? { timestamp: new Date(timestamp).toISOString() } : {}) }));
      expect((await raw("POST", "/v1/events/ingest", { events })).status).toBe(200);
    };
    const crossings = () => server.database.db.select().from(usageAlertCrossing).where(eq(usageAlertCrossing.alertId, alert.body.id as string));
    // 5 events in the hour the period started in, before it started (none when it started on the hour)
    if (start > hour) await probe(5, hour);
    await probe(2);
    expect((await sdk.subscriptions.get({ id: sub.id })).meters[0]).toMatchObject({ consumedUnits: 2 });
    expect(await crossings()).toHaveLength(0);
    await probe(1);
    const [crossed] = await crossings();
    expect(crossed?.measured).toMatchObject({ value: 3, consumed: 3 });
    await probe(4);
    expect(await crossings()).toHaveLength(1);
  });
});
