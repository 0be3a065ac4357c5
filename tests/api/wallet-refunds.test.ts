// Refunds and the wallet, against amounts computed by hand. An order of $10.00 paid $6.00 from the
// wallet and $4.00 by card is refunded in two halves: each gives back 300 to the wallet and 200 to the card (the
// wallet's part in proportion, cumulatively), and the order is then fully refunded (its refundable amount counts
// what the wallet paid). An order paid by card alone is refunded $4.00 with till's `refund_to: "wallet"`: all of
// it to the wallet, nothing to the card; a retry with the same Idempotency-Key moves nothing. Each answer and
// each refund webhook parses in both SDKs.
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
  key = await (await createSeller(server, "wallet-refunds")).createSandboxKey();
  sdk = sdkFor(server, key);
  sdk049 = sdk049For(server, key);
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

describe("refunds and the wallet", () => {
  it("gives the wallet's part back to the wallet, and everything with refund_to: wallet", async () => {
    const endpoint = await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/polar`, format: "raw", events: ["refund.created", "refund.updated", "order.refunded"] });
    const product = (name: string) => sdk.products.create({ name, prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    const [a, b] = [await product("Plan A"), await product("Plan B")];
    const email = "refund-ada@example.com";
    const customer = await sdk.customers.create({ email, name: "Ada" });
    const buy = async (productId: string) => {
      const checkout = await sdk.checkouts.create({ products: [productId], customerId: customer.id });
      await pay(server, checkout, { customerEmail: email });
      return (await sdk.orders.list({ checkoutId: checkout.id })).result.items[0]!;
    };
    const byCard = await buy(a.id);
    expect(byCard).toMatchObject({ totalAmount: 1000, appliedBalanceAmount: 0 });
    const opened = await raw("POST", "/v1/wallets/", { customer_id: customer.id, currency: "usd" });
    const walletId = opened.body.id as string;
    expect((await raw("POST", `/v1/wallets/${walletId}/top-up`, { amount: 600 })).body).toMatchObject({ balance: 600 });
    const balance = async () => (await raw("GET", `/v1/wallets/${walletId}`)).body.balance as number;

    // paid 600 from the wallet, 400 by card; all 1,000 is refundable
    const mixed = await buy(b.id);
    expect(mixed).toMatchObject({ totalAmount: 1000, appliedBalanceAmount: -600, status: "paid" });
    expect(await balance()).toBe(0);
    expect((await raw("GET", `/v1/orders/${mixed.id}`)).body).toMatchObject({ refundable_amount: 1000 });

    const half = await sdk.refunds.create({ orderId: mixed.id, reason: "customer_request", amount: 500 });
    expect(half).toMatchObject({ amount: 500, status: "succeeded" });
    expect(await balance()).toBe(300);
    const rest = await sdk049.refunds.create({ orderId: mixed.id, reason: "customer_request", amount: 500 });
    expect(rest).toMatchObject({ amount: 500, status: "succeeded" });
    expect(await balance()).toBe(600);
    expect(await sdk.orders.get({ id: mixed.id })).toMatchObject({ status: "refunded", refundedAmount: 1000 });

    // till's refund_to: wallet — all of it to the wallet, once per Idempotency-Key
    const toWallet = await keyed("/v1/refunds/", { order_id: byCard.id, reason: "customer_request", amount: 400, refund_to: "wallet" }, "refund-1");
    expect(toWallet.status, JSON.stringify(toWallet.body)).toBe(201);
    expect((await keyed("/v1/refunds/", { order_id: byCard.id, reason: "customer_request", amount: 400, refund_to: "wallet" }, "refund-1")).body.id).toBe(toWallet.body.id);
    expect(await balance()).toBe(1000);
    expect((await raw("POST", "/v1/refunds/", { order_id: byCard.id, reason: "customer_request", amount: 1, refund_to: "elsewhere" })).status).toBe(422);
    // both SDKs read the refunds
    expect((await sdk.refunds.list({ orderId: byCard.id })).result.items.map((r) => r.amount)).toEqual([400]);
    expect((await sdk049.refunds.list({ orderId: mixed.id })).result.items.map((r) => r.amount)).toEqual([500, 500]);
    expect(await sdk.orders.get({ id: byCard.id })).toMatchObject({ status: "partially_refunded", refundedAmount: 400 });

    // the history: three refunds, each naming its order
    const history = (await raw("GET", `/v1/wallets/${walletId}/transactions`)).body.items as Array<{ type: string; amount: number; order_id: string | null }>;
    expect(history.map((t) => [t.type, t.amount, t.order_id])).toEqual([
      ["refund", 400, byCard.id],
      ["refund", 300, mixed.id],
      ["refund", 300, mixed.id],
      ["order_payment", -600, mixed.id],
      ["top_up", 600, expect.any(String)],
    ]);

    const hits = await receiver.until((h) => (h.filter((x) => x.path === "/polar").length >= 9 ? h.filter((x) => x.path === "/polar") : false), 30_000);
    for (const hit of hits) {
      expect(() => validateEvent(hit.body, hit.headers, endpoint.secret)).not.toThrow();
      expect(() => validateEvent049(hit.body, hit.headers, endpoint.secret)).not.toThrow();
    }
  }, 240_000);
});
