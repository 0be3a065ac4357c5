// A checkout confirmed while Stripe misbehaves, against the Stripe stand-in's faults: a 429 with
// Stripe-Should-Retry: true, a connection dropped after the charge was made (the money taken, the answer lost).
// till's Stripe client retries with the same Idempotency-Key, so Stripe answers the retry with what it already
// did: the checkout succeeds and the stand-in holds exactly one PaymentIntent and one charge for it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct, publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { confirmationToken, startStripeSandbox, STRIPE_CARDS, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;

beforeAll(async () => {
  s = await startStripeSandbox();
}, 120_000);
afterAll(async () => {
  await s?.close();
});

async function confirm(clientSecret: string, setupFutureUsage?: "off_session") {
  return publicRequest(s.server, "POST", `/v1/checkouts/client/${clientSecret}/confirm`, {
    customer_email: uniqueBuyer("stripe-faults"),
    customer_name: "Ada Buyer",
    customer_billing_address: { country: "FR" },
    confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa, setupFutureUsage),
  });
}

const intentsOf = (checkoutId: string) => [...s.peer.payments.intents.values()].filter((i) => i.metadata.checkout_id === checkoutId);
const chargesOf = (intentId: string) => [...s.charges.charges.values()].filter((c) => c.payment_intent === intentId);
const ordersOf = async (checkoutId: string) => (await s.sdk.orders.list({ limit: 100 })).result.items.filter((o) => o.checkoutId === checkoutId);
const intentPosts = (key: string | undefined) => s.peer.requests.filter((r) => r.method === "POST" && r.path === "/v1/payment_intents" && r.idempotencyKey === key);

/** The checkout paid once: one intent, one charge of its amount, one paid order. */
async function expectChargedOnce(checkoutId: string, amount: number) {
  const [intent, ...more] = intentsOf(checkoutId);
  expect(more).toEqual([]);
  expect(intent).toMatchObject({ status: "succeeded", amount });
  expect(chargesOf(intent?.id ?? "").map((c) => c.amount)).toEqual([amount]);
  expect((await ordersOf(checkoutId)).map((o) => o.status)).toEqual(["paid"]);
  expect((await s.sdk.checkouts.get({ id: checkoutId })).status).toBe("succeeded");
}

