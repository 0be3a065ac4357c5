// A checkout whose total is positive but under the processor's minimum charge for its currency (Stripe's table,
// server/payments/minimum-charge.ts) is refused with a 422 naming the minimum, before any payment: at creation, at
// the buyer's update and at confirm, through Stripe (no PaymentIntent reaches the stand-in) and through the test
// processor (no payment recorded). The stand-in itself refuses such an intent with Stripe's amount_too_small.
// Set-up that can only produce such totals is refused when made: a price under its currency's minimum (DKK 2.50),
// a discount restricted to products it brings strictly between 0 and the minimum.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issues, rawRequest } from "../helpers/api.js";
import { pdfTextOf, untilWorked } from "../helpers/pdf.js";
import { createApiCallsMeter, createProduct, publicRequest, subscribeThroughCheckout, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { confirmationToken, startStripeSandbox, STRIPE_CARDS, STRIPE_KEYS, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let plain: Seller;
let plainKey = "";

beforeAll(async () => {
  s = await startStripeSandbox();
  // an organization without a Stripe account on the same server: the built-in test processor pays for it
  plain = await createSeller(s.server, "minimum-test-processor");
  plainKey = await plain.createKey();
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
    const paid = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
      ...buyer(), confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa),
    });
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

describe("set-up that can only produce totals under the minimum", () => {
  const post = (path: string, body: unknown) => rawRequest(s.server.url, plainKey, "POST", path, body);
  const patch = (path: string, body: unknown) => rawRequest(s.server.url, plainKey, "PATCH", path, body);

  it("a price under its currency's minimum charge is refused (DKK 2.50), at or above it accepted, 0 still free", async () => {
    const dkk = (price: Record<string, unknown>) => post("/v1/products/", { name: "Kroner", prices: [{ price_currency: "dkk", ...price }] });
    const under = await dkk({ amount_type: "fixed", price_amount: 249 });
    expect(under.status).toBe(422);
    expect(issues(under.body)[0]).toMatchObject({ loc: ["body", "prices", 0, "price_amount"], msg: "Amount must be 0 or at least 250: the smallest amount that can be charged in DKK" });
    expect((await dkk({ amount_type: "fixed", price_amount: 250 })).status).toBe(201);
    expect((await dkk({ amount_type: "fixed", price_amount: 0 })).status).toBe(201);
    // a custom price's minimum too, and its default is the currency's floor
    expect(issues((await dkk({ amount_type: "custom", minimum_amount: 100 })).body)[0]?.loc).toEqual(["body", "prices", 0, "minimum_amount"]);
    const custom = await dkk({ amount_type: "custom" });
    expect(custom.status).toBe(201);
    expect((custom.body.prices as Array<{ minimum_amount: number }>)[0]?.minimum_amount).toBe(250);
    // usd keeps Polar's floor of 50
    expect((await post("/v1/products/", { name: "Dollars", prices: [{ amount_type: "fixed", price_amount: 50, price_currency: "usd" }] })).status).toBe(201);
  });

  it("a discount restricted to products it brings strictly between 0 and the minimum is refused; 100 % and an unrestricted one are allowed", async () => {
    const product = await plain.sdk.products.create({ name: "Book", prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" }] });
    const refused = await post("/v1/discounts/", { name: "Stranded", type: "percentage", basis_points: 9980, duration: "once", products: [product.id] });
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(issues(refused.body)[0]).toMatchObject({ loc: ["body", "basis_points"] });
    expect(issues(refused.body)[0]?.msg).toContain("Book: $0.05, under $0.50");
    const fixed = await post("/v1/discounts/", { name: "Minus 24.70", type: "fixed", amounts: { usd: 2470 }, duration: "once", products: [product.id] });
    expect(fixed.status).toBe(422);
    expect(issues(fixed.body)[0]).toMatchObject({ loc: ["body", "amounts"] });
    // nothing was kept of the refused ones
    expect((await rawRequest(s.server.url, plainKey, "GET", "/v1/discounts/?query=Stranded")).body.items).toEqual([]);
    // allowed: the whole price, less than would strand it, and the same discount unrestricted
    expect((await post("/v1/discounts/", { name: "Gift", type: "percentage", basis_points: 10_000, duration: "once", products: [product.id] })).status).toBe(201);
    const ninety = await post("/v1/discounts/", { name: "Ninety", type: "percentage", basis_points: 9000, duration: "once", products: [product.id] });
    expect(ninety.status).toBe(201);
    expect((await post("/v1/discounts/", { name: "Anything", type: "percentage", basis_points: 9980, duration: "once" })).status).toBe(201);
    // an update that strands it is refused too, and changes nothing
    const raised = await patch(`/v1/discounts/${String(ninety.body.id)}`, { basis_points: 9990 });
    expect(raised.status, JSON.stringify(raised.body)).toBe(422);
    expect((await rawRequest(s.server.url, plainKey, "GET", `/v1/discounts/${String(ninety.body.id)}`)).body.basis_points).toBe(9000);
  });
});

describe("a renewal under the minimum charge", () => {
  const raw = (method: string, path: string, body?: unknown) => rawRequest(s.server.url, plainKey, method, path, body);
  const calls = async (customerId: string, n: number) => {
    const ingest = await raw("POST", "/v1/events/ingest", { events: Array.from({ length: n }, () => ({ name: "api.call", customer_id: customerId })) });
    expect(ingest.status).toBe(200);
  };
  const renew = async (id: string, start: string) => {
    const res = await raw("POST", `/v1/subscriptions/${id}/renew`, { current_period_start: start });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { status: string; current_period_start: string };
  };

  /** The order's invoice as text (its signed URL names the sandbox's public base URL: fetched from the test server). */
  const invoiceText = async (orderId: string) => {
    const url = await untilWorked(s.server, `the invoice of ${orderId}`, async () => {
      const res = await raw("GET", `/v1/orders/${orderId}/invoice`);
      return res.status === 200 ? String((res.body as { url: string }).url) : null;
    });
    const local = new URL(url);
    const res = await fetch(`${s.server.url}${local.pathname}${local.search}`);
    return pdfTextOf(new Uint8Array(await res.arrayBuffer()));
  };

  it("is not charged but carried to the next invoice: the order paid, the subscription active, no dunning; the next renewal collects it", async () => {
    const meter = await createApiCallsMeter(plain);
    // 0.5 ¢ a call
    const product = await createProduct(plain, "metered", {}, meter.id);
    const sub = await subscribeThroughCheckout(s.server, plain.sdk, product.id);
    // 40 calls: 20 cents, under usd's 50
    await calls(sub.customerId, 40);
    const first = await renew(sub.id, sub.currentPeriodStart.toISOString());
    expect(first.status).toBe("active");
    const cycleOrders = async () => (await plain.sdk.orders.list({ subscriptionId: sub.id, limit: 100 })).result.items.filter((o) => o.billingReason === "subscription_cycle");
    const [carried] = await cycleOrders();
    expect(carried).toMatchObject({ status: "paid", totalAmount: 20, appliedBalanceAmount: -20, dueAmount: 0 });
    expect((await plain.sdk.payments.list({ orderId: carried?.id ?? "" })).result.items).toHaveLength(0);
    // the next period: 200 calls (1.00) and the 0.20 carried, charged together
    await calls(sub.customerId, 200);
    const second = await renew(sub.id, first.current_period_start);
    expect(second.status).toBe("active");
    const next = (await cycleOrders()).find((o) => o.id !== carried?.id);
    expect(next).toMatchObject({ status: "paid", totalAmount: 100, appliedBalanceAmount: 20, dueAmount: 120 });
    const payments = (await plain.sdk.payments.list({ orderId: next?.id ?? "" })).result.items;
    expect(payments.map((p) => [p.status, p.amount])).toEqual([["succeeded", 120]]);
    // never dunned
    const dunning = await raw("GET", `/v1/subscriptions/${sub.id}`);
    expect(dunning.body.status).toBe("active");
    // the invoices say where the 0.20 went: carried from the first, collected by the second (not the wallet's)
    await s.server.worker.start();
    try {
      const carriedText = await invoiceText(carried?.id ?? "");
      expect(carriedText).toContain("Carried to your next invoice");
      expect(carriedText).not.toContain("Paid from wallet");
      expect(await invoiceText(next?.id ?? "")).toContain("Carried from your previous invoice");
    } finally {
      await s.server.worker.stop();
    }
  });

  it("a wallet top-up under the minimum is refused when asked (422), nothing charged", async () => {
    const meter = await createApiCallsMeter(plain);
    const sub = await subscribeThroughCheckout(s.server, plain.sdk, (await createProduct(plain, "metered", {}, meter.id)).id);
    const wallet = await raw("POST", "/v1/wallets/", { customer_id: sub.customerId, currency: "usd" });
    expect(wallet.status, JSON.stringify(wallet.body)).toBe(201);
    const small = await raw("POST", `/v1/wallets/${String(wallet.body.id)}/top-up`, { amount: 20 });
    expect(small.status).toBe(422);
    expect(issues(small.body)[0]).toMatchObject({ loc: ["body", "amount"], msg: "A top-up must be at least $0.50, the smallest amount that can be charged in USD.", code: "amount_below_minimum" });
    expect((await raw("POST", `/v1/wallets/${String(wallet.body.id)}/top-up`, { amount: 50 })).status).toBe(200);
  });
});
