// The test clock (issue 14 §6) end to end, in a sandbox organization through a `till_test_` key: a usage-based
// seller's plan — a $0 base price and four metered prices (compute, memory, storage, egress) per month —
// bought by customers mapped by external_id, usage ingested daily at the clock's now, and the clock advanced
// day by day over three billing periods in seconds. Each renewal order has one line per dimension with the
// period's usage at its unit price; a downgrade that cancels at period end takes effect on the clock; every
// webhook delivered is validated by `validateEvent` of SDK 0.47.1 and 0.49.0; each renewal's invoice PDF is read
// back. Then the route's rules: live
// organizations refused, bad input and too long an advance answered 422, trials and checkout expiries on the clock
// (each announced once with checkout.expired, valid for both SDKs).
import type { Polar } from "@polar-sh/sdk";
import type { Polar as Polar049 } from "polar-sdk-049";
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheckoutExpiries } from "../../server/billing/checkouts/expiry.js";
import { outbox } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { pdfTextOf } from "../helpers/pdf.js";
import { pay, publicRequest, subscribeThroughCheckout } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let receiver: Receiver;
let key: string;
let sdk: Polar;
let sdk049: Polar049;

const DAY = 86_400_000;
const formatUsd = (cents: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(cents / 100);

async function eventually<T>(fn: () => Promise<T | null>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error("not ready in time");
    await new Promise((r) => setTimeout(r, 200));
  }
}
const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, key, method, path, body);

interface Clock {
  organization_id: string;
  now: string;
  offset_ms: number;
  renewals?: number;
}

async function clock(): Promise<Clock> {
  const res = await raw("GET", "/v1/test-clock");
  expect(res.status).toBe(200);
  return res.body as unknown as Clock;
}

async function advance(body: Record<string, unknown>): Promise<Clock> {
  const res = await raw("POST", "/v1/test-clock/advance", body);
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as unknown as Clock;
}

const DIMENSIONS = ["compute", "memory", "storage", "egress"] as const;
type Dimension = (typeof DIMENSIONS)[number];
/** Unit prices in cents (decimal strings, as Polar's metered_unit takes them). */
const UNIT: Record<Dimension, string> = { compute: "1.5", memory: "0.25", storage: "3", egress: "0.9" };
/** Day `d`'s usage of a customer (`k` tells customers apart). */
const usageOf = (dim: Dimension, d: number, k: number) => ({ compute: 10 + (d % 5) + k, memory: 33 + (d % 3), storage: 2, egress: 7 + (d % 4) * k })[dim];

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "clock");
  key = await seller.createSandboxKey();
  sdk = sdkFor(server, key);
  sdk049 = sdk049For(server, key);
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

const subscribe = (product: Product, externalId: string): Promise<Subscription> => subscribeThroughCheckout(server, sdk, product.id, externalId);