describe("a checkout confirmed while Stripe misbehaves", () => {
  it("a 429 with Stripe-Should-Retry: true at confirm: retried with the same key, the checkout paid, charged once", async () => {
    const product = await createProduct({ ...s.seller, sdk: s.sdk, token: s.key }, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    s.faults.rateLimit("POST", "/v1/payment_intents", { shouldRetry: true });
    const res = await confirm(checkout.clientSecret);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [fault] = s.faults.injected.slice(-1);
    expect(fault?.kind).toBe("rate_limit");
    // the retry carried the key the 429 met
    expect(intentPosts(fault?.idempotencyKey)).toHaveLength(1);
    await expectChargedOnce(checkout.id, 2500);
  });

  it("a connection dropped after the charge at confirm: the retry gets Stripe's stored answer, the checkout paid, charged once", async () => {
    const product = await createProduct({ ...s.seller, sdk: s.sdk, token: s.key }, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    s.faults.dropAfterProcessing("POST", "/v1/payment_intents");
    const res = await confirm(checkout.clientSecret);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(s.faults.pending()).toBe(0);
    const [intent] = intentsOf(checkout.id);
    const posts = s.peer.requests.filter((r) => r.path === "/v1/payment_intents" && (r.body.metadata as Record<string, string> | undefined)?.checkout_id === checkout.id);
    // processed, dropped, replayed: two requests with one key, one intent
    expect(posts.length).toBe(2);
    expect(new Set(posts.map((p) => p.idempotencyKey)).size).toBe(1);
    expect(intent).toBeDefined();
    await expectChargedOnce(checkout.id, 2500);
  });

  it("a subscription's checkout whose customer and charge both lose their answers: one Stripe customer, one charge, the subscription active", async () => {
    const product = await createProduct({ ...s.seller, sdk: s.sdk, token: s.key }, "monthly");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const customersBefore = s.peer.payments.customers.size;
    s.faults.dropAfterProcessing("POST", "/v1/customers");
    s.faults.dropAfterProcessing("POST", "/v1/payment_intents");
    const res = await confirm(checkout.clientSecret, "off_session");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(s.faults.pending()).toBe(0);
    expect(s.peer.payments.customers.size).toBe(customersBefore + 1);
    await expectChargedOnce(checkout.id, 900);
    const [intent] = intentsOf(checkout.id);
    expect(intent?.customer).toMatch(/^cus_/);
    const [sub] = (await s.sdk.subscriptions.list({ productId: product.id })).result.items;
    expect(sub?.status).toBe("active");
  });

  it("a renewal whose charge loses its answer, and one met by a 429 to retry: each charged once, the orders paid, the subscription active", async () => {
    const product = await createProduct({ ...s.seller, sdk: s.sdk, token: s.key }, "monthly");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    expect((await confirm(checkout.clientSecret, "off_session")).status).toBe(200);
    const sub = (await s.sdk.subscriptions.list({ productId: product.id })).result.items[0];
    if (!sub) throw new Error("no subscription");
    const renewalsOf = () => [...s.peer.payments.intents.values()].filter((i) => i.metadata.subscription_id === sub.id && !i.metadata.checkout_id);

    s.faults.dropAfterProcessing("POST", "/v1/payment_intents");
    await advance("31d");
    s.faults.rateLimit("POST", "/v1/payment_intents", { shouldRetry: true });
    await advance("31d");
    expect(s.faults.pending()).toBe(0);
    const renewals = renewalsOf();
    expect(renewals.map((i) => [i.status, i.amount])).toEqual([
      ["succeeded", 900],
      ["succeeded", 900],
    ]);
    for (const intent of renewals) expect(chargesOf(intent.id)).toHaveLength(1);
    // the clock renews every subscription of the sandbox: whichever renewal met a fault, every order was charged once
    const byOrder = new Map<string, number>();
    for (const i of s.peer.payments.intents.values()) if (i.status === "succeeded" && i.metadata.order_id) byOrder.set(i.metadata.order_id, (byOrder.get(i.metadata.order_id) ?? 0) + 1);
    expect([...byOrder.values()].every((n) => n === 1)).toBe(true);
    expect([...s.charges.charges.values()].length).toBe([...s.peer.payments.intents.values()].filter((i) => i.status === "succeeded" && i.object === "payment_intent").length);
    for (const fault of s.faults.injected.slice(-2)) expect(s.peer.requests.filter((r) => r.idempotencyKey === fault.idempotencyKey).length).toBeGreaterThan(0);
    const cycles = (await s.sdk.orders.list({ subscriptionId: sub.id, limit: 100 })).result.items.filter((o) => o.billingReason === "subscription_cycle");
    expect(cycles.map((o) => o.status)).toEqual(["paid", "paid"]);
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
  }, 60_000);

  it("a renewal whose charge loses its answer past the client's retries: not dunned, and the later retry asks under the same key: charged once", async () => {
    const product = await createProduct({ ...s.seller, sdk: s.sdk, token: s.key }, "monthly");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    expect((await confirm(checkout.clientSecret, "off_session")).status).toBe(200);
    const sub = (await s.sdk.subscriptions.list({ productId: product.id })).result.items[0];
    if (!sub) throw new Error("no subscription");
    // the charge is made, and every answer of the client's three tries is lost (this subscription's: the clock
    // renews the sandbox's others too)
    s.faults.dropAfterProcessing("POST", "/v1/payment_intents", { times: 3, metadata: { subscription_id: sub.id } });
    // to just past the period's end: the renewal, and no retry yet
    await advanceTo(new Date(new Date(sub.currentPeriodEnd ?? 0).getTime() + 60_000));
    expect(s.faults.pending()).toBe(0);
    const cycle = async () => (await s.sdk.orders.list({ subscriptionId: sub.id, limit: 100 })).result.items.find((o) => o.billingReason === "subscription_cycle");
    const order = await cycle();
    if (!order) throw new Error("no renewal order");
    expect(order.status).toBe("pending");
    const [lost] = (await s.sdk.payments.list({ orderId: order.id })).result.items;
    expect(lost).toMatchObject({ status: "failed", declineReason: "processing_error" });
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    const made = [...s.peer.payments.intents.values()].filter((i) => i.metadata.order_id === order.id);
    expect(made.map((i) => i.status)).toEqual(["succeeded"]);

    // the held retry an hour on: Stripe answers what it did the first time, nothing is charged again
    await advance("2h");
    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("paid");
    const intents = [...s.peer.payments.intents.values()].filter((i) => i.metadata.order_id === order.id);
    expect(intents.map((i) => i.id)).toEqual(made.map((i) => i.id));
    expect(chargesOf(made[0]?.id ?? "")).toHaveLength(1);
    const keys = new Set(s.peer.requests
      .filter((r) => r.path === "/v1/payment_intents" && (r.body.metadata as Record<string, string> | undefined)?.order_id === order.id)
      .map((r) => r.idempotencyKey));
    expect(keys.size).toBe(1);
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
  }, 60_000);
});

async function advance(by: string): Promise<void> {
  const res = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", { by });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
}

async function advanceTo(to: Date): Promise<void> {
  const res = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", { to: to.toISOString() });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
}
