// Wallet charges through the organization's Stripe account, against the Stripe stand-in: a top-up
// sends the PaymentIntent with the wallet movement's key as Stripe's Idempotency-Key (`till-wallet-<org>-<hash of
// the movement key>`): Stripe answers a retried charge (one whose transaction rolled back after the money was
// taken) with the first PaymentIntent instead of charging twice; another top-up is another key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processorKeyOf } from "../../server/billing/wallets/charge.js";
import { publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { confirmationToken, startStripeSandbox, STRIPE_CARDS, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;

beforeAll(async () => {
  s = await startStripeSandbox();
}, 120_000);
afterAll(async () => {
  await s?.close();
});

async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("wallet top-ups through Stripe", () => {
  it("pass the movement's idempotency key to Stripe as the charge's Idempotency-Key", async () => {
    const product = await s.sdk.products.create({ name: "Plan", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }] });
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const confirmed = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
      customer_email: uniqueBuyer("wallet-stripe"),
      customer_name: "Ada",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa, "off_session"),
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const customerId = (confirmed.body as { customer_id: string }).customer_id;
    const wallet = await call("POST", "/v1/wallets/", { customer_id: customerId, currency: "usd" });
    expect(wallet.status).toBe(201);
    const walletId = wallet.body.id as string;

    const before = s.peer.requests.length;
    const top = await call("POST", `/v1/wallets/${walletId}/top-up`, { amount: 2000 }, { "idempotency-key": "top-up-1" });
    expect(top.status, JSON.stringify(top.body)).toBe(200);
    expect(top.body.balance).toBe(2000);
    const intents = s.peer.requests.slice(before).filter((r) => r.method === "POST" && r.path === "/v1/payment_intents");
    expect(intents).toHaveLength(1);
    const expected = processorKeyOf(checkout.organizationId, "top_up:top-up-1");
    expect(intents[0]?.idempotencyKey).toBe(expected);
    expect(expected.length).toBeLessThanOrEqual(255);

    // another top-up (another key) is another charge with another processor key
    const second = await call("POST", `/v1/wallets/${walletId}/top-up`, { amount: 500 }, { "idempotency-key": "top-up-2" });
    expect(second.body.balance).toBe(2500);
    const keys = s.peer.requests.filter((r) => r.path === "/v1/payment_intents" && r.idempotencyKey?.startsWith("till-wallet-")).map((r) => r.idempotencyKey);
    expect(new Set(keys)).toEqual(new Set([expected, processorKeyOf(checkout.organizationId, "top_up:top-up-2")]));
  });
});
