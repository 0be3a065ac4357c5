// Usage paid from the wallet as it happens (`till_usage_from_wallet`) over three periods on the test
// clock, against amounts computed by hand. The plan: $10.00 a month ahead, plus tokens in arrears through a
// graduated price (the first 1,000 free, then 1¢ each) capped at $25.00. The customer's wallet is topped up
// $30.00 from the card the checkout saved.
//   Period 1: 1,500 tokens → 500 debited at ingest (balance 2,500); 300 more → 800 in all, 300 more debited
//     (2,200). The renewal bills 800 of usage and 1,000 ahead (1,800): 800 were paid already, the wallet pays the
//     other 1,000 (1,200 left), no charge; applied_balance_amount −1,800.
//   Period 2 (auto-recharge below 500 with 2,000): 4,000 tokens cost 3,000, capped at 2,500; the wallet pays 1,200
//     (0 left) and recharges 2,000 at once (not at the next order); 10 more tokens cost nothing more than the
//     cap, and the wallet pays the 1,300 still owed (700 left). The renewal bills 2,500 + 1,000 = 3,500: 2,500
//     paid already, the wallet's 700, and 300 charged to the card; the wallet (0) recharges 2,000 again.
//   Period 3: no usage; the renewal's 1,000 comes from the wallet (1,000 left, above the threshold).
// A product without the switch is not debited at ingest. Every Polar webhook is valid for both SDKs.
import type { Polar } from "@polar-sh/sdk";
import type { Polar as Polar049 } from "polar-sdk-049";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { pay } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdk049For, sdkFor } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let receiver: Receiver;
let key: string;
let sdk: Polar;
let sdk049: Polar049;

const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, key, method, path, body);

