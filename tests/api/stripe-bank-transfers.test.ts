// Paying an invoice with terms by bank transfer through the seller's Stripe account (customer-balance transfers, the
// stand-in modelling them): the pay link's page offers it; asking for it opens one customer_balance PaymentIntent —
// its parameters those of the pinned API version — and answers Stripe's instructions (the account, the reference),
// the same ones when asked again. The order stays unpaid until Stripe says the money arrived: a partial transfer
// leaves it pending with less to send; the rest pays it (order.updated and order.paid, the subscription active
// again after it went past due). The stand-in refuses what Stripe's types refuse.
import { describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { invoiceWithTerms as invoiceOf } from "../helpers/stripe-invoices.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import { STRIPE_KEYS, until, type StripeSandbox, useWebhookSandbox } from "../helpers/stripe-sandbox.js";
import { stripeClient } from "../../server/payments/stripe/client.js";

let s: StripeSandbox;
let seller: Seller;
const receiver = new Receiver();

useWebhookSandbox(receiver, "/transfers", ["order.paid", "order.updated", "subscription.active"], (r) => {
  ({ s, seller } = r);
});

type Hook = { type: string; data: { id: string } };
const hooksOf = (id: string, type: string) =>
  receiver.at("/transfers").map((hit) => JSON.parse(hit.body) as Hook).filter((e) => e.type === type && e.data.id === id);

async function advance(by: string): Promise<void> {
  const res = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", { by });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
}

const invoiceWithTerms = (tag: string) => invoiceOf(s, seller, tag);

const payLink = (token: string, method: string, path = "", body?: unknown) => publicRequest(s.server, method, `/v1/pay/${token}${path}`, body);

describe("bank transfers on the pay link's page", () => {
  it("answers Stripe's instructions, keeps the order unpaid until the whole amount arrived, then settles it", async () => {
    const { sub, order, token } = await invoiceWithTerms("transfer");
    const page = await payLink(token, "GET");
    expect(page.body).toMatchObject({ bank_transfer: { offered: true, started: false }, processor: { processor: "stripe" } });

    // overdue: the subscription goes past due (a bank transfer then makes it active again)
    await advance("11d");
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("past_due");

    const started = await payLink(token, "POST", "/bank-transfer");
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    type Shown = { type: string; amount_remaining: number; currency: string; reference: string; financial_addresses: Array<{ details: Array<{ name: string }> }> };
    const instructions = started.body.instructions as Shown;
    expect(started.body.status).toBe("awaiting_transfer");
    expect(instructions).toMatchObject({ type: "us_bank_transfer", amount_remaining: order.totalAmount, currency: "usd", reference: expect.stringMatching(/^TILL\d+/) });
    const names = instructions.financial_addresses[0]?.details.map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(["account_number", "routing_number", "bank_name", "account_holder_name"]));

    // one PaymentIntent, as the pinned API version names its parameters
    const asked = s.peer.requests.filter((r) => r.path === "/v1/payment_intents" && (r.body.metadata as Record<string, string> | undefined)?.order_id === order.id);
    expect(asked).toHaveLength(1);
    const body = asked[0]?.body ?? {};
    expect(body).toMatchObject({
      allowed_payment_method_types: ["customer_balance"],
      payment_method_data: { type: "customer_balance" },
      payment_method_options: { customer_balance: { funding_type: "bank_transfer", bank_transfer: { type: "us_bank_transfer" } } },
      confirm: "true",
      currency: "usd",
    });
    expect(body).not.toHaveProperty("payment_method_types");
    // asked again: the same transfer, nothing new at Stripe
    const again = await payLink(token, "POST", "/bank-transfer");
    expect((again.body.instructions as { reference: string }).reference).toBe(instructions.reference);
    expect(s.peer.requests.filter((r) => r.path === "/v1/payment_intents" && (r.body.metadata as Record<string, string> | undefined)?.order_id === order.id)).toHaveLength(1);
    expect((await payLink(token, "GET")).body.bank_transfer).toEqual({ offered: true, started: true });
    const payments = (await s.sdk.payments.list({ orderId: order.id })).result.items;
    expect(payments.map((p) => [p.status, p.method])).toEqual([["pending", "customer_balance"]]);

    // part of the money arrives (Stripe's own test helper, through the official client): still unpaid, less to send
    const intent = [...s.peer.payments.intents.values()].find((i) => i.metadata.order_id === order.id && i.object === "payment_intent");
    if (!intent?.customer) throw new Error("no intent");
    const stripe = stripeClient(STRIPE_KEYS.secret, s.peer.url);
    await stripe.testHelpers.customers.fundCashBalance(intent.customer, { amount: order.totalAmount - 500, currency: "usd", reference: instructions.reference });
    const partly = await payLink(token, "POST", "/bank-transfer");
    expect(partly.body).toMatchObject({ status: "awaiting_transfer", instructions: { amount_remaining: 500, reference: instructions.reference } });
    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("pending");
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("past_due");

    // the rest arrives: payment_intent.succeeded through the signed webhook settles the order
    await stripe.testHelpers.customers.fundCashBalance(intent.customer, { amount: 500, currency: "usd" });
    await until(async () => ((await s.sdk.orders.get({ id: order.id })).status === "paid" ? true : undefined), "the order paid");
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    expect((await s.sdk.payments.list({ orderId: order.id })).result.items.map((p) => p.status)).toEqual(["succeeded"]);
    await receiver.until(() => (hooksOf(order.id, "order.paid").length > 0 && hooksOf(sub.id, "subscription.active").length > 0 ? true : undefined));
    expect(hooksOf(order.id, "order.updated").length).toBeGreaterThan(0);
    expect(hooksOf(order.id, "order.paid")).toHaveLength(1);

    // paid: nothing more to transfer
    expect((await payLink(token, "GET")).body).toMatchObject({ order: { paid: true }, bank_transfer: { offered: false } });
    expect((await payLink(token, "POST", "/bank-transfer")).status).toBe(422);
  }, 120_000);

  it("the stand-in refuses what Stripe's types and rules refuse", async () => {
    const stripe = stripeClient(STRIPE_KEYS.secret, s.peer.url);
    const customer = await stripe.customers.create({ email: uniqueBuyer("transfer-refused") });
    const base = { amount: 1000, customer: customer.id, confirm: true, payment_method_data: { type: "customer_balance" as const } };
    // the pinned version has no payment_method_types on a create
    const legacy = { ...base, currency: "usd", payment_method_types: ["customer_balance"] } as unknown as Parameters<typeof stripe.paymentIntents.create>[0];
    await expect(stripe.paymentIntents.create(legacy)).rejects.toMatchObject({ statusCode: 400, param: "payment_method_types" });
    // the transfer type of another currency, and a euro one without its country
    const options = (type: "us_bank_transfer" | "eu_bank_transfer") => ({ customer_balance: { funding_type: "bank_transfer" as const, bank_transfer: { type } } });
    await expect(stripe.paymentIntents.create({ ...base, currency: "eur", allowed_payment_method_types: ["customer_balance"], payment_method_options: options("us_bank_transfer") }))
      .rejects.toMatchObject({ statusCode: 400 });
    await expect(stripe.paymentIntents.create({ ...base, currency: "eur", allowed_payment_method_types: ["customer_balance"], payment_method_options: options("eu_bank_transfer") }))
      .rejects.toMatchObject({ statusCode: 400, param: "payment_method_options[customer_balance][bank_transfer][eu_bank_transfer][country]" });
    // no customer: Stripe needs one to hold the balance
    const { customer: _c, ...noCustomer } = base;
    await expect(stripe.paymentIntents.create({ ...noCustomer, currency: "usd", allowed_payment_method_types: ["customer_balance"], payment_method_options: options("us_bank_transfer") }))
      .rejects.toMatchObject({ statusCode: 400, param: "customer" });
    const ok = await stripe.paymentIntents.create({ ...base, currency: "usd", allowed_payment_method_types: ["customer_balance"], payment_method_options: options("us_bank_transfer") });
    expect(ok.status).toBe("requires_action");
    expect(ok.next_action?.display_bank_transfer_instructions).toMatchObject({ type: "us_bank_transfer", amount_remaining: 1000, currency: "usd" });
  });
});
