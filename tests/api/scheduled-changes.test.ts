// Plan changes that wait for the period's end, on the test clock of a sandbox organization through
// `till_test_` keys: a downgrade with `proration_behavior: next_period` shows as the subscription's
// `pending_update` (read through both SDKs), bills nothing now and is applied by the renewal, whose order bills
// the new plan; a scheduled change dropped with 0.49.0's `{pending_update: null}` (and `till subscriptions
// cancel-change`) renews at the old plan; and the organization's `plan_settings.downgrades_at_period_end` makes a
// downgrade wait while an upgrade applies now. Every subscription webhook is validated by both SDKs. Over three
// renewals: a downgrade scheduled then dropped, then scheduled again and let through, each order to the cent; and a
// renewal forced through `/renew` applies the pending change as the one at the period's end does.
import type { Polar } from "@polar-sh/sdk";
import type { Polar as Polar049 } from "polar-sdk-049";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { subscribeThroughCheckout } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdk049For, sdkFor } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { tempConfigDir, till } from "../cli/till.js";

let server: TestServer;
let receiver: Receiver;

interface Sandbox {
  key: string;
  sdk: Polar;
  sdk049: Polar049;
  organizationId: string;
  basic: Product;
  pro: Product;
  raw: (method: string, path: string, body?: unknown) => ReturnType<typeof rawRequest>;
}

async function sandbox(name: string): Promise<Sandbox> {
  const seller = await createSeller(server, name);
  const key = await seller.createSandboxKey();
  const sdk = sdkFor(server, key);
  const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, key, method, path, body);
  const clock = await raw("GET", "/v1/test-clock");
  const organizationId = String(clock.body.organization_id);
  const [basic, pro] = await Promise.all(
    [["Basic", 1000], ["Pro", 4000]].map(([n, priceAmount]) =>
      sdk.products.create({ name: String(n), recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: Number(priceAmount), priceCurrency: "usd" }] }),
    ),
  );
  return { key, sdk, sdk049: sdk049For(server, key), organizationId, basic: basic!, pro: pro!, raw };
}

const subscribe = (s: Sandbox, product: Product, externalId: string): Promise<Subscription> =>
  subscribeThroughCheckout(server, s.sdk, product.id, externalId);

async function advance(s: Sandbox, by: string) {
  const res = await s.raw("POST", "/v1/test-clock/advance", { by });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Moves the clock an hour past the subscription's current period end (its renewal); answers the period left. */
async function pastPeriodEnd(s: Sandbox, subscriptionId: string): Promise<Subscription> {
  const current = await s.sdk.subscriptions.get({ id: subscriptionId });
  const res = await s.raw("POST", "/v1/test-clock/advance", { to: new Date(current.currentPeriodEnd.getTime() + 3600_000).toISOString() });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
  return current;
}

const ordersOf = async (s: Sandbox, subscriptionId: string) =>
  (await s.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 100 })).result.items;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

