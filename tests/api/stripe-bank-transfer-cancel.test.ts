// A bank transfer started for an invoice that is then paid another way (by card on the pay page, marked paid by the
// seller): its PaymentIntent is canceled at Stripe (cancellation_reason duplicate, as the pinned API version names
// it), once — a cancel whose answer is lost is asked again under the same key by the schedule's next pass — and money
// the customer still sends stays in their cash balance at Stripe. Money that beat the cancel (the intent succeeded) is
// refunded to that cash balance: the order is paid once, never twice (docs/decisions.md). A cancel Stripe refuses for
// good is not asked again: the intent's status decides (money that came first given back at once, an intent it no
// longer holds noted on the payment).
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "../../server/db/client.js";
import { customerEmail, order as orderTable } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { publicRequest } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import { invoiceWithTerms } from "../helpers/stripe-invoices.js";
import { confirmationToken, STRIPE_CARDS, STRIPE_KEYS, until, type StripeSandbox, useWebhookSandbox } from "../helpers/stripe-sandbox.js";
import { stripeClient } from "../../server/payments/stripe/client.js";

let s: StripeSandbox;
let seller: Seller;
const receiver = new Receiver();

useWebhookSandbox(receiver, "/transfer-cancels", ["order.paid"], (r) => {
  ({ s, seller } = r);
});

const paidHooksOf = (id: string) =>
  receiver.at("/transfer-cancels").map((hit) => JSON.parse(hit.body) as { type: string; data: { id: string } }).filter((e) => e.type === "order.paid" && e.data.id === id);
const payLink = (token: string, method: string, path = "", body?: unknown) => publicRequest(s.server, method, `/v1/pay/${token}${path}`, body);
const stripe = () => stripeClient(STRIPE_KEYS.secret, s.peer.url);

/** An invoice with terms whose bank transfer was started: the order, its token, the transfer's intent at Stripe. */
async function transferStarted(tag: string) {
  const { order, token } = await invoiceWithTerms(s, seller, tag);
  const started = await payLink(token, "POST", "/bank-transfer");
  expect(started.body, JSON.stringify(started.body)).toMatchObject({ status: "awaiting_transfer" });
  const intent = [...s.peer.payments.intents.values()].find((i) => i.metadata.order_id === order.id && i.object === "payment_intent");
  if (!intent?.customer) throw new Error("no transfer intent");
  const reference = (started.body.instructions as { reference: string }).reference;
  return { order, token, intent, customer: intent.customer, reference };
}

const cancelsOf = (intentId: string) => s.peer.requests.filter((r) => r.method === "POST" && r.path === `/v1/payment_intents/${intentId}/cancel`);
const canceledEventsOf = (intentId: string) => s.peer.events.filter((e) => e.type === "payment_intent.canceled" && e.object.id === intentId);

async function paymentsOf(orderId: string) {
  const items = (await s.sdk.payments.list({ orderId })).result.items;
  return items.map((p) => ({ method: p.method, status: p.status, reason: p.declineReason })).sort((a, b) => a.method.localeCompare(b.method));
}

