// An order whose bank debit (SEPA, ACH) is processing is paid once. The debit cannot be canceled at Stripe and the
// bank answers within days, so meanwhile the order is paid no other way: "mark paid" is refused (409
// DebitProcessing), and so are the pay page's card and bank transfer (the page says why in the buyer's words). An
// order paid anyway (forced here, as a path that slipped would) whose debit then succeeds has the debit refunded in
// full (reason duplicate), once however often Stripe's event comes, recorded failed `duplicate` on the payment and
// never counted as a refund of the order (docs/decisions.md, "An order is paid once").
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { order as orderTable, stripeEvent } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import {
  confirmationToken, confirmWithBankAccount, pricedForBank, STRIPE_BANK_ACCOUNTS, STRIPE_CARDS, STRIPE_KEYS, until, type StripeSandbox, useWebhookSandbox,
} from "../helpers/stripe-sandbox.js";
import { stripeClient } from "../../server/payments/stripe/client.js";

let s: StripeSandbox;
let seller: Seller;
const receiver = new Receiver();

useWebhookSandbox(receiver, "/paid-once", ["order.paid"], (r) => {
  ({ s, seller } = r);
});

const paidHooksOf = (id: string) =>
  receiver.at("/paid-once").map((hit) => JSON.parse(hit.body) as { type: string; data: { id: string } }).filter((e) => e.type === "order.paid" && e.data.id === id);