async function eventually<T>(what: string, fn: () => Promise<T | null | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not ready in time`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  key = await (await createSeller(server, "wallet-usage")).createSandboxKey();
  sdk = sdkFor(server, key);
  sdk049 = sdk049For(server, key);
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

describe("usage paid from the wallet as it happens", () => {
  it("debits usage at ingest, recharges at once below the threshold, and renewals bill only what the wallet did not pay", async () => {
    const endpoint = await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/polar`, format: "raw", events: ["order.created", "order.paid", "customer.state_changed"] });
    const meter = await sdk.meters.create({
      name: "tokens",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] },
      aggregation: { func: "sum", property: "units" },
    });
    const plan = (name: string, metadata: Record<string, unknown>) =>
      raw("POST", "/v1/products/", {
        name,
        recurring_interval: "month",
        metadata,
        prices: [
          { amount_type: "fixed", price_amount: 1000, price_currency: "usd" },
          {
            amount_type: "metered_unit",
            meter_id: meter.id,
            price_currency: "usd",
            cap_amount: 2500,
            unit_tiers: { tier_type: "graduated", tiers: [{ up_to: 1000, unit_amount: "0" }, { up_to: null, unit_amount: "1" }] },
          },
        ],
      });
    const created = await plan("Prepaid API", { till_usage_from_wallet: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const postpaid = await plan("Postpaid API", {});

    const subscribe = async (productId: string, externalId: string) => {
      const email = `${externalId}@example.com`;
      await sdk.customers.create({ email, externalId, name: externalId });
      const checkout = await sdk.checkouts.create({ products: [productId], externalCustomerId: externalId });
      await pay(server, checkout, { customerEmail: email });
      const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
      expect(order).toMatchObject({ totalAmount: 1000 });
      return order!;
    };
    // this run's own customers (a retried test meets none of the first run's)
    const run = Date.now().toString(36);
    const [ada, bob] = [`prepaid-ada-${run}`, `postpaid-bob-${run}`];
    const first = await subscribe(created.body.id as string, ada);
    const subId = first.subscriptionId!;
    const other = await subscribe(postpaid.body.id as string, bob);

    const opened = await raw("POST", "/v1/wallets/", { customer_id: first.customerId, currency: "usd" });
    const walletId = opened.body.id as string;
    expect((await raw("POST", `/v1/wallets/${walletId}/top-up`, { amount: 3000 })).body).toMatchObject({ balance: 3000 });
    const otherWallet = await raw("POST", "/v1/wallets/", { customer_id: other.customerId, currency: "usd" });
    await raw("POST", `/v1/wallets/${otherWallet.body.id as string}/top-up`, { amount: 3000 });

    const ingest = async (externalId: string, units: number) => {
      const res = await raw("POST", "/v1/events/ingest", { events: [{ name: "tokens", external_customer_id: externalId, metadata: { units } }] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    const balance = async () => (await raw("GET", `/v1/wallets/${walletId}`)).body.balance as number;
    const balanceIs = (n: number) => eventually(`the balance ${n}`, async () => ((await balance()) === n ? n : null));
    const renew = async () => {
      const end = (await sdk.subscriptions.get({ id: subId })).currentPeriodEnd;
      const res = await raw("POST", "/v1/test-clock/advance", { to: new Date(end.getTime() + 60_000).toISOString() });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (await sdk.orders.list({ subscriptionId: subId, sorting: ["-created_at"] })).result.items[0]!;
    };
    const paymentsOf = async (orderId: string) => (await sdk.payments.list({ orderId })).result.items.map((p) => p.amount);

    // period 1: debited at ingest, as far as the usage costs
    await ingest(ada, 1500);
    expect(await balance()).toBe(2500);
    await ingest(ada, 300);
    expect(await balance()).toBe(2200);
    await ingest(bob, 1800);
    expect((await raw("GET", `/v1/wallets/${otherWallet.body.id as string}`)).body.balance).toBe(3000);
    const r1 = await renew();
    expect(r1).toMatchObject({ billingReason: "subscription_cycle", subtotalAmount: 1800, totalAmount: 1800, appliedBalanceAmount: -1800, status: "paid" });
    expect((await sdk049.orders.get({ id: r1.id })).appliedBalanceAmount).toBe(-1800);
    expect(await paymentsOf(r1.id)).toEqual([]);
    expect(await balance()).toBe(1200);

    // period 2: the cap holds the cost at 2,500; the wallet runs dry and recharges at once
    const session = (await sdk.customerSessions.create({ customerId: first.customerId })).token;
    const on = await rawRequest(server.url, session, "PUT", `/v1/customer-portal/wallets/${walletId}/auto-recharge`, { enabled: true, threshold_amount: 500, amount: 2000 });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    await ingest(ada, 4000);
    await balanceIs(2000);
    await ingest(ada, 10);
    expect(await balance()).toBe(700);
    const r2 = await renew();
    expect(r2).toMatchObject({ subtotalAmount: 3500, totalAmount: 3500, appliedBalanceAmount: -3200, status: "paid" });
    expect(await paymentsOf(r2.id)).toEqual([300]);
    await balanceIs(2000);

    // period 3: nothing used; the wallet pays the 1,000 ahead
    const r3 = await renew();
    expect(r3).toMatchObject({ totalAmount: 1000, appliedBalanceAmount: -1000, status: "paid" });
    await new Promise((r) => setTimeout(r, 500));
    expect(await balance()).toBe(1000);

    // the history (the portal's is the same), newest first; the usage movements name the renewal that billed them
    const portal = await rawRequest(server.url, session, "GET", `/v1/customer-portal/wallets/${walletId}/transactions?limit=50`);
    const items = portal.body.items as Array<{ type: string; amount: number; description: string; product_name: string | null; order_id: string | null }>;
    expect(items.map((t) => [t.type, t.amount])).toEqual([
      ["order_payment", -1000],
      ["auto_recharge", 2000],
      ["order_payment", -700],
      ["usage", -1300],
      ["auto_recharge", 2000],
      ["usage", -1200],
      ["order_payment", -1000],
      ["usage", -300],
      ["usage", -500],
      ["top_up", 3000],
    ]);
    // (the description is English, the API's; the portal says the line from product_name in its reader's language)
    expect(items.filter((t) => t.type === "usage").map((t) => [t.description, t.product_name, t.order_id])).toEqual([
      ["Usage: Prepaid API", "Prepaid API", r2.id],
      ["Usage: Prepaid API", "Prepaid API", r2.id],
      ["Usage: Prepaid API", "Prepaid API", r1.id],
      ["Usage: Prepaid API", "Prepaid API", r1.id],
    ]);
    expect(items.filter((t) => t.type !== "usage").every((t) => t.product_name === null)).toBe(true);
    // the postpaid customer's usage was billed by their renewal, from their wallet then
    const otherOrders = (await sdk.orders.list({ subscriptionId: other.subscriptionId!, sorting: ["-created_at"] })).result.items;
    expect(otherOrders[otherOrders.length - 2]).toMatchObject({ totalAmount: 1800, appliedBalanceAmount: -1800 });

    await new Promise((r) => setTimeout(r, 500));
    const hits = receiver.at("/polar");
    expect(hits.length).toBeGreaterThan(10);
    for (const hit of hits) {
      expect(() => validateEvent(hit.body, hit.headers, endpoint.secret)).not.toThrow();
      expect(() => validateEvent049(hit.body, hit.headers, endpoint.secret)).not.toThrow();
    }
  }, 240_000);
});