async function markPaid(orderId: string) {
  const res = await rawRequest(s.server.url, s.key, "POST", `/v1/orders/${orderId}/mark-paid`, { note: "wire received" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Stripe's events of `type` are not sent to till until the returned function is called (an event may come late). */
function holdEvents(type: string): () => void {
  const held = [...s.peer.endpoints.values()].filter((e) => e.enabled_events.includes(type));
  for (const e of held) e.enabled_events = e.enabled_events.filter((t) => t !== type);
  return () => held.forEach((e) => e.enabled_events.push(type));
}

/** Till received the refund's event and has processed every Stripe event it holds. */
async function eventsSettled(refundId: string): Promise<boolean> {
  const rows = await rowsOf<{ received: number; open: number }>(s.server.database.db, sql`
    SELECT count(*) FILTER (WHERE object_id = ${refundId})::int AS received, count(*) FILTER (WHERE processed_at IS NULL)::int AS open FROM stripe_event`);
  return (rows[0]?.received ?? 0) > 0 && rows[0]?.open === 0;
}

/** Till has processed every Stripe event it holds. */
async function eventsProcessed(): Promise<boolean> {
  const rows = await rowsOf<{ open: number }>(s.server.database.db, sql`SELECT count(*) FILTER (WHERE processed_at IS NULL)::int AS open FROM stripe_event`);
  return rows[0]?.open === 0;
}

/** The duplicate-refund emails recorded for `to`. */
async function duplicateMailsTo(to: string): Promise<number> {
  const rows = await s.server.database.db.select({ id: customerEmail.id }).from(customerEmail).where(and(eq(customerEmail.type, "duplicate_payment_refunded"), eq(customerEmail.recipient, to)));
  return rows.length;
}

/** Whether the order's row can be locked now (nothing holds it: no transaction waits on Stripe with it). */
async function orderRowFree(id: string): Promise<boolean> {
  const db = s.server.database.db;
  return db.transaction(async (tx) => (await tx.select({ id: orderTable.id }).from(orderTable).where(eq(orderTable.id, id)).for("update", { noWait: true })).length === 1).catch(() => false);
}

async function advance(by: string): Promise<void> {
  const res = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", { by });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
}

describe("a bank transfer of an invoice paid another way", () => {
  it("paid by card on the pay page: the transfer's intent is canceled at Stripe, and a transfer sent later stays in the customer's cash balance", async () => {
    const { order, token, intent, customer, reference } = await transferStarted("cancel-card");
    const paid = await payLink(token, "POST", "/confirm", { confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa, "off_session") });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.status).toBe("succeeded");

    await until(async () => (intent.status === "canceled" ? true : undefined), "the transfer's intent canceled");
    const [cancel] = cancelsOf(intent.id);
    expect(cancelsOf(intent.id)).toHaveLength(1);
    expect(cancel?.body).toEqual({ cancellation_reason: "duplicate", expand: ["payment_method"] });
    expect(cancel?.idempotencyKey).toMatch(/^till-payment-.+-cancel$/);
    await until(async () => ((await paymentsOf(order.id)).some((p) => p.status === "failed") ? true : undefined), "the transfer's payment failed");
    expect(await paymentsOf(order.id)).toEqual([
      { method: "card", status: "succeeded", reason: null },
      { method: "customer_balance", status: "failed", reason: "canceled" },
    ]);

    // the customer's transfer arrives anyway: Stripe funds no canceled intent, the money waits in the cash balance
    await stripe().testHelpers.customers.fundCashBalance(customer, { amount: order.totalAmount, currency: "usd", reference });
    expect(intent.status).toBe("canceled");
    expect((await stripe().customers.retrieveCashBalance(customer)).available).toEqual({ usd: order.totalAmount });
    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("paid");
    await receiver.until(() => (paidHooksOf(order.id).length > 0 ? true : undefined));
    expect(paidHooksOf(order.id)).toHaveLength(1);
    // paid: the page offers no transfer any more, and Stripe refuses to confirm the canceled intent
    expect((await payLink(token, "GET")).body).toMatchObject({ order: { paid: true }, bank_transfer: { offered: false } });
    await expect(stripe().paymentIntents.confirm(intent.id)).rejects.toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
  }, 120_000);

  it("marked paid by the seller: the transfer's intent is canceled", async () => {
    const { order, intent } = await transferStarted("cancel-mark");
    await markPaid(order.id);
    await until(async () => (intent.status === "canceled" ? true : undefined), "the transfer's intent canceled");
    await until(async () => ((await paymentsOf(order.id)).some((p) => p.status === "failed") ? true : undefined), "the transfer's payment failed");
    expect(await paymentsOf(order.id)).toEqual([{ method: "customer_balance", status: "failed", reason: "canceled" }]);
    expect(cancelsOf(intent.id)).toHaveLength(1);
    expect(canceledEventsOf(intent.id)).toHaveLength(1);
    // the stand-in refuses a parameter the pinned version's cancel lacks, and a second cancel of a canceled intent
    const unknown = { cancel_reason: "duplicate" } as unknown as Parameters<ReturnType<typeof stripe>["paymentIntents"]["cancel"]>[1];
    await expect(stripe().paymentIntents.cancel(intent.id, unknown)).rejects.toMatchObject({ statusCode: 400, param: "cancel_reason" });
    await expect(stripe().paymentIntents.cancel(intent.id, { cancellation_reason: "duplicate" })).rejects.toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
  }, 120_000);

  it("a cancel whose answer is lost (the client's own retries too): asked again by the next pass under the same key, canceled once", async () => {
    const { order, intent } = await transferStarted("cancel-lost");
    // Stripe cancels, then every answer is lost: till cannot tell, and keeps the payment pending (Stripe's
    // payment_intent.canceled, which would settle it too, is late: held back here)
    const release = holdEvents("payment_intent.canceled");
    s.faults.dropAfterProcessing("POST", `/v1/payment_intents/${intent.id}/cancel`, { times: 3 });
    await markPaid(order.id);
    await until(async () => (s.faults.pending() === 0 ? true : undefined), "the cancel's answers lost");
    expect(intent.status).toBe("canceled");
    expect(await paymentsOf(order.id)).toEqual([{ method: "customer_balance", status: "pending", reason: "requires_action" }]);

    // the schedule's pass (a test clock's advance runs it) asks again: Stripe's stored answer, no second cancel
    await advance("1h");
    expect(await paymentsOf(order.id)).toEqual([{ method: "customer_balance", status: "failed", reason: "canceled" }]);
    const cancels = cancelsOf(intent.id);
    expect(cancels).toHaveLength(4);
    expect(new Set(cancels.map((c) => c.idempotencyKey)).size).toBe(1);
    expect(canceledEventsOf(intent.id)).toHaveLength(1);
    // nothing left to cancel: a later pass asks nothing
    release();
    await advance("1h");
    expect(cancelsOf(intent.id)).toHaveLength(4);
  }, 120_000);

  it("a transfer that arrives before its cancel could reach Stripe: refunded to the customer's cash balance, the order paid once", async () => {
    const { order, intent, customer, reference } = await transferStarted("cancel-late");
    const buyer = (await s.sdk.orders.get({ id: order.id })).customer.email ?? "";
    // Stripe is down for the cancel: the transfer is still open when the money arrives
    s.faults.serverError("POST", `/v1/payment_intents/${intent.id}/cancel`, { shouldRetry: false });
    await markPaid(order.id);
    await until(async () => (s.faults.pending() === 0 ? true : undefined), "the cancel refused");
    expect(intent.status).toBe("requires_action");
    await stripe().testHelpers.customers.fundCashBalance(customer, { amount: order.totalAmount, currency: "usd", reference });
    expect(intent.status).toBe("succeeded");

    // payment_intent.succeeded for an order already paid: the payment is given back, not counted
    await until(async () => ((await paymentsOf(order.id)).some((p) => p.status !== "pending") ? true : undefined), "the late transfer handled");
    expect(await paymentsOf(order.id)).toEqual([{ method: "customer_balance", status: "failed", reason: "duplicate" }]);
    const refunds = [...s.peer.payments.refunds.values()].filter((r) => r.payment_intent === intent.id);
    expect(refunds.map((r) => [r.amount, r.reason, r.status])).toEqual([[order.totalAmount, "duplicate", "succeeded"]]);
    expect((await stripe().customers.retrieveCashBalance(customer)).available).toEqual({ usd: order.totalAmount });
    // the refund's own events are not a refund of the order: it stays paid, in full
    const refundId = refunds[0]?.id ?? "";
    await until(async () => ((await eventsSettled(refundId)) ? true : undefined), "the refund's events processed");
    const got = await s.sdk.orders.get({ id: order.id });
    expect([got.status, got.refundedAmount]).toEqual(["paid", 0]);
    expect((await s.sdk.refunds.list({ orderId: order.id })).result.items).toHaveLength(0);
    // one cancel asked (Stripe's 500 before processing it), none after: the transfer's payment is settled
    expect(s.faults.injected.filter((f) => f.path === `/v1/payment_intents/${intent.id}/cancel`)).toHaveLength(1);
    expect(cancelsOf(intent.id)).toHaveLength(0);
    // the buyer is told, once, in their language (English here): how much came back, for which order, and where to
    const mail = await s.server.mailbox.waitFor(buyer, /duplicate payment/, 10_000);
    const amount = `$${(order.totalAmount / 100).toFixed(2)}`;
    expect(mail.subject).toBe(`Your duplicate payment of ${amount} was refunded`);
    expect(mail.text).toContain(`(invoice ${got.invoiceNumber}) from `);
    expect(mail.text).toContain(`was already paid, so the payment of ${amount} that arrived afterwards was refunded in full`);
    expect(mail.text).toContain("The money went back to the balance your bank transfers to");
    expect(await duplicateMailsTo(buyer)).toBe(1);
  }, 120_000);

  it("a cancel Stripe refuses because the money arrived first (its event never came): given back from the intent's status, not asked again", async () => {
    const { order, intent, customer, reference } = await transferStarted("cancel-won");
    // a buyer who reads German: the email of the refund is in German
    const { email, id: customerId } = (await s.sdk.orders.get({ id: order.id })).customer;
    const buyer = email ?? "";
    expect((await rawRequest(s.server.url, s.key, "PATCH", `/v1/customers/${customerId}`, { locale: "de" })).status).toBe(200);
    // Stripe is down for the first cancel, and its payment_intent.succeeded never reaches till
    const release = holdEvents("payment_intent.succeeded");
    s.faults.serverError("POST", `/v1/payment_intents/${intent.id}/cancel`, { shouldRetry: false });
    await markPaid(order.id);
    await until(async () => (s.faults.pending() === 0 ? true : undefined), "the cancel refused");
    await stripe().testHelpers.customers.fundCashBalance(customer, { amount: order.totalAmount, currency: "usd", reference });
    expect(intent.status).toBe("succeeded");

    // the pass asks again: Stripe refuses for good (payment_intent_unexpected_state), the intent's status decides
    await advance("1h");
    expect(cancelsOf(intent.id)).toHaveLength(1);
    expect(await paymentsOf(order.id)).toEqual([{ method: "customer_balance", status: "failed", reason: "duplicate" }]);
    const refunds = [...s.peer.payments.refunds.values()].filter((r) => r.payment_intent === intent.id);
    expect(refunds.map((r) => [r.amount, r.reason])).toEqual([[order.totalAmount, "duplicate"]]);
    await advance("1h");
    expect(cancelsOf(intent.id)).toHaveLength(1);
    release();
    const got = await s.sdk.orders.get({ id: order.id });
    expect([got.status, got.refundedAmount]).toEqual(["paid", 0]);
    const mail = await s.server.mailbox.waitFor(buyer, /doppelte Zahlung/, 10_000);
    expect(mail.subject).toMatch(/^Ihre doppelte Zahlung über .+ wurde erstattet$/);
    expect(mail.subject).toContain((order.totalAmount / 100).toFixed(2).replace(".", ","));
    expect(mail.text).toContain(`(Rechnung ${got.invoiceNumber})`);
    // the event that came late (released now) gives nothing back again, and mails nothing more
    await until(async () => ((await eventsProcessed()) ? true : undefined), "Stripe's events processed");
    expect(await duplicateMailsTo(buyer)).toBe(1);
  }, 120_000);

  it("a cancel Stripe refuses for good with the intent still unknown (test data deleted): noted for the seller, not asked again", async () => {
    const { order, intent } = await transferStarted("cancel-gone");
    // the account no longer holds the intent: a cancel and a read are both 404 resource_missing, every time
    s.peer.payments.intents.delete(intent.id);
    await markPaid(order.id);
    await until(async () => ((await paymentsOf(order.id)).some((p) => p.reason === "cancel_refused") ? true : undefined), "the refusal noted");
    // still pending: money that arrives for it anyway is given back (late.ts)
    expect(await paymentsOf(order.id)).toEqual([{ method: "customer_balance", status: "pending", reason: "cancel_refused" }]);
    const [payment] = (await s.sdk.payments.list({ orderId: order.id })).result.items;
    expect(payment?.declineMessage).toMatch(/^Stripe refused to cancel the bank transfer .*\(resource_missing\)\.$/);
    expect(cancelsOf(intent.id)).toHaveLength(1);
    await advance("1h");
    await advance("1h");
    expect(cancelsOf(intent.id)).toHaveLength(1);
  }, 120_000);

  it("Stripe slow to answer the cancel holds up nothing: order.paid goes out and the order's row is free meanwhile; the cancel is recorded once Stripe answers", async () => {
    const { order, intent } = await transferStarted("cancel-slow");
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let asked = false;
    s.peer.holdAnswer = async (req) => {
      if (req.method !== "POST" || req.path !== `/v1/payment_intents/${intent.id}/cancel`) return;
      asked = true;
      await answered;
    };
    try {
      await markPaid(order.id);
      await until(async () => (asked ? true : undefined), "the cancel asked");
      // Stripe processed the cancel and holds its answer: the fan-out that recorded the job has committed (its
      // order.paid was delivered), and no transaction holds the order's row across the call
      await receiver.until(() => (paidHooksOf(order.id).length > 0 ? true : undefined));
      expect(await orderRowFree(order.id)).toBe(true);
      expect(await paymentsOf(order.id)).toEqual([{ method: "customer_balance", status: "pending", reason: "requires_action" }]);
    } finally {
      answer();
      s.peer.holdAnswer = undefined;
    }
    await until(async () => ((await paymentsOf(order.id)).some((p) => p.status === "failed") ? true : undefined), "the transfer's payment failed");
    expect(await paymentsOf(order.id)).toEqual([{ method: "customer_balance", status: "failed", reason: "canceled" }]);
    expect(cancelsOf(intent.id)).toHaveLength(1);
  }, 120_000);
});