describe("a usage-based plan over three billing periods on the test clock", () => {
  it("renews period by period with one line per dimension, cancels at period end on the clock, every webhook valid for both SDKs", async () => {
    const path = "/clock";
    const endpoint = await sdk.webhooks.createWebhookEndpoint({
      url: `${receiver.url}${path}`,
      format: "raw",
      events: ["order.created", "order.paid", "subscription.created", "subscription.updated", "subscription.canceled", "subscription.revoked"],
    });

    const meters = {} as Record<Dimension, Meter>;
    for (const dim of DIMENSIONS) {
      meters[dim] = await sdk.meters.create({
        name: dim,
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: dim }] },
        aggregation: { func: "sum", property: "units" },
      });
    }
    const product = await sdk.products.create({
      name: "Cloud",
      recurringInterval: "month",
      // no static price at all: the plan is its four metered prices (the $0 base as a fixed price of 0, 0.49's
      // free price, runs in tests/e2e/usage-plan-clock.test.ts)
      prices: [
        ...DIMENSIONS.map((dim) => ({ amountType: "metered_unit" as const, meterId: meters[dim].id, unitAmount: UNIT[dim], priceCurrency: "usd" as const })),
      ],
    });

    const subs = [await subscribe(product, "acme-1"), await subscribe(product, "acme-2")];
    // usage is pushed from the clock's now on, after both subscriptions started
    const started = await clock();
    for (const s of subs) expect(s).toMatchObject({ status: "active", amount: 0 });
    expect(Date.parse(started.now) - subs[1]!.currentPeriodStart.getTime()).toBeGreaterThanOrEqual(0);
    expect(Date.parse(started.now) - subs[0]!.currentPeriodStart.getTime()).toBeLessThan(60_000);

    // usage per customer and period (a period: the subscription's renewals before the event), each subscription's
    // period ends as the clock passed them
    const expected = subs.map(() => [0, 1, 2, 3].map(() => ({ compute: 0, memory: 0, storage: 0, egress: 0 }) as Record<Dimension, number>));
    const ends = subs.map((s) => [s.currentPeriodEnd.getTime()]);
    const periodEnds = ends[0]!;
    const wallStart = Date.now();
    let day = 0;
    let downgraded = false;
    let now = Date.parse(started.now);
    // three periods: day by day, the usage of each day pushed at the clock's now, then a day on
    while (periodEnds.length < 4) {
      const events = subs.flatMap((s, k) => {
        const period = ends[k]!.filter((end) => end <= now).length;
        if (k === 1 && period >= 2) return []; // the second customer's subscription ended with its second period
        return DIMENSIONS.map((dim) => {
          const units = usageOf(dim, day, k);
          expected[k]![period]![dim] += units;
          return { name: dim, external_customer_id: `acme-${k + 1}`, timestamp: new Date(now).toISOString(), metadata: { units } };
        });
      });
      if (events.length > 0) {
        const res = await raw("POST", "/v1/events/ingest", { events });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      // a downgrade in the middle of the second period: the second customer cancels at its end
      if (!downgraded && now > periodEnds[0]! + 10 * DAY) {
        const canceled = await sdk.subscriptions.update({ id: subs[1]!.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
        expect(canceled).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
        expect(canceled.endsAt?.getTime()).toBe(canceled.currentPeriodEnd.getTime());
        downgraded = true;
      }
      const moved = await advance({ by: "1d" });
      now = Date.parse(moved.now);
      day += 1;
      for (const [k, s] of subs.entries()) {
        const current = await sdk.subscriptions.get({ id: s.id });
        const mine = ends[k]!;
        if (current.status !== "canceled" && current.currentPeriodEnd.getTime() > mine.at(-1)!) mine.push(current.currentPeriodEnd.getTime());
      }
      expect(day).toBeLessThan(100);
    }
    // three periods of about a month, advanced in seconds of wall time
    expect(periodEnds).toHaveLength(4);
    expect(Date.now() - wallStart).toBeLessThan(10 * 60_000);
    expect((await clock()).offset_ms).toBeGreaterThan(90 * DAY);

    // the first customer: three renewal orders, in time order, each dated at its period's end, one line per dimension
    const orders = (await sdk.orders.list({ subscriptionId: subs[0]!.id, sorting: ["created_at"], limit: 10 })).result.items;
    expect(orders.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle", "subscription_cycle", "subscription_cycle"]);
    const renewals = orders.slice(1);
    renewals.forEach((order, i) => {
      const end = periodEnds[i]!;
      expect(order.createdAt.getTime()).toBeGreaterThanOrEqual(end);
      expect(order.createdAt.getTime() - end).toBeLessThan(60_000);
      const lines = DIMENSIONS.map((dim) => Math.round(expected[0]![i]![dim] * Number(UNIT[dim])));
      expect(order.items.map((item) => item.label)).toEqual(DIMENSIONS.map((dim) => `Cloud — ${dim}`));
      expect(order.items.map((item) => item.amount)).toEqual(lines);
      expect(order).toMatchObject({ status: "paid", subtotalAmount: lines.reduce((a, b) => a + b, 0), totalAmount: lines.reduce((a, b) => a + b, 0) });
      expect(lines.every((l) => l > 0)).toBe(true);
    });

    // the downgrade: the second customer's subscription ended at the end of its second period, on the clock
    const ended = await sdk.subscriptions.get({ id: subs[1]!.id });
    expect(ended).toMatchObject({ status: "canceled", cancelAtPeriodEnd: true });
    expect(ended.endedAt?.getTime()).toBeGreaterThanOrEqual(ends[1]![1]!);
    expect(ended.endedAt!.getTime() - ends[1]![1]!).toBeLessThan(60_000);
    const second = (await sdk.orders.list({ subscriptionId: subs[1]!.id, sorting: ["created_at"], limit: 10 })).result.items;
    expect(second.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);
    expect(second[1]!.items.map((item) => item.amount)).toEqual([...DIMENSIONS.map((dim) => Math.round(expected[1]![0]![dim] * Number(UNIT[dim])))]);

    // every webhook, validated by both SDKs
    const orderIds = [...orders, ...second].map((o) => o.id);
    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      const paid = mine.filter((h) => h.body.includes('"order.paid"')).length;
      const revoked = mine.some((h) => h.body.includes('"subscription.revoked"'));
      return paid >= orderIds.length && revoked && mine;
    }, 30_000);
    const events = hits.map((hit) => {
      const event = validateEvent(hit.body, hit.headers, endpoint.secret);
      validateEvent049(hit.body, hit.headers, endpoint.secret);
      return event;
    });
    const paidIds = events.flatMap((e) => (e.type === "order.paid" ? [e.data.id] : []));
    expect(new Set(paidIds)).toEqual(new Set(orderIds));
    const cycles = events.flatMap((e) => (e.type === "order.created" && e.data.billingReason === "subscription_cycle" ? [e.data] : []));
    expect(cycles).toHaveLength(4);
    for (const c of cycles) expect(c.items).toHaveLength(4);
    const revoked = events.filter((e) => e.type === "subscription.revoked");
    expect(revoked.map((e) => e.data.id)).toEqual([subs[1]!.id]);

    // the 0.49 SDK reads the same orders
    const sdk049 = sdk049For(server, key);
    const via049 = await sdk049.orders.get({ id: renewals[2]!.id });
    expect(via049.items.map((i) => i.amount)).toEqual(renewals[2]!.items.map((i) => i.amount));

    // each renewal's invoice, read back through both SDKs: one line per dimension, the order's total
    for (const order of renewals) {
      // the address keeps the country (and state) the checkout recorded; the API refuses to change them
      const country = (order.billingAddress?.country ?? "US") as "US";
      const state = order.billingAddress?.state ?? null;
      await sdk.orders.update({ id: order.id, orderUpdate: { billingName: "Acme One", billingAddress: { country, state, line1: "1 Main St", city: "Austin", postalCode: "73301" } } });
      await sdk.orders.generateInvoice({ id: order.id });
      // made again by the worker with the new details (a paid order's first invoice may already exist)
      const text = await eventually(async () => {
        const res = await raw("GET", `/v1/orders/${order.id}/invoice`);
        if (res.status !== 200) return null;
        const pdf = await fetch((res.body as { url: string }).url);
        expect(pdf.headers.get("content-type")).toBe("application/pdf");
        const t = await pdfTextOf(new Uint8Array(await pdf.arrayBuffer()));
        return t.includes("Acme One") ? t : null;
      });
      expect((await sdk049.orders.invoice({ id: order.id })).url).toMatch(/\/pdf\?expires=/);
      expect(text).toContain(`Invoice number: ${order.invoiceNumber}`);
      expect(text).toContain("Bill to Acme One 1 Main St");
      for (const dim of DIMENSIONS) expect(text).toContain(`Cloud — ${dim}`);
      expect(text).toContain(`Total ${formatUsd(order.totalAmount)}`);
    }
  }, 300_000);
});

