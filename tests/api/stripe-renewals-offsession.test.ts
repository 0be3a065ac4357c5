// What the customer's money goes through after the first payment, against the Stripe stand-in on the sandbox's test
// clock: a card subscription renews twice and stays active, a wallet is topped up from the saved card, a SEPA
// renewal is debited and paid, a plan change billed now charges the proration. Each charge is a PaymentIntent made
// off-session as the pinned API version takes it: `off_session=true`, the saved method's type in
// `allowed_payment_method_types`, no `payment_method_types` (a parameter the version no longer has: Stripe would
// refuse it with 400 parameter_unknown, and every renewal would be dunned).
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import { subscribeWithCard as subscribeCard } from "../helpers/stripe-invoices.js";
import { confirmWithBankAccount, STRIPE_BANK_ACCOUNTS, until, type StripeSandbox, useWebhookSandbox, pricedForBank } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seller: Seller;
const receiver = new Receiver();

useWebhookSandbox(receiver, "/renewals", ["order.paid", "subscription.updated"], (r) => {
  ({ s, seller } = r);
});

async function advance(by: string): Promise<void> {
  const res = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", { by });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
}

const subscription = async (id: string): Promise<Subscription> => s.sdk.subscriptions.get({ id });
const ordersOf = async (subscriptionId: string) => (await s.sdk.orders.list({ subscriptionId, limit: 100, sorting: ["created_at"] })).result.items;
const orderBecomes = (orderId: string, status: string) => until(async () => ((await s.sdk.orders.get({ id: orderId })).status === status ? true : undefined), `the order ${status}`);

/** The PaymentIntents till asked Stripe for, as received (their parameters), whose metadata names `field` = `id`. */
const intentRequests = (field: string, id: string) =>
  s.peer.requests.filter((r) => r.method === "POST" && r.path === "/v1/payment_intents" && (r.body.metadata as Record<string, string> | undefined)?.[field] === id);
/** The stand-in's PaymentIntents whose metadata names `field` = `id`, oldest first. */
const intentsOf = (field: string, id: string) => [...s.peer.payments.intents.values()].filter((i) => i.object === "payment_intent" && i.metadata[field] === id);

/** How an off-session charge must reach Stripe under the pinned API version. */
function expectOffSession(body: Record<string, unknown>, type: string): void {
  expect(body.off_session).toBe("true");
  expect(body.confirm).toBe("true");
  expect(body.allowed_payment_method_types).toEqual([type]);
  expect(body).not.toHaveProperty("payment_method_types");
  expect(body).not.toHaveProperty("confirmation_token");
  expect(typeof body.payment_method).toBe("string");
}

/** A card subscription bought through the checkout, the card saved for off-session charges. */
const subscribeWithCard = (kind: "monthly" | "trial", tag: string) => subscribeCard(s, seller, kind, tag);