describe("proration_behavior next_period", () => {
  it("a downgrade waits for the renewal, which bills the new plan; its webhooks are valid for both SDKs", async () => {
    const s = await sandbox("scheduled-down");
    const path = "/scheduled-down";
    const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events: ["subscription.updated", "order.paid"] });
    const sub = await subscribe(s, s.pro, "down-1");
    expect(sub).toMatchObject({ amount: 4000, pendingUpdate: null });

    const scheduled = await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: s.basic.id, prorationBehavior: "next_period" } });
    // the plan stays until the period's end; the change is pending, applied then
    expect(scheduled).toMatchObject({ productId: s.pro.id, amount: 4000, status: "active" });
    expect(scheduled.pendingUpdate).toMatchObject({ productId: s.basic.id, seats: null });
    expect(scheduled.pendingUpdate?.appliesAt.getTime()).toBe(sub.currentPeriodEnd.getTime());
    const via049 = await s.sdk049.subscriptions.get({ id: sub.id });
    expect(via049.pendingUpdate).toMatchObject({ id: scheduled.pendingUpdate!.id, productId: s.basic.id });
    // nothing billed for the change
    expect(await ordersOf(s, sub.id)).toHaveLength(1);

    await advance(s, "31d");
    const renewed = await s.sdk.subscriptions.get({ id: sub.id });
    expect(renewed).toMatchObject({ productId: s.basic.id, amount: 1000, status: "active", pendingUpdate: null });
    expect(renewed.currentPeriodStart.getTime()).toBe(sub.currentPeriodEnd.getTime());
    const orders = await ordersOf(s, sub.id);
    expect(orders.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);
    expect(orders[1]).toMatchObject({ status: "paid", productId: s.basic.id, subtotalAmount: 1000, totalAmount: 1000 });
    expect(orders[1]!.items.map((i) => [i.label, i.amount])).toEqual([["Basic", 1000]]);
    // the next one bills Basic again
    await advance(s, "31d");
    expect((await ordersOf(s, sub.id)).map((o) => o.totalAmount)).toEqual([4000, 1000, 1000]);

    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      return mine.filter((h) => h.body.includes('"order.paid"')).length >= 2 && mine;
    }, 30_000);
    const events = hits.map((hit) => {
      validateEvent049(hit.body, hit.headers, endpoint.secret);
      return validateEvent(hit.body, hit.headers, endpoint.secret);
    });
    const updates = events.flatMap((e) => (e.type === "subscription.updated" ? [e.data] : []));
    expect(updates[0]?.pendingUpdate).toMatchObject({ productId: s.basic.id });
    expect(updates.some((u) => u.productId === s.basic.id && u.pendingUpdate === null)).toBe(true);
  });

  it("a scheduled change dropped before the period's end (the API, then the CLI): the renewal bills the old plan", async () => {
    const s = await sandbox("scheduled-drop");
    const sub = await subscribe(s, s.pro, "drop-1");
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: s.basic.id, prorationBehavior: "next_period" } });
    const dropped = await s.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { pendingUpdate: null } });
    expect(dropped).toMatchObject({ productId: s.pro.id, pendingUpdate: null });
    // a seat-less change again, dropped through the CLI this time
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: s.basic.id, prorationBehavior: "next_period" } });
    const cli = await till(["subscriptions", "cancel-change", sub.id, "--json"], { configDir: tempConfigDir(), env: { TILL_API_KEY: s.key, TILL_SERVER: server.url } });
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ id: sub.id, pending_update: null });
    // dropping what is not pending changes nothing
    expect((await s.raw("PATCH", `/v1/subscriptions/${sub.id}`, { pending_update: null })).status).toBe(200);
    expect((await s.raw("PATCH", `/v1/subscriptions/${sub.id}`, { pending_update: { id: "x" } })).status).toBe(422);

    await advance(s, "31d");
    const orders = await ordersOf(s, sub.id);
    expect(orders.map((o) => [o.billingReason, o.productId, o.totalAmount])).toEqual([
      ["subscription_create", s.pro.id, 4000],
      ["subscription_cycle", s.pro.id, 4000],
    ]);
  });

  it("a renewal forced with current_period_start applies the pending change as the renewal at the period's end does", async () => {
    const s = await sandbox("scheduled-forced");
    const sub = await subscribe(s, s.pro, "forced-1");
    await advance(s, "10d");
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: s.basic.id, prorationBehavior: "next_period" } });
    const forced = await s.raw("POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    // the period ended now: the new one starts at the clock's now, at the new plan, nothing left pending
    expect(forced.body).toMatchObject({ product_id: s.basic.id, amount: 1000, status: "active", pending_update: null });
    const renewed = await s.sdk.subscriptions.get({ id: sub.id });
    expect(renewed).toMatchObject({ productId: s.basic.id, amount: 1000, pendingUpdate: null });
    expect(renewed.currentPeriodStart.getTime()).toBeLessThan(sub.currentPeriodEnd.getTime());
    // a repeat of the same call bills nothing more
    expect((await s.raw("POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() })).status).toBe(200);
    const orders = await ordersOf(s, sub.id);
    expect(orders.map((o) => [o.billingReason, o.productId, o.totalAmount])).toEqual([
      ["subscription_create", s.pro.id, 4000],
      ["subscription_cycle", s.basic.id, 1000],
    ]);
    expect(orders[1]!.items.map((i) => [i.label, i.amount])).toEqual([["Basic", 1000]]);
    // the next renewal at the period's end bills Basic again
    await pastPeriodEnd(s, sub.id);
    expect((await ordersOf(s, sub.id)).map((o) => [o.productId, o.totalAmount])).toEqual([
      [s.pro.id, 4000],
      [s.basic.id, 1000],
      [s.basic.id, 1000],
    ]);
  });
});