async function advance(by: string): Promise<void> {
  const res = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", { by });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A trial bought with a SEPA account; its first renewal charged off-session: the debit processing, order pending. */
async function renewalProcessing(tag: string) {
  const product = await createProduct(seller, "trial", pricedForBank("trial", STRIPE_BANK_ACCOUNTS.sepaSucceeds));
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  await confirmWithBankAccount(s, checkout.clientSecret, STRIPE_BANK_ACCOUNTS.sepaSucceeds, uniqueBuyer(tag));
  const sub = await until(async () => (await s.sdk.subscriptions.list({ productId: product.id })).result.items[0], "the subscription");
  await advance("15d");
  const order = (await s.sdk.orders.list({ subscriptionId: sub.id })).result.items.find((o) => o.billingReason === "subscription_cycle");
  const intent = [...s.peer.payments.intents.values()].find((i) => i.object === "payment_intent" && i.metadata.order_id === order?.id);
  if (!order || !intent) throw new Error("no renewal or no debit");
  expect([order.status, intent.status]).toEqual(["pending", "processing"]);
  const got = await rawRequest(s.server.url, s.key, "GET", `/v1/orders/${order.id}`);
  const token = String(got.body.pay_url).split("/pay/")[1] ?? "";
  return { sub, order, intent, token };
}

const paymentsOf = async (orderId: string) =>
  (await s.sdk.payments.list({ orderId, sorting: ["created_at"] })).result.items.map((p) => ({ method: p.method, status: p.status, reason: p.declineReason }));
const refundsOf = (intentId: string) => [...s.peer.payments.refunds.values()].filter((r) => r.payment_intent === intentId);
const processedSucceeded = async (intentId: string) => {
  const rows = await s.server.database.db.select().from(stripeEvent).where(sql`${stripeEvent.objectId} = ${intentId} AND ${stripeEvent.type} = 'payment_intent.succeeded'`);
  return rows.length > 0 && rows.every((r) => r.processedAt) ? rows : undefined;
};

describe("an order whose bank debit is processing", () => {
  it("is not marked paid, nor paid by card or transfer on its pay page, until the bank answers; then it is paid once", async () => {
    const { order, intent, token } = await renewalProcessing("debit-refused");
    const marked = await rawRequest(s.server.url, s.key, "POST", `/v1/orders/${order.id}/mark-paid`, { note: "wire received" });
    expect(marked.status, JSON.stringify(marked.body)).toBe(409);
    expect(marked.body).toMatchObject({ error: "DebitProcessing", code: "debit_processing", detail: expect.stringContaining("still processing") });
    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("pending");

    // the pay page says so and offers nothing; a card sent anyway is refused before it is saved or charged
    const page = await publicRequest(s.server, "GET", `/v1/pay/${token}`);
    expect(page.body).toMatchObject({ order: { paid: false }, debit_processing: true, bank_transfer: { offered: false } });
    const intentsBefore = s.peer.payments.intents.size;
    const card = await publicRequest(s.server, "POST", `/v1/pay/${token}/confirm`, { confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa, "off_session") });
    expect(card.status, JSON.stringify(card.body)).toBe(409);
    expect(card.body).toMatchObject({ error: "DebitProcessing", code: "debit_processing" });
    expect(s.peer.payments.intents.size).toBe(intentsBefore);
    const transfer = await publicRequest(s.server, "POST", `/v1/pay/${token}/bank-transfer`);
    expect(transfer.status, JSON.stringify(transfer.body)).toBe(409);
    expect(transfer.body).toMatchObject({ code: "debit_processing" });
    // Stripe refuses to cancel a processing debit (the stand-in as Stripe)
    await expect(stripeClient(STRIPE_KEYS.secret, s.peer.url).paymentIntents.cancel(intent.id)).rejects.toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
    expect(intent.status).toBe("processing");

    s.peer.payments.settleDebit(intent.id);
    await until(async () => ((await s.sdk.orders.get({ id: order.id })).status === "paid" ? true : undefined), "the order paid");
    expect(await paymentsOf(order.id)).toEqual([{ method: "sepa_debit", status: "succeeded", reason: null }]);
    expect(refundsOf(intent.id)).toEqual([]);
    const after = await rawRequest(s.server.url, s.key, "POST", `/v1/orders/${order.id}/mark-paid`, {});
    expect([after.status, after.body.error]).toEqual([409, "OrderNotPending"]);
  }, 180_000);

  it("paid anyway meanwhile: the debit that succeeds is refunded in full once, the order paid once and not refunded", async () => {
    const { order, intent } = await renewalProcessing("debit-duplicate");
    // an order paid while its debit was processing (forced: any way that slipped past the refusals)
    await s.server.database.db.update(orderTable).set({ status: "paid" }).where(eq(orderTable.id, order.id));

    s.peer.payments.settleDebit(intent.id);
    expect(intent.status).toBe("succeeded");
    await until(async () => ((await paymentsOf(order.id)).some((p) => p.status !== "pending") ? true : undefined), "the debit handled");
    expect(await paymentsOf(order.id)).toEqual([{ method: "sepa_debit", status: "failed", reason: "duplicate" }]);
    const payment = (await s.sdk.payments.list({ orderId: order.id })).result.items[0];
    expect(payment?.declineMessage).toBe("The bank debit succeeded after the order was paid another way: it was refunded in full to the customer.");
    expect(refundsOf(intent.id).map((r) => [r.amount, r.reason, r.status])).toEqual([[order.totalAmount, "duplicate", "succeeded"]]);

    // Stripe sends the event again: nothing more is refunded
    const endpoint = [...s.peer.endpoints.values()][0];
    if (!endpoint) throw new Error("no endpoint");
    const target = { secret: endpoint.secret, url: s.peer.rewriteUrl(endpoint.url), livemode: false };
    expect((await s.peer.deliver(target, { type: "payment_intent.succeeded", data: { object: { id: intent.id } } })).status).toBe(200);
    await until(async () => ((await processedSucceeded(intent.id))?.length === 2 ? true : undefined), "the second event processed");
    expect(refundsOf(intent.id)).toHaveLength(1);
    // the refund's own events are no refund of the order: it stays paid, nothing refunded, no order.paid of the debit
    await until(async () => {
      const open = await s.server.database.db.select().from(stripeEvent).where(sql`${stripeEvent.processedAt} IS NULL`);
      return open.length === 0 ? true : undefined;
    }, "every event processed");
    const got = await s.sdk.orders.get({ id: order.id });
    expect([got.status, got.refundedAmount]).toEqual(["paid", 0]);
    expect((await s.sdk.refunds.list({ orderId: order.id })).result.items).toHaveLength(0);
    expect(paidHooksOf(order.id)).toHaveLength(0);
  }, 180_000);
});
