// The timelines of an order, a subscription and a customer (till's own GET …/{id}/timeline): after a paid
// checkout of a monthly plan, each names the events the purchase recorded, the webhooks sent for them to the
// seller's endpoint (delivered), and the customer's confirmation email; a refund's events join the order's. Another
// organization's object, and the sandbox's, answer 404; a malformed id 422.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { pay } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

interface Entry {
  source: string;
  type: string;
  status: string | null;
  target: string | null;
  at: string;
}

let server: TestServer;
let seller: Seller;
let other: Seller;
const receiver = new Receiver();
let orderId = "";
let subscriptionId = "";
let customerId = "";

const timeline = async (token: string, path: string) => {
  const res = await rawRequest(server.url, token, "GET", `/v1/${path}/timeline`);
  return { status: res.status, items: (res.body as { items?: Entry[] }).items ?? [], body: res.body };
};
const has = (items: Entry[], source: string, type: string, status: string | null = null) =>
  items.some((e) => e.source === source && e.type === type && (status === null || e.status === status));

beforeAll(async () => {
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  [seller, other] = await Promise.all([createSeller(server, "timeline"), createSeller(server, "timeline-other")]);
  await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/hooks`, format: "raw", events: ["order.paid", "subscription.created", "refund.created"] });
  const plan = await seller.sdk.products.create({ name: "Plan", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }] });
  const checkout = await seller.sdk.checkouts.create({ products: [plan.id] });
  const confirmed = await pay(server, checkout);
  customerId = confirmed.customerId ?? "";
  const [order] = (await seller.sdk.orders.list({ customerId })).result.items;
  orderId = order?.id ?? "";
  subscriptionId = order?.subscriptionId ?? "";
}, 120_000);
afterAll(async () => {
  await server?.close();
  await receiver.stop();
});

describe("an object's timeline", () => {
  it("names the events, the webhooks delivered and the emails of an order, its subscription and its customer", async () => {
    await receiver.until((hits) => hits.filter((h) => h.path === "/hooks").length >= 2, 30_000);
    const poll = async (path: string, ok: (items: Entry[]) => boolean) => {
      await expect
        .poll(async () => {
          const { items } = await timeline(seller.token, path);
          return ok(items) || items.map((e) => `${e.source} ${e.type} ${e.status}`);
        }, { timeout: 30_000, interval: 200 })
        .toBe(true);
      return (await timeline(seller.token, path)).items;
    };
    const order = await poll(`orders/${orderId}`, (i) => has(i, "webhook", "order.paid", "sent") && has(i, "email", "subscription_confirmation", "sent"));
    expect(has(order, "event", "order.created")).toBe(true);
    expect(has(order, "event", "order.paid")).toBe(true);
    expect(order.find((e) => e.source === "webhook")?.target).toBe(`${receiver.url}/hooks`);
    // newest first
    expect(order.map((e) => e.at)).toEqual([...order.map((e) => e.at)].sort().reverse());

    const sub = await poll(`subscriptions/${subscriptionId}`, (i) => has(i, "webhook", "subscription.created", "sent"));
    expect(has(sub, "event", "subscription.created")).toBe(true);
    // the subscription's first order is the subscription's too
    expect(has(sub, "event", "order.paid")).toBe(true);

    const customer = await poll(`customers/${customerId}`, (i) => has(i, "event", "order.paid") && has(i, "event", "subscription.created"));
    expect(customer.some((e) => e.source === "email")).toBe(true);

    // a refund's events are the order's
    await seller.sdk.refunds.create({ orderId, reason: "customer_request", amount: 500 });
    await poll(`orders/${orderId}`, (i) => has(i, "event", "refund.created") && has(i, "webhook", "refund.created", "sent"));
  }, 120_000);

  it("answers 404 for another organization's object and for the sandbox's, and 422 for a malformed id", async () => {
    const sandboxKey = await seller.createSandboxKey();
    for (const path of [`orders/${orderId}`, `subscriptions/${subscriptionId}`, `customers/${customerId}`]) {
      const foreign = await timeline(other.token, path);
      expect(foreign.status, path).toBe(404);
      expect(foreign.body).toMatchObject({ error: "ResourceNotFound" });
      expect(JSON.stringify(foreign.body)).not.toContain(orderId);
      expect((await timeline(sandboxKey, path)).status, path).toBe(404);
    }
    expect((await timeline(seller.token, "orders/not-an-id")).status).toBe(422);
  });
});