describe("three periods on the test clock", () => {
  it("a downgrade scheduled in period 2 and dropped: period 3 bills the old plan; scheduled again and let through: period 4 bills the new one", async () => {
    const s = await sandbox("scheduled-three");
    const sub = await subscribe(s, s.pro, "three-1");
    // period 1: Pro, $40.00, no tax in this fixture (no tax rates: tax 0, total = subtotal)
    const p1 = await pastPeriodEnd(s, sub.id);
    const p2 = await s.sdk.subscriptions.get({ id: sub.id });
    expect(p2.currentPeriodStart.getTime()).toBe(p1.currentPeriodEnd.getTime());
    // ten days into period 2 the downgrade is scheduled for its end, five days later it is dropped
    await advance(s, "10d");
    const scheduled = await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: s.basic.id, prorationBehavior: "next_period" } });
    expect(scheduled.pendingUpdate?.appliesAt.getTime()).toBe(p2.currentPeriodEnd.getTime());
    await advance(s, "5d");
    expect(await s.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { pendingUpdate: null } })).toMatchObject({ productId: s.pro.id, pendingUpdate: null });
    await pastPeriodEnd(s, sub.id);
    const p3 = await s.sdk.subscriptions.get({ id: sub.id });
    expect(p3).toMatchObject({ productId: s.pro.id, amount: 4000, status: "active", pendingUpdate: null });
    // period 3: scheduled again three days in, and let through: the renewal into period 4 bills Basic, $10.00
    await advance(s, "3d");
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: s.basic.id, prorationBehavior: "next_period" } });
    await pastPeriodEnd(s, sub.id);
    const p4 = await s.sdk.subscriptions.get({ id: sub.id });
    expect(p4).toMatchObject({ productId: s.basic.id, amount: 1000, status: "active", pendingUpdate: null });
    expect(p4.currentPeriodStart.getTime()).toBe(p3.currentPeriodEnd.getTime());

    const orders = await ordersOf(s, sub.id);
    expect(orders.map((o) => [o.billingReason, o.status, o.productId, o.subtotalAmount, o.taxAmount, o.totalAmount])).toEqual([
      ["subscription_create", "paid", s.pro.id, 4000, 0, 4000],
      ["subscription_cycle", "paid", s.pro.id, 4000, 0, 4000],
      ["subscription_cycle", "paid", s.pro.id, 4000, 0, 4000],
      ["subscription_cycle", "paid", s.basic.id, 1000, 0, 1000],
    ]);
    expect(orders.map((o) => o.items.map((i) => [i.label, i.amount]))).toEqual([[["Pro", 4000]], [["Pro", 4000]], [["Pro", 4000]], [["Basic", 1000]]]);
  });
});

describe("plan_settings.downgrades_at_period_end", () => {
  it("a downgrade naming no behavior waits; an upgrade applies now, billed by the organization's behavior", async () => {
    const s = await sandbox("scheduled-setting");
    const res = await s.raw("PATCH", `/v1/organizations/${s.organizationId}`, { plan_settings: { downgrades_at_period_end: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.plan_settings).toMatchObject({ downgrades_at_period_end: true });
    // the SDKs read the organization with the extension
    await s.sdk.organizations.get({ id: s.organizationId });
    await s.sdk049.organizations.get({ id: s.organizationId });

    const up = await subscribe(s, s.basic, "setting-up");
    const upgraded = await s.sdk.subscriptions.update({ id: up.id, subscriptionUpdate: { productId: s.pro.id } });
    expect(upgraded).toMatchObject({ productId: s.pro.id, amount: 4000, pendingUpdate: null });

    const down = await subscribe(s, s.pro, "setting-down");
    const waiting = await s.sdk049.subscriptions.update({ id: down.id, subscriptionUpdate: { productId: s.basic.id } });
    expect(waiting).toMatchObject({ productId: s.pro.id, amount: 4000 });
    expect(waiting.pendingUpdate).toMatchObject({ productId: s.basic.id });
    // an explicit behavior still applies a downgrade now
    const other = await subscribe(s, s.pro, "setting-now");
    const now = await s.sdk.subscriptions.update({ id: other.id, subscriptionUpdate: { productId: s.basic.id, prorationBehavior: "invoice" } });
    expect(now).toMatchObject({ productId: s.basic.id, pendingUpdate: null });

    await advance(s, "31d");
    // the upgrade's renewal bills Pro with the organization's prorate lines (Basic → Pro right after the start)
    const upOrders = await ordersOf(s, up.id);
    expect(upOrders[1]).toMatchObject({ billingReason: "subscription_cycle", productId: s.pro.id });
    expect(upOrders[1]!.items[0]).toMatchObject({ label: "Pro", amount: 4000 });
    const downOrders = await ordersOf(s, down.id);
    expect(downOrders[1]).toMatchObject({ billingReason: "subscription_cycle", productId: s.basic.id, totalAmount: 1000 });
  });
});