describe("the test clock's route", () => {
  it("answers the sandbox's now, and refuses a live organization with 403", async () => {
    const got = await clock();
    expect(got).toMatchObject({ object: "test_clock", max_periods_per_advance: 24 });
    expect(Date.parse(got.now)).toBeGreaterThanOrEqual(Date.now() + got.offset_ms - 1000);

    const live = await rawRequest(server.url, await seller.createKey(), "GET", "/v1/test-clock");
    expect(live.status).toBe(403);
    expect(live.body).toMatchObject({ error: "NotPermitted" });
    expect(String(live.body.detail)).toMatch(/sandbox/);
    const liveAdvance = await rawRequest(server.url, seller.token, "POST", "/v1/test-clock/advance", { by: "1d" });
    expect(liveAdvance.status).toBe(403);
    // a session in sandbox mode reaches it
    const viaSession = await fetch(`${server.url}/v1/test-clock`, { headers: { authorization: `Bearer ${seller.token}`, "till-sandbox": "true" } });
    expect(viaSession.status).toBe(200);
  });

  it("answers bad input with 422 and never moves the clock back", async () => {
    const before = await clock();
    for (const body of [{}, { by: "soon" }, { by: "0d" }, { by: "1d", to: new Date().toISOString() }, { to: new Date().toISOString() }, { by: "4000d" }, { by: "11y" }, { by: "0mo" }, { by: "99999999999mo" }, { by: "1d", extra: 1 }]) {
      const res = await raw("POST", "/v1/test-clock/advance", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Array.isArray(res.body.detail)).toBe(true);
    }
    expect((await clock()).offset_ms).toBe(before.offset_ms);
  });

  it("caps the periods one advance may cross with a clear 422, before anything moves", async () => {
    const product = await sdk.products.create({ name: "Daily", recurringInterval: "day", prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "usd" }] });
    const sub = await subscribe(product, `daily-${Date.now()}`);
    const before = await clock();
    const res = await raw("POST", "/v1/test-clock/advance", { by: "30d" });
    expect(res.status).toBe(422);
    expect((res.body.detail as Array<{ msg: string; loc: unknown[] }>)[0]).toMatchObject({ loc: ["body", "by"], msg: expect.stringContaining("24 billing periods") });
    expect((await clock()).offset_ms).toBe(before.offset_ms);
    // three days: three renewals, one a day
    const moved = await advance({ by: "3d" });
    expect(moved.renewals).toBe(3);
    const orders = (await sdk.orders.list({ subscriptionId: sub.id, limit: 10 })).result.items;
    expect(orders.filter((o) => o.billingReason === "subscription_cycle")).toHaveLength(3);
    await sdk.subscriptions.revoke({ id: sub.id });
  });

  it("stamps a refund at the clock's now, as the order it refunds", async () => {
    await advance({ by: "1d" });
    const product = await sdk.products.create({ name: "Refunded on the clock", prices: [{ amountType: "fixed", priceAmount: 1200, priceCurrency: "usd" }] });
    const email = `refund-${Date.now()}@example.com`;
    const checkout = await sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerEmail: email });
    const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const refund = await sdk.refunds.create({ orderId: order!.id, reason: "customer_request", amount: 500 });
    const now = Date.parse((await clock()).now);
    expect(refund.createdAt.getTime()).toBeGreaterThanOrEqual(order!.createdAt.getTime());
    // the clock's now, a day or more ahead of the wall clock, not the wall clock's
    expect(Math.abs(refund.createdAt.getTime() - now)).toBeLessThan(60_000);
    expect(now - Date.now()).toBeGreaterThan(DAY - 60_000);
  });

  it("expires license keys on the clock", async () => {
    const benefit = await sdk.benefits.create({ type: "license_keys", description: "Two-day key", properties: { expires: { ttl: 2, timeframe: "day" } } });
    const product = await sdk.products.create({ name: "Keyed", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    await sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const checkout = await sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout);
    const [key] = (await sdk.licenseKeys.list({ benefitId: benefit.id })).result.items;
    if (!key) throw new Error("no license key");
    const sandboxId = (await clock()).organization_id;
    const validate = () => publicRequest(server, "POST", "/v1/customer-portal/license-keys/validate", { key: key.key, organization_id: sandboxId });
    expect((await validate()).status).toBe(200);
    // issued at the clock's now, two days on it
    expect(key.expiresAt!.getTime() - Date.parse((await clock()).now)).toBeGreaterThan(2 * DAY - 60_000);
    await advance({ by: "3d" });
    const expired = await validate();
    expect(expired.status).toBe(404);
    expect(expired.body.detail).toBe("License key has expired.");
  });

  it("retries a failed renewal charge on the clock (3, 5 and 7 days later) and ends the subscription after the last", async () => {
    const product = await sdk.products.create({
      name: "Dunning on the clock",
      recurringInterval: "month",
      trialInterval: "day",
      trialIntervalCount: 2,
      prices: [{ amountType: "fixed", priceAmount: 700, priceCurrency: "usd" }],
    });
    const externalId = `dun-${Date.now()}`;
    const email = `${externalId}@example.com`;
    await sdk.customers.create({ email, externalId, name: externalId });
    const checkout = await sdk.checkouts.create({ products: [product.id], externalCustomerId: externalId });
    // attaches to the customer, but every charge fails (Stripe's test card)
    await pay(server, checkout, { customerEmail: email }, "4000000000000341");
    const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const id = order!.subscriptionId!;

    const ended = (await advance({ by: "3d" })) as Clock & { retries: number };
    expect(ended.renewals).toBe(1);
    expect(ended.retries).toBe(0);
    expect((await sdk.subscriptions.get({ id })).status).toBe("past_due");

    // the retries fall 3, 3+5 and 3+5+7 days after the failure: two within 9 days, the last at day 15
    const twoRetries = (await advance({ by: "9d" })) as Clock & { retries: number };
    expect(twoRetries.retries).toBe(2);
    expect((await sdk.subscriptions.get({ id })).status).toBe("past_due");
    const last = (await advance({ by: "7d" })) as Clock & { retries: number };
    expect(last.retries).toBe(1);
    expect((await sdk.subscriptions.get({ id })).status).toBe("canceled");
    const [cycle] = (await sdk.orders.list({ subscriptionId: id, sorting: ["-created_at"], limit: 1 })).result.items;
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", status: "pending" });
  });

  it("starts a seller-created subscription at the clock's now, renewed a period later on the clock", async () => {
    const product = await sdk049.products.create({ name: "Zero", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 0, priceCurrency: "usd" }] });
    const externalId = `created-${Date.now()}`;
    await sdk.customers.create({ email: `${externalId}@example.com`, externalId });
    await advance({ by: "40d" });
    const now = Date.parse((await clock()).now);
    const sub = await sdk049.subscriptions.create({ productId: product.id, externalCustomerId: externalId });
    expect(Math.abs(sub.currentPeriodStart.getTime() - now)).toBeLessThan(60_000);
    // nothing to catch up: a day on renews nothing, a month on renews once
    expect((await advance({ by: "1d" })).renewals).toBe(0);
    await advance({ by: "31d" });
    const orders = (await sdk.orders.list({ subscriptionId: sub.id, limit: 10 })).result.items;
    expect(orders.map((o) => [o.billingReason, o.totalAmount, o.status])).toEqual([["subscription_cycle", 0, "paid"]]);
    await sdk.subscriptions.revoke({ id: sub.id });
  });

  it("ends trials and expires checkouts on the clock", async () => {
    const product = await sdk.products.create({
      name: "Trial",
      recurringInterval: "month",
      trialInterval: "day",
      trialIntervalCount: 7,
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const sub = await subscribe(product, `trial-${Date.now()}`);
    expect(sub.status).toBe("trialing");
    const open = await sdk.checkouts.create({ products: [product.id] });
    expect(open.status).toBe("open");

    await advance({ by: "8d" });
    const after = await sdk.subscriptions.get({ id: sub.id });
    expect(after.status).toBe("active");
    const [cycle] = (await sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"], limit: 1 })).result.items;
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", totalAmount: 900, status: "paid" });

    expect((await sdk.checkouts.get({ id: open.id })).status).toBe("expired");
    // the list's status filter reads the same clock as `get`
    const listed = async (status: "open" | "expired") =>
      (await sdk.checkouts.list({ productId: product.id, status, limit: 100 })).result.items.map((c) => c.id);
    expect(await listed("expired")).toContain(open.id);
    expect(await listed("open")).not.toContain(open.id);
    expect((await publicRequest(server, "GET", `/v1/checkouts/client/${open.clientSecret}`)).status).toBe(410);
    await sdk.subscriptions.revoke({ id: sub.id });
  });

  it("announces a checkout's expiry on the clock once, with a checkout.expired valid for both SDKs", async () => {
    const path = "/expired";
    const endpoint = await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events: ["checkout.expired"] });
    const product = await sdk.products.create({ name: "Expiring", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    const open = await sdk.checkouts.create({ products: [product.id], metadata: { case: "expiry" } });
    const expiredEvents = () =>
      server.database.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.organizationId, open.organizationId), eq(outbox.type, "checkout.expired")))
        .then((rows) => rows.filter((r) => (r.payload as { id?: string }).id === open.id));

    // short of the expiry: nothing; past it: the clock stops at the expiry and announces it
    await advance({ by: "23h" });
    expect(await expiredEvents()).toHaveLength(0);
    const advanced = await advance({ by: "2h" });
    expect(advanced).toMatchObject({ expired_checkouts: 1 });
    const [event] = await expiredEvents();
    expect(await expiredEvents()).toHaveLength(1);
    const data = event!.payload as { status: string; expires_at: string; modified_at: string; metadata: Record<string, string> };
    expect(data).toMatchObject({ status: "expired", metadata: { case: "expiry" } });
    expect(Date.parse(data.modified_at) - Date.parse(data.expires_at)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(data.modified_at) - Date.parse(data.expires_at)).toBeLessThan(60_000);

    const [hit] = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path && h.body.includes(open.id));
      return mine.length > 0 && mine;
    }, 30_000);
    const validated = validateEvent(hit!.body, hit!.headers, endpoint.secret);
    const validated049 = validateEvent049(hit!.body, hit!.headers, endpoint.secret);
    expect(validated.type).toBe("checkout.expired");
    expect(validated049.type).toBe("checkout.expired");
    if (validated.type === "checkout.expired") expect(validated.data).toMatchObject({ id: open.id, status: "expired" });

    // announced once: a second pass, or a further advance, emits nothing
    expect(await runCheckoutExpiries({ db: server.database.db, baseURL: server.url, organizationId: open.organizationId })).toBe(0);
    expect(await advance({ by: "1h" })).toMatchObject({ expired_checkouts: 0 });
    expect(await expiredEvents()).toHaveLength(1);
    expect((await sdk.checkouts.get({ id: open.id })).status).toBe("expired");
    expect((await publicRequest(server, "GET", `/v1/checkouts/client/${open.clientSecret}`)).status).toBe(410);
  });

  it("announces checkout expiries at their own time, in order with the renewals around them", async () => {
    const product = await sdk.products.create({ name: "Daily", recurringInterval: "day", prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "usd" }] });
    // the subscription first: its first period ends just before the checkout's expiry (both a day on)
    const sub = await subscribe(product, `daily-expiry-${Date.now()}`);
    const open = await sdk.checkouts.create({ products: [product.id] });
    const since = new Date();
    await advance({ by: "2d" });
    const rows = await server.database.db.select().from(outbox).where(eq(outbox.organizationId, open.organizationId)).orderBy(asc(outbox.createdAt));
    const sequence = rows
      .filter((r) => r.createdAt >= since)
      .flatMap((r) => {
        const data = r.payload as { id?: string; subscription_id?: string; billing_reason?: string };
        if (r.type === "checkout.expired" && data.id === open.id) return ["expired"];
        if (r.type === "order.created" && data.subscription_id === sub.id && data.billing_reason === "subscription_cycle") return ["renewed"];
        return [];
      });
    expect(sequence).toEqual(["renewed", "expired", "renewed"]);
    await sdk.subscriptions.revoke({ id: sub.id });
  });
});
