// The test clock's route, in a sandbox organization through a `till_test_` key: live organizations
// refused, bad input and too long an advance answered 422, refunds, license keys, failed renewal charges,
// seller-created subscriptions, trials and checkout expiries on the clock (each announced once with
// checkout.expired, valid for both SDKs).
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runCheckoutExpiries } from "../../server/billing/checkouts/expiry.js";
import { outbox } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { pay, publicRequest } from "../helpers/checkout.js";
import { clockFixture, DAY, type Clock } from "./test-clock-fixtures.js";

const fx = clockFixture();

describe("the test clock's route", () => {
  it("answers the sandbox's now, and refuses a live organization with 403", async () => {
    const got = await fx.clock();
    expect(got).toMatchObject({ object: "test_clock", max_periods_per_advance: 24 });
    expect(Date.parse(got.now)).toBeGreaterThanOrEqual(Date.now() + got.offset_ms - 1000);

    const live = await rawRequest(fx.server.url, await fx.seller.createKey(), "GET", "/v1/test-clock");
    expect(live.status).toBe(403);
    expect(live.body).toMatchObject({ error: "NotPermitted" });
    expect(String(live.body.detail)).toMatch(/sandbox/);
    const liveAdvance = await rawRequest(fx.server.url, fx.seller.token, "POST", "/v1/test-clock/advance", { by: "1d" });
    expect(liveAdvance.status).toBe(403);
    // a session in sandbox mode reaches it
    const viaSession = await fetch(`${fx.server.url}/v1/test-clock`, { headers: { authorization: `Bearer ${fx.seller.token}`, "till-sandbox": "true" } });
    expect(viaSession.status).toBe(200);
  });

  it("answers bad input with 422 and never moves the clock back", async () => {
    const before = await fx.clock();
    for (const body of [
      {}, { by: "soon" }, { by: "0d" }, { by: "1d", to: new Date().toISOString() }, { to: new Date().toISOString() },
      { by: "4000d" }, { by: "11y" }, { by: "0mo" }, { by: "99999999999mo" }, { by: "1d", extra: 1 },
    ]) {
      const res = await fx.raw("POST", "/v1/test-clock/advance", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Array.isArray(res.body.detail)).toBe(true);
    }
    expect((await fx.clock()).offset_ms).toBe(before.offset_ms);
  });

  it("caps the periods one advance may cross with a clear 422, before anything moves", async () => {
    const product = await fx.sdk.products.create({ name: "Daily", recurringInterval: "day", prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "usd" }] });
    const sub = await fx.subscribe(product, `daily-${Date.now()}`);
    const before = await fx.clock();
    const res = await fx.raw("POST", "/v1/test-clock/advance", { by: "30d" });
    expect(res.status).toBe(422);
    expect((res.body.detail as Array<{ msg: string; loc: unknown[] }>)[0]).toMatchObject({ loc: ["body", "by"], msg: expect.stringContaining("24 billing periods") });
    expect((await fx.clock()).offset_ms).toBe(before.offset_ms);
    // three days: three renewals, one a day
    const moved = await fx.advance({ by: "3d" });
    expect(moved.renewals).toBe(3);
    const orders = (await fx.sdk.orders.list({ subscriptionId: sub.id, limit: 10 })).result.items;
    expect(orders.filter((o) => o.billingReason === "subscription_cycle")).toHaveLength(3);
    await fx.sdk.subscriptions.revoke({ id: sub.id });
  });

  it("stamps a refund at the clock's now, as the order it refunds", async () => {
    await fx.advance({ by: "1d" });
    const product = await fx.sdk.products.create({ name: "Refunded on the clock", prices: [{ amountType: "fixed", priceAmount: 1200, priceCurrency: "usd" }] });
    const email = `refund-${Date.now()}@example.com`;
    const checkout = await fx.sdk.checkouts.create({ products: [product.id] });
    await pay(fx.server, checkout, { customerEmail: email });
    const [order] = (await fx.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const refund = await fx.sdk.refunds.create({ orderId: order!.id, reason: "customer_request", amount: 500 });
    const now = Date.parse((await fx.clock()).now);
    expect(refund.createdAt.getTime()).toBeGreaterThanOrEqual(order!.createdAt.getTime());
    // the clock's now, a day or more ahead of the wall clock, not the wall clock's
    expect(Math.abs(refund.createdAt.getTime() - now)).toBeLessThan(60_000);
    expect(now - Date.now()).toBeGreaterThan(DAY - 60_000);
  });

  it("expires license keys on the clock", async () => {
    const benefit = await fx.sdk.benefits.create({ type: "license_keys", description: "Two-day key", properties: { expires: { ttl: 2, timeframe: "day" } } });
    const product = await fx.sdk.products.create({ name: "Keyed", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    await fx.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const checkout = await fx.sdk.checkouts.create({ products: [product.id] });
    await pay(fx.server, checkout);
    const [key] = (await fx.sdk.licenseKeys.list({ benefitId: benefit.id })).result.items;
    if (!key) throw new Error("no license key");
    const sandboxId = (await fx.clock()).organization_id;
    const validate = () => publicRequest(fx.server, "POST", "/v1/customer-portal/license-keys/validate", { key: key.key, organization_id: sandboxId });
    expect((await validate()).status).toBe(200);
    // issued at the clock's now, two days on it
    expect(key.expiresAt!.getTime() - Date.parse((await fx.clock()).now)).toBeGreaterThan(2 * DAY - 60_000);
    await fx.advance({ by: "3d" });
    const expired = await validate();
    expect(expired.status).toBe(404);
    expect(expired.body.detail).toBe("License key has expired.");
  });

  it("retries a failed renewal charge on the clock (3, 5 and 7 days later) and ends the subscription after the last", async () => {
    const product = await fx.sdk.products.create({
      name: "Dunning on the clock",
      recurringInterval: "month",
      trialInterval: "day",
      trialIntervalCount: 2,
      prices: [{ amountType: "fixed", priceAmount: 700, priceCurrency: "usd" }],
    });
    const externalId = `dun-${Date.now()}`;
    const email = `${externalId}@example.com`;
    await fx.sdk.customers.create({ email, externalId, name: externalId });
    const checkout = await fx.sdk.checkouts.create({ products: [product.id], externalCustomerId: externalId });
    // attaches to the customer, but every charge fails (Stripe's test card)
    await pay(fx.server, checkout, { customerEmail: email }, "4000000000000341");
    const [order] = (await fx.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const id = order!.subscriptionId!;

    const ended = (await fx.advance({ by: "3d" })) as Clock & { retries: number };
    expect(ended.renewals).toBe(1);
    expect(ended.retries).toBe(0);
    expect((await fx.sdk.subscriptions.get({ id })).status).toBe("past_due");

    // the retries fall 3, 3+5 and 3+5+7 days after the failure: two within 9 days, the last at day 15
    const twoRetries = (await fx.advance({ by: "9d" })) as Clock & { retries: number };
    expect(twoRetries.retries).toBe(2);
    expect((await fx.sdk.subscriptions.get({ id })).status).toBe("past_due");
    const last = (await fx.advance({ by: "7d" })) as Clock & { retries: number };
    expect(last.retries).toBe(1);
    expect((await fx.sdk.subscriptions.get({ id })).status).toBe("canceled");
    const [cycle] = (await fx.sdk.orders.list({ subscriptionId: id, sorting: ["-created_at"], limit: 1 })).result.items;
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", status: "pending" });
  });

  it("starts a seller-created subscription at the clock's now, renewed a period later on the clock", async () => {
    const product = await fx.sdk049.products.create({ name: "Zero", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 0, priceCurrency: "usd" }] });
    const externalId = `created-${Date.now()}`;
    await fx.sdk.customers.create({ email: `${externalId}@example.com`, externalId });
    await fx.advance({ by: "40d" });
    const now = Date.parse((await fx.clock()).now);
    const sub = await fx.sdk049.subscriptions.create({ productId: product.id, externalCustomerId: externalId });
    expect(Math.abs(sub.currentPeriodStart.getTime() - now)).toBeLessThan(60_000);
    // nothing to catch up: a day on renews nothing, a month on renews once
    expect((await fx.advance({ by: "1d" })).renewals).toBe(0);
    await fx.advance({ by: "31d" });
    const orders = (await fx.sdk.orders.list({ subscriptionId: sub.id, limit: 10 })).result.items;
    expect(orders.map((o) => [o.billingReason, o.totalAmount, o.status])).toEqual([["subscription_cycle", 0, "paid"]]);
    await fx.sdk.subscriptions.revoke({ id: sub.id });
  });

  it("ends trials and expires checkouts on the clock", async () => {
    const product = await fx.sdk.products.create({
      name: "Trial",
      recurringInterval: "month",
      trialInterval: "day",
      trialIntervalCount: 7,
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const sub = await fx.subscribe(product, `trial-${Date.now()}`);
    expect(sub.status).toBe("trialing");
    const open = await fx.sdk.checkouts.create({ products: [product.id] });
    expect(open.status).toBe("open");

    await fx.advance({ by: "8d" });
    const after = await fx.sdk.subscriptions.get({ id: sub.id });
    expect(after.status).toBe("active");
    const [cycle] = (await fx.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"], limit: 1 })).result.items;
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", totalAmount: 900, status: "paid" });

    expect((await fx.sdk.checkouts.get({ id: open.id })).status).toBe("expired");
    // the list's status filter reads the same clock as `get`
    const listed = async (status: "open" | "expired") =>
      (await fx.sdk.checkouts.list({ productId: product.id, status, limit: 100 })).result.items.map((c) => c.id);
    expect(await listed("expired")).toContain(open.id);
    expect(await listed("open")).not.toContain(open.id);
    expect((await publicRequest(fx.server, "GET", `/v1/checkouts/client/${open.clientSecret}`)).status).toBe(410);
    await fx.sdk.subscriptions.revoke({ id: sub.id });
  });

  it("announces a checkout's expiry on the clock once, with a checkout.expired valid for both SDKs", async () => {
    const path = "/expired";
    const endpoint = await fx.sdk.webhooks.createWebhookEndpoint({ url: `${fx.receiver.url}${path}`, format: "raw", events: ["checkout.expired"] });
    const product = await fx.sdk.products.create({ name: "Expiring", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    const open = await fx.sdk.checkouts.create({ products: [product.id], metadata: { case: "expiry" } });
    const expiredEvents = () =>
      fx.server.database.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.organizationId, open.organizationId), eq(outbox.type, "checkout.expired")))
        .then((rows) => rows.filter((r) => (r.payload as { id?: string }).id === open.id));

    // short of the expiry: nothing; past it: the clock stops at the expiry and announces it
    await fx.advance({ by: "23h" });
    expect(await expiredEvents()).toHaveLength(0);
    const advanced = await fx.advance({ by: "2h" });
    expect(advanced).toMatchObject({ expired_checkouts: 1 });
    const [event] = await expiredEvents();
    expect(await expiredEvents()).toHaveLength(1);
    const data = event!.payload as { status: string; expires_at: string; modified_at: string; metadata: Record<string, string> };
    expect(data).toMatchObject({ status: "expired", metadata: { case: "expiry" } });
    expect(Date.parse(data.modified_at) - Date.parse(data.expires_at)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(data.modified_at) - Date.parse(data.expires_at)).toBeLessThan(60_000);

    const [hit] = await fx.receiver.until((all) => {
      const mine = all.filter((h) => h.path === path && h.body.includes(open.id));
      return mine.length > 0 && mine;
    }, 30_000);
    const validated = validateEvent(hit!.body, hit!.headers, endpoint.secret);
    const validated049 = validateEvent049(hit!.body, hit!.headers, endpoint.secret);
    expect(validated.type).toBe("checkout.expired");
    expect(validated049.type).toBe("checkout.expired");
    if (validated.type === "checkout.expired") expect(validated.data).toMatchObject({ id: open.id, status: "expired" });

    // announced once: a second pass, or a further advance, emits nothing
    expect(await runCheckoutExpiries({ db: fx.server.database.db, baseURL: fx.server.url, organizationId: open.organizationId })).toBe(0);
    expect(await fx.advance({ by: "1h" })).toMatchObject({ expired_checkouts: 0 });
    expect(await expiredEvents()).toHaveLength(1);
    expect((await fx.sdk.checkouts.get({ id: open.id })).status).toBe("expired");
    expect((await publicRequest(fx.server, "GET", `/v1/checkouts/client/${open.clientSecret}`)).status).toBe(410);
  });

  it("announces checkout expiries at their own time, in order with the renewals around them", async () => {
    const product = await fx.sdk.products.create({ name: "Daily", recurringInterval: "day", prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "usd" }] });
    // the subscription first: its first period ends just before the checkout's expiry (both a day on)
    const sub = await fx.subscribe(product, `daily-expiry-${Date.now()}`);
    const open = await fx.sdk.checkouts.create({ products: [product.id] });
    const since = new Date();
    await fx.advance({ by: "2d" });
    const rows = await fx.server.database.db.select().from(outbox).where(eq(outbox.organizationId, open.organizationId)).orderBy(asc(outbox.createdAt));
    const sequence = rows
      .filter((r) => r.createdAt >= since)
      .flatMap((r) => {
        const data = r.payload as { id?: string; subscription_id?: string; billing_reason?: string };
        if (r.type === "checkout.expired" && data.id === open.id) return ["expired"];
        if (r.type === "order.created" && data.subscription_id === sub.id && data.billing_reason === "subscription_cycle") return ["renewed"];
        return [];
      });
    expect(sequence).toEqual(["renewed", "expired", "renewed"]);
    await fx.sdk.subscriptions.revoke({ id: sub.id });
  });
});