describe("off-session charges through Stripe", () => {
  it("a card subscription renews twice: two off-session PaymentIntents, two paid orders, still active", async () => {
    const { sub } = await subscribeWithCard("monthly", "renew-twice");
    expect(sub.status).toBe("active");
    const first = intentRequests("subscription_id", sub.id).length;

    await advance("31d");
    await advance("31d");
    const renewals = intentRequests("subscription_id", sub.id).slice(first);
    expect(renewals).toHaveLength(2);
    for (const r of renewals) expectOffSession(r.body, "card");
    // two keys: two charges, never one retried
    expect(new Set(renewals.map((r) => r.idempotencyKey)).size).toBe(2);
    const intents = intentsOf("subscription_id", sub.id).slice(-2);
    expect(intents.map((i) => [i.status, i.amount])).toEqual([
      ["succeeded", 900],
      ["succeeded", 900],
    ]);

    const cycles = (await ordersOf(sub.id)).filter((o) => o.billingReason === "subscription_cycle");
    expect(cycles.map((o) => [o.status, o.totalAmount])).toEqual([
      ["paid", 900],
      ["paid", 900],
    ]);
    expect(new Set(intents.map((i) => i.metadata.order_id))).toEqual(new Set(cycles.map((o) => o.id)));
    expect((await subscription(sub.id)).status).toBe("active");
  }, 90_000);

  it("a wallet topped up from the saved card: an off-session PaymentIntent for the card, the balance credited", async () => {
    const { customerId } = await subscribeWithCard("monthly", "wallet-top-up");
    const wallet = await rawRequest(s.server.url, s.key, "POST", "/v1/wallets/", { customer_id: customerId, currency: "usd" });
    expect(wallet.status, JSON.stringify(wallet.body)).toBe(201);
    const walletId = String(wallet.body.id);
    const before = s.peer.requests.length;
    const top = await rawRequest(s.server.url, s.key, "POST", `/v1/wallets/${walletId}/top-up`, { amount: 3000 });
    expect(top.status, JSON.stringify(top.body)).toBe(200);
    expect(top.body.balance).toBe(3000);
    const charged = s.peer.requests.slice(before).filter((r) => r.method === "POST" && r.path === "/v1/payment_intents");
    expect(charged).toHaveLength(1);
    expectOffSession(charged[0]?.body ?? {}, "card");
    expect(charged[0]?.body.amount).toBe("3000");
  }, 60_000);

  it("a SEPA renewal: an off-session debit of the mandate's type, paid when the bank answers; the subscription active", async () => {
    // SEPA debits euros: a euro price (Stripe offers and takes sepa_debit for eur only)
    const product = await createProduct(seller, "trial", pricedForBank("trial", STRIPE_BANK_ACCOUNTS.sepaSucceeds));
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    await confirmWithBankAccount(s, checkout.clientSecret, STRIPE_BANK_ACCOUNTS.sepaSucceeds, uniqueBuyer("sepa-renew"));
    const sub = await until(async () => (await s.sdk.subscriptions.list({ productId: product.id })).result.items[0], "the subscription");
    expect(sub.status).toBe("trialing");

    await advance("15d");
    const [renewal, ...more] = intentRequests("subscription_id", sub.id);
    expect(more).toEqual([]);
    expectOffSession(renewal?.body ?? {}, "sepa_debit");
    const [intent] = intentsOf("subscription_id", sub.id);
    if (!intent) throw new Error("no renewal intent");
    expect(intent.status).toBe("processing");
    s.peer.payments.settleDebit(intent.id);
    await orderBecomes(intent.metadata.order_id ?? "", "paid");
    expect((await subscription(sub.id)).status).toBe("active");
  }, 90_000);

  it("a plan change billed now charges the proration off-session; the order paid, the subscription active on the new plan", async () => {
    const { sub } = await subscribeWithCard("monthly", "upgrade-now");
    const pro = await s.sdk.products.create({ name: "card pro", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 2900, priceCurrency: "usd" }] });
    const first = intentRequests("subscription_id", sub.id).length;
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: pro.id, prorationBehavior: "invoice" } });

    const [change, ...more] = intentRequests("subscription_id", sub.id).slice(first);
    expect(more).toEqual([]);
    expectOffSession(change?.body ?? {}, "card");
    const intent = intentsOf("subscription_id", sub.id).at(-1);
    if (!intent) throw new Error("no proration intent");
    expect(intent.status).toBe("succeeded");
    const order = await s.sdk.orders.get({ id: intent.metadata.order_id ?? "" });
    expect(order.billingReason).toBe("subscription_update");
    // the difference for the rest of the period: more than nothing, at most the whole difference of 20.00
    expect(order.totalAmount).toBe(intent.amount);
    expect(order.totalAmount).toBeGreaterThan(0);
    expect(order.totalAmount).toBeLessThanOrEqual(2000);
    await orderBecomes(order.id, "paid");
    const after = await subscription(sub.id);
    expect([after.status, after.productId]).toEqual(["active", pro.id]);
  }, 60_000);
});
