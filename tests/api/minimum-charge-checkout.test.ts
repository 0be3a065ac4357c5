// A checkout whose total is positive but under the processor's minimum charge for its currency (Stripe's table,
// server/payments/minimum-charge.ts) is refused with a 422 naming the minimum, before any payment: at creation, at
// the buyer's update and at confirm, through Stripe (no PaymentIntent reaches the stand-in) and through the test
// processor (no payment recorded). The stand-in itself refuses such an intent with Stripe's amount_too_small.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issues } from "../helpers/api.js";
import { publicRequest, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { confirmationToken, startStripeSandbox, STRIPE_CARDS, STRIPE_KEYS, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let plain: Seller;

beforeAll(async () => {
  s = await startStripeSandbox();
  // an organization without a Stripe account on the same server: the built-in test processor pays for it
  plain = await createSeller(s.server, "minimum-test-processor");
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const buyer = () => ({ customer_email: uniqueBuyer("minimum"), customer_name: "Ada Buyer", customer_billing_address: { country: "FR" } });
const intentRequests = () => s.peer.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1/payment_intents"));

/** A 25.00 usd product and a 99.8 % discount code: 5 cents to pay. */
async function fiveCents(sdk: Seller["sdk"], tag: string) {
  const product = await sdk.products.create({ name: `Book ${tag}`, prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" }] });
  const code = `ALMOST${tag.toUpperCase()}${Date.now().toString(36).toUpperCase()}`;
  const discount = await sdk.discounts.create({ name: "Almost free", type: "percentage", basisPoints: 9980, duration: "once", code });
  return { product, discount, code };
}

const expectBelowMinimum = (res: { status: number; body: Record<string, unknown> }, field: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(issues(res.body)).toEqual([
    expect.objectContaining({
      loc: ["body", field],
      msg: "The total, $0.05, is below the smallest amount that can be charged in USD ($0.50).",
      code: "amount_below_minimum",
    }),
  ]);
};

describe("a checkout under the minimum charge", () => {
  it("through Stripe: refused at creation, at the buyer's code and at confirm, and no PaymentIntent is asked for", async () => {
    const { product, discount, code } = await fiveCents(s.sdk, "stripe");
    const before = intentRequests().length;
    // the seller learns it when creating the checkout
    const created = await fetch(`${s.server.url}/v1/checkouts/`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ products: [product.id], discount_id: discount.id }),
    });
    expectBelowMinimum({ status: created.status, body: (await created.json()) as Record<string, unknown> }, "discount_id");

    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    // the buyer typing the code
    expectBelowMinimum(await publicRequest(s.server, "PATCH", `/v1/checkouts/client/${checkout.clientSecret}`, { discount_code: code }), "discount_code");
    // and confirming with it: nothing reaches Stripe
    const token = await confirmationToken(s.peer, STRIPE_CARDS.visa);
    const confirmed = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, { ...buyer(), discount_code: code, confirmation_token_id: token });
    expectBelowMinimum(confirmed, "discount_code");
    expect(intentRequests().length).toBe(before);
    expect((await s.sdk.checkouts.get({ id: checkout.id })).status).toBe("open");
    expect((await s.sdk.orders.list({ checkoutId: checkout.id })).result.items).toHaveLength(0);

    // without the code, the 25.00 is paid as usual
    const paid = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, { ...buyer(), confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa) });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(intentRequests().length).toBe(before + 1);
  });

  it("through the test processor: refused at confirm, no payment recorded", async () => {
    const { product, code } = await fiveCents(plain.sdk, "test");
    const checkout = await plain.sdk.checkouts.create({ products: [product.id] });
    const token = await tokenize(s.server, checkout.clientSecret);
    const confirmed = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, { ...buyer(), discount_code: code, confirmation_token_id: token });
    expectBelowMinimum(confirmed, "discount_code");
    expect((await plain.sdk.payments.list({ checkoutId: checkout.id })).result.items).toHaveLength(0);
    expect((await plain.sdk.orders.list({ checkoutId: checkout.id })).result.items).toHaveLength(0);
  });

  it("a 100 % discount (nothing to charge) is not refused", async () => {
    const product = await plain.sdk.products.create({ name: "Gift", prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" }] });
    const discount = await plain.sdk.discounts.create({ name: "Free", type: "percentage", basisPoints: 10_000, duration: "once" });
    const checkout = await plain.sdk.checkouts.create({ products: [product.id], discountId: discount.id });
    expect(checkout.totalAmount).toBe(0);
  });
});

describe("the Stripe stand-in", () => {
  it("refuses a PaymentIntent under the currency's minimum with Stripe's amount_too_small, and one over the maximum with amount_too_large", async () => {
    const post = async (body: Record<string, string>) => {
      const res = await fetch(`${s.peer.url}/v1/payment_intents`, {
        method: "POST",
        headers: { authorization: `Bearer ${STRIPE_KEYS.secret}`, "content-type": "application/x-www-form-urlencoded", "stripe-version": "2026-10-28.endive" },
        body: new URLSearchParams(body),
      });
      return { status: res.status, body: (await res.json()) as { error?: { code?: string; param?: string; message?: string } } };
    };
    const small = await post({ amount: "49", currency: "usd" });
    expect(small.status).toBe(400);
    expect(small.body.error).toMatchObject({ code: "amount_too_small", param: "amount", message: "Amount must be at least $0.50 usd" });
    expect((await post({ amount: "249", currency: "dkk" })).body.error?.code).toBe("amount_too_small");
    expect((await post({ amount: "50", currency: "usd" })).status).toBe(200);
    expect((await post({ amount: "100000000", currency: "usd" })).body.error?.code).toBe("amount_too_large");
  });
});
