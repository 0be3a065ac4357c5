// A payment Stripe could not process for a reason that is not the customer's — here a customer deleted in Stripe's
// dashboard, so Stripe answers `resource_missing` — is not a decline: a renewal stays active, is not dunned (no
// past_due webhook, no customer email) and is tried again with backoff until it goes through; a buyer at checkout
// reads till's message, never Stripe's developer message; the seller is told (GET /v1/stripe/connection's
// `last_error`, an email to the owners at most once a day).
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { customerEmail } from "../../server/db/schema/index.js";
import { PROCESSING_ERROR_MESSAGE } from "../../server/payments/processor.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import { confirmationToken, STRIPE_CARDS, until, type StripeSandbox, useWebhookSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seller: Seller;
const receiver = new Receiver();

useWebhookSandbox(receiver, "/unprocessed", ["order.created", "order.paid", "subscription.updated", "subscription.past_due"], (r) => {
  ({ s, seller } = r);
});

const hooks = (type: string, id: string) =>
  receiver
    .at("/unprocessed")
    .map((hit) => JSON.parse(hit.body) as { type: string; data: { id: string } })
    .filter((e) => e.type === type && e.data.id === id);

async function advance(by: string | Date): Promise<void> {
  const res = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", typeof by === "string" ? { by } : { to: by.toISOString() });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
}

const confirm = (clientSecret: string, token: string, email: string) =>
  publicRequest(s.server, "POST", `/v1/checkouts/client/${clientSecret}/confirm`, {
    customer_email: email,
    customer_name: "Ada Buyer",
    customer_billing_address: { country: "FR" },
    confirmation_token_id: token,
  });

/** A monthly subscription paid by card, and the Stripe customer till made for it. */
async function subscribe(email: string) {
  const product = await createProduct(seller, "monthly");
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  const res = await confirm(checkout.clientSecret, await confirmationToken(s.peer, STRIPE_CARDS.visa, "off_session"), email);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const sub = await until(async () => (await s.sdk.subscriptions.list({ productId: product.id })).result.items.find((x) => x.status === "active"), "the subscription");
  const intent = [...s.peer.payments.intents.values()].find((i) => i.metadata.checkout_id === checkout.id);
  const stripeCustomer = intent?.customer;
  if (!stripeCustomer) throw new Error("no Stripe customer");
  return { product, sub, stripeCustomer };
}

/** Deletes a customer at the stand-in as Stripe's dashboard does; answers a function that brings it back. */
function deleteInStripe(id: string): () => void {
  const customer = s.peer.payments.customers.get(id);
  if (!customer) throw new Error(`no customer ${id}`);
  s.peer.payments.customers.delete(id);
  return () => s.peer.payments.customers.set(id, customer);
}

/** The notices sent to the owners (each owner gets its own email of a notice); this file's server has one seller. */
const ownerNotices = async () => {
  const rows = await s.server.database.db.select().from(customerEmail).where(eq(customerEmail.type, "processor_error"));
  return [...new Set(rows.map((r) => r.outboxId))];
};

/** The past-due emails ("update your payment method") recorded for a buyer, sent or not yet. */
const pastDueEmails = async (email: string) =>
  s.server.database.db
    .select({ id: customerEmail.id })
    .from(customerEmail)
    .where(and(eq(customerEmail.type, "subscription_past_due"), eq(customerEmail.recipient, email)));

