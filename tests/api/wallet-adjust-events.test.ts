// A seller's wallet adjustments (till's POST /v1/wallets/{id}/adjustments: Polar has no such route) and the wallet
// events (till's own `till.wallet.transaction.created` and `till.wallet.updated`, recorded by the ledger's
// trigger with every movement): a credit and a debit by hand with their reasons, once per Idempotency-Key, a debit
// beyond the balance refused; the events go only to the endpoint that names them, carry what the history shows,
// and a debit that takes the balance below the auto-recharge threshold recharges at once (not at the next order).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { pay } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdkFor } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let receiver: Receiver;
let key: string;
let otherKey: string;

const raw = (method: string, path: string, body?: unknown, token = key) => rawRequest(server.url, token, method, path, body);

async function keyed(path: string, body: unknown, idempotencyKey: string) {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  key = await (await createSeller(server, "wallet-adjust")).createSandboxKey();
  otherKey = await (await createSeller(server, "wallet-adjust-other")).createSandboxKey();
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

describe("wallet adjustments and wallet events", () => {
  it("credits and debits by hand once per key, refuses an overdraft, and sends till's wallet events only where named", async () => {
    const sdk = sdkFor(server, key);
    await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/wallet`, format: "raw", events: ["till.wallet.transaction.created", "till.wallet.updated"] as never });
    await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/polar`, format: "raw", events: ["order.created", "customer.updated"] });
    const product = await sdk.products.create({ name: "One", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    const checkout = await sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerEmail: "adjust-ada@example.com" });
    const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const opened = await raw("POST", "/v1/wallets/", { customer_id: order!.customerId, currency: "usd" });
    const walletId = opened.body.id as string;
    const path = `/v1/wallets/${walletId}/adjustments`;

    // a credit of $15.00, sent twice with one key: one movement
    const credit = await keyed(path, { amount: 1500, reason: "Goodwill credit" }, "adj-1");
    expect(credit.status, JSON.stringify(credit.body)).toBe(201);
    expect(credit.body).toMatchObject({ wallet_id: walletId, type: "adjustment", amount: 1500, currency: "usd", description: "Goodwill credit", order_id: null });
    expect((await keyed(path, { amount: 1500, reason: "Goodwill credit" }, "adj-1")).body.id).toBe(credit.body.id);
    // a debit of $4.00; one beyond the balance (1,100 left) is refused and moves nothing
    const debit = await keyed(path, { amount: -400, reason: "Correction of March usage" }, "adj-2");
    expect(debit.body).toMatchObject({ type: "adjustment", amount: -400, description: "Correction of March usage" });
    const over = await keyed(path, { amount: -1101, reason: "Too much" }, "adj-3");
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ detail: [{ loc: ["body", "amount"] }] });
    for (const bad of [{ amount: 0, reason: "x" }, { amount: 100, reason: "  " }, { amount: 1.5, reason: "x" }, { reason: "x" }]) {
      expect((await raw("POST", path, bad)).status).toBe(422);
    }
    expect((await raw("POST", "/v1/wallets/00000000-0000-4000-8000-000000000000/adjustments", { amount: 1, reason: "x" })).status).toBe(404);
    // another organization's key: not found, nothing moved
    expect((await raw("POST", path, { amount: 1, reason: "x" }, otherKey)).status).toBe(404);
    expect((await raw("GET", `/v1/wallets/${walletId}`)).body).toMatchObject({ balance: 1100 });

    // the events: one transaction and one wallet update per movement, in order, on the endpoint that named them
    const hits = await receiver.until((h) => (h.filter((x) => x.path === "/wallet").length >= 4 ? h.filter((x) => x.path === "/wallet") : false), 30_000);
    // delivered concurrently: in the order they were recorded
    const events = hits
      .map((h) => JSON.parse(h.body) as { type: string; timestamp: string; data: Record<string, unknown> })
      .sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    expect(events.map((e) => [e.type, e.data.amount ?? e.data.balance])).toEqual([
      ["till.wallet.transaction.created", 1500],
      ["till.wallet.updated", 1500],
      ["till.wallet.transaction.created", -400],
      ["till.wallet.updated", 1100],
    ]);
    const history = (await raw("GET", `/v1/wallets/${walletId}/transactions`)).body.items as Array<Record<string, unknown>>;
    expect(events[0]!.data).toEqual({ ...history[1], customer_id: order!.customerId, balance_after: 1500 });
    expect(events[2]!.data).toEqual({ ...history[0], customer_id: order!.customerId, balance_after: 1100 });
    expect(events[3]!.data).toMatchObject({ id: walletId, customer_id: order!.customerId, currency: "usd", balance: 1100 });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.at("/polar").every((h) => !(JSON.parse(h.body) as { type: string }).type.startsWith("till."))).toBe(true);

    // auto-recharge at 1,000 with 2,500: a debit to 600 recharges at once, through the worker (the saved card)
    const session = (await sdk.customerSessions.create({ customerId: order!.customerId })).token;
    const set = await raw("PUT", `/v1/customer-portal/wallets/${walletId}/auto-recharge`, { enabled: true, threshold_amount: 1000, amount: 2500 }, session);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await keyed(path, { amount: -500, reason: "Usage billed elsewhere" }, "adj-4")).status).toBe(201);
    const recharged = await receiver.until((h) => {
      const types = h.filter((x) => x.path === "/wallet").map((x) => JSON.parse(x.body) as { type: string; data: Record<string, unknown> });
      return types.find((e) => e.type === "till.wallet.transaction.created" && e.data.type === "auto_recharge");
    }, 30_000);
    expect(recharged.data).toMatchObject({ amount: 2500, description: "Auto-recharge", balance_after: 3100 });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await raw("GET", `/v1/wallets/${walletId}`)).body).toMatchObject({ balance: 3100 });
    const types = ((await raw("GET", `/v1/wallets/${walletId}/transactions`)).body.items as Array<{ type: string }>).map((t) => t.type);
    expect(types).toEqual(["auto_recharge", "adjustment", "adjustment", "adjustment"]);
    // the trigger's label of a movement without a description is the history's
    const history2 = (await raw("GET", `/v1/wallets/${walletId}/transactions`)).body.items as Array<Record<string, unknown>>;
    expect(recharged.data).toEqual({ ...history2[0], customer_id: order!.customerId, balance_after: 3100 });
  });
});