describe("payments Stripe could not process", () => {
  it("a renewal whose Stripe customer was deleted stays active and undunned, the seller is told, and the retry pays it once fixed", async () => {
    const { sub, stripeCustomer } = await subscribe(uniqueBuyer("deleted"));
    const restore = deleteInStripe(stripeCustomer);
    // to just past the period's end: the renewal, and no retry yet
    await advance(new Date(new Date(sub.currentPeriodEnd ?? 0).getTime() + 60_000));
    const pending = await until(async () => (await s.sdk.orders.list({ subscriptionId: sub.id, limit: 10 })).result.items.find((o) => o.status === "pending"), "the renewal order");
    // not a decline: the subscription is active, no past_due, nothing the customer would be dunned by
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    expect(hooks("subscription.past_due", sub.id)).toEqual([]);
    const [attempt] = (await s.sdk.payments.list({ orderId: pending.id })).result.items;
    expect(attempt).toMatchObject({ status: "failed", declineReason: "processing_error", declineMessage: PROCESSING_ERROR_MESSAGE });
    // the seller is told: the connection's last error, one email to the owners
    const status = await rawRequest(s.server.url, s.key, "GET", "/v1/stripe/connection");
    expect(status.body).toMatchObject({ last_error: { code: "resource_missing" } });
    expect(String((status.body as { last_error: { message: string } }).last_error.message)).toContain(stripeCustomer);
    expect(await ownerNotices()).toHaveLength(1);

    // still missing an hour later: tried again, still active, still one email (at most one a day)
    await advance("2h");
    await until(async () => ((await s.sdk.payments.list({ orderId: pending.id })).result.items.length === 2 ? true : undefined), "the first retry");
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    expect(await ownerNotices()).toHaveLength(1);

    // the seller fixed it: the next retry (four hours on) charges the card once, off-session, and pays the order
    restore();
    await advance("5h");
    await until(async () => ((await s.sdk.orders.get({ id: pending.id })).status === "paid" ? true : undefined), "the order paid");
    const charges = [...s.peer.payments.intents.values()].filter((i) => i.metadata.order_id === pending.id && i.status === "succeeded");
    expect(charges).toHaveLength(1);
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    expect(hooks("subscription.past_due", sub.id)).toEqual([]);
  });

  it("a held renewal is dunned only once its charge is declined: no past-due email before, one after", async () => {
    const email = uniqueBuyer("held-declined");
    const { sub, stripeCustomer } = await subscribe(email);
    const restore = deleteInStripe(stripeCustomer);
    await advance(new Date(new Date(sub.currentPeriodEnd ?? 0).getTime() + 60_000));
    const pending = await until(async () => (await s.sdk.orders.list({ subscriptionId: sub.id, limit: 10 })).result.items.find((o) => o.status === "pending"), "the renewal order");
    // the renewal's order.created has been handled (its webhook sent): the emails it called for are recorded by then
    await receiver.until(() => (hooks("order.created", pending.id).length > 0 ? true : undefined));
    expect(await pastDueEmails(email)).toEqual([]);
    expect(s.server.mailbox.all.filter((m) => m.to.includes(email) && /Payment failed/.test(m.subject))).toEqual([]);

    // the seller brings the customer back, but the card is now declined: the first retry's decline starts dunning
    restore();
    const intent = [...s.peer.payments.intents.values()].find((i) => i.customer === stripeCustomer && i.status === "succeeded");
    const method = s.peer.payments.paymentMethods.get(intent?.payment_method ?? "");
    if (!method) throw new Error("no payment method");
    method.behaviour = { ...method.behaviour, chargesFail: true };
    await advance("2h");
    await until(async () => ((await s.sdk.subscriptions.get({ id: sub.id })).status === "past_due" ? true : undefined), "past due");
    await receiver.until(() => (hooks("subscription.past_due", sub.id).length > 0 ? true : undefined));
    const mail = await s.server.mailbox.waitFor(email, /Payment failed/, 10_000);
    expect(mail.text).toContain("$9.00");
    expect(await pastDueEmails(email)).toHaveLength(1);
    expect((await s.sdk.orders.get({ id: pending.id })).status).toBe("pending");
  });

  it("a checkout of a returning customer deleted in Stripe: the buyer reads till's message, not Stripe's", async () => {
    const email = uniqueBuyer("returning");
    const { stripeCustomer } = await subscribe(email);
    deleteInStripe(stripeCustomer);
    const product = await createProduct(seller, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const res = await confirm(checkout.clientSecret, await confirmationToken(s.peer, STRIPE_CARDS.visa), email);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "PaymentError", code: "processing_error", detail: PROCESSING_ERROR_MESSAGE });
    expect(JSON.stringify(res.body)).not.toContain(stripeCustomer);
    expect((await s.sdk.checkouts.get({ id: checkout.id })).status).toBe("open");
  });
});
