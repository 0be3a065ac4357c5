// Paying a checkout through the organization's Stripe account, against the Stripe stand-in: the
// publishable key in payment_processor_metadata, a confirmation token confirmed as a PaymentIntent on a Stripe
// customer (a SetupIntent for a trial), Stripe's decline messages, a retried confirm charged once, 3-D Secure
// (the confirm answers the intent's client secret; the checkout completes on payment_intent.succeeded), the
// order made once whichever of the confirm and the event comes first; till's webhooks valid for both SDKs.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { describe, expect, it } from "vitest";
import { createProduct, publicRequest, publicSdk, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import { authenticate, confirmationToken, STRIPE_CARDS, STRIPE_KEYS, until, type StripeSandbox, useWebhookSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let sandboxSeller: Seller;
const receiver = new Receiver();
let endpointSecret = "";

useWebhookSandbox(receiver, "/stripe-pay", ["order.created", "order.paid", "subscription.created", "checkout.updated"], (r) => {
  ({ s, seller: sandboxSeller, endpointSecret } = r);
});

async function confirm(clientSecret: string, token: string, extra: Record<string, unknown> = {}) {
  return publicRequest(s.server, "POST", `/v1/checkouts/client/${clientSecret}/confirm`, {
    customer_email: uniqueBuyer("stripe"),
    customer_name: "Ada Buyer",
    customer_billing_address: { country: "FR" },
    confirmation_token_id: token,
    ...extra,
  });
}

async function renew(id: string, currentPeriodStart: Date) {
  const res = await fetch(`${s.server.url}/v1/subscriptions/${id}/renew`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
    body: JSON.stringify({ current_period_start: currentPeriodStart.toISOString() }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string };
}

async function pendingOrderOf(subscriptionId: string): Promise<string> {
  const orders = (await s.sdk.orders.list({ subscriptionId, limit: 100 })).result.items;
  const pending = orders.find((o) => o.status === "pending");
  if (!pending) throw new Error("no pending order");
  return pending.id;
}

const portalToken = async (customerId: string) => (await s.sdk.customerSessions.create({ customerId })).token;

async function portalCall(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

const ordersOf = async (checkoutId: string) => (await s.sdk.orders.list({ limit: 100 })).result.items.filter((o) => o.checkoutId === checkoutId);
const intentsOf = (checkoutId: string) => [...s.peer.payments.intents.values()].filter((i) => i.metadata.checkout_id === checkoutId);

describe("a sandbox organization connected to Stripe", () => {
  it("offers Stripe's Payment Element: the checkout carries the publishable key, never the secret key", async () => {
    const product = await createProduct(sandboxSeller, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    expect(checkout.paymentProcessor).toBe("stripe");
    expect(checkout.paymentProcessorMetadata).toMatchObject({ processor: "stripe", publishable_key: STRIPE_KEYS.publishable });
    expect(JSON.stringify(checkout)).not.toContain(STRIPE_KEYS.secret);
  });

  it("takes a one-time purchase through a PaymentIntent without making a Stripe customer (nothing is kept for later); the event that follows changes nothing", async () => {
    const product = await createProduct(sandboxSeller, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const token = await confirmationToken(s.peer, STRIPE_CARDS.visa);
    // the SDK's clientConfirm, as a page on Polar's wire sends it
    const confirmed = await publicSdk(s.server).checkouts.clientConfirm({
      clientSecret: checkout.clientSecret,
      checkoutConfirmStripe: { customerEmail: uniqueBuyer("stripe-one"), customerName: "Ada", customerBillingAddress: { country: "FR" }, confirmationTokenId: token },
    });
    expect(confirmed.status).toBe("confirmed");
    const [intent, ...more] = intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(intent).toMatchObject({ status: "succeeded", amount: 2500, currency: "usd" });
    // as Stripe Checkout's customer_creation "if_required": a first subscription or a method saved in the portal makes
    // one
    expect(intent?.customer ?? null).toBeNull();
    // payment_intent.succeeded arrives after the confirm made the order: still one order
    await until(async () => (s.peer.events.some((e) => e.type === "payment_intent.succeeded" && e.object.id === intent?.id) ? true : undefined), "the event");
    await new Promise((r) => setTimeout(r, 300));
    const orders = await ordersOf(checkout.id);
    expect(orders.map((o) => o.status)).toEqual(["paid"]);
    const payments = (await s.sdk.payments.list({ checkoutId: checkout.id })).result.items;
    expect(payments).toMatchObject([{ status: "succeeded", amount: 2500, methodMetadata: { brand: "visa", last4: "4242" } }]);
  });

  it("shows Stripe's decline message and charges a retried confirm once", async () => {
    const product = await createProduct(sandboxSeller, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const token = await confirmationToken(s.peer, STRIPE_CARDS.insufficient);
    const email = uniqueBuyer("stripe-declined");
    const first = await confirm(checkout.clientSecret, token, { customer_email: email });
    expect(first.status).toBe(400);
    expect(first.body).toEqual({ error: "PaymentError", detail: "Your card has insufficient funds.", code: "insufficient_funds" });
    const again = await confirm(checkout.clientSecret, token, { customer_email: email });
    expect(again.body.detail).toBe("Your card has insufficient funds.");
    expect(intentsOf(checkout.id)).toHaveLength(1);
    // another card pays the same checkout
    const ok = await confirm(checkout.clientSecret, await confirmationToken(s.peer, STRIPE_CARDS.visa));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await ordersOf(checkout.id)).length).toBe(1);
  });

  it("starts a subscription with a trial through a SetupIntent: nothing charged, the card saved off-session on the customer", async () => {
    const product = await createProduct(sandboxSeller, "trial");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const res = await confirm(checkout.clientSecret, await confirmationToken(s.peer, STRIPE_CARDS.visa, "off_session"));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [setup, ...more] = intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(setup).toMatchObject({ object: "setup_intent", status: "succeeded", usage: "off_session" });
    const pm = s.peer.payments.paymentMethods.get(setup?.payment_method ?? "");
    expect(pm?.customer).toBe(setup?.customer);
    const [sub] = (await s.sdk.subscriptions.list({ productId: product.id })).result.items;
    expect(sub?.status).toBe("trialing");
  });

  it("runs 3-D Secure: the confirm answers the intent's client secret, the checkout completes when Stripe says it succeeded", async () => {
    const product = await createProduct(sandboxSeller, "monthly");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const token = await confirmationToken(s.peer, STRIPE_CARDS.threeDS, "off_session");
    const res = await confirm(checkout.clientSecret, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const metadata = res.body.payment_processor_metadata as Record<string, string>;
    expect(res.body.status).toBe("confirmed");
    expect(metadata).toMatchObject({ intent_status: "requires_action", publishable_key: STRIPE_KEYS.publishable });
    expect(metadata.intent_client_secret).toMatch(/^pi_.*_secret_/);
    expect(await ordersOf(checkout.id)).toEqual([]);
    // the same confirm again (a lost answer): the same answer, no second intent
    const again = await confirm(checkout.clientSecret, token, { customer_email: res.body.customer_email });
    expect(intentsOf(checkout.id)).toHaveLength(1);
    expect([200, 403]).toContain(again.status);

    const outcome = await authenticate(s.peer, String(metadata.intent_id), String(metadata.intent_client_secret));
    expect(outcome.status).toBe("succeeded");
    const done = await until(async () => {
      const c = await s.sdk.checkouts.get({ id: checkout.id });
      return c.status === "succeeded" ? c : undefined;
    }, "the checkout to succeed");
    expect(done.paymentProcessorMetadata).toMatchObject({ intent_status: "succeeded" });
    expect((await ordersOf(checkout.id)).map((o) => o.status)).toEqual(["paid"]);
    // a redelivery of the event (another event id, same intent) makes nothing more
    const endpoint = [...s.peer.endpoints.values()][0];
    if (!endpoint) throw new Error("no endpoint");
    const intent = intentsOf(checkout.id)[0];
    await s.peer.deliver({ ...endpoint, url: s.peer.rewriteUrl(endpoint.url) }, { type: "payment_intent.succeeded", data: { object: { id: intent?.id } } });
    expect((await ordersOf(checkout.id)).length).toBe(1);
    expect((await s.sdk.subscriptions.list({ productId: product.id })).result.items.map((x) => x.status)).toEqual(["active"]);
  });

  it("opens the checkout again when the customer fails 3-D Secure", async () => {
    const product = await createProduct(sandboxSeller, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const res = await confirm(checkout.clientSecret, await confirmationToken(s.peer, STRIPE_CARDS.authAlways));
    const metadata = res.body.payment_processor_metadata as Record<string, string>;
    await authenticate(s.peer, String(metadata.intent_id), String(metadata.intent_client_secret), "fail");
    await until(async () => ((await s.sdk.checkouts.get({ id: checkout.id })).status === "open" ? true : undefined), "the checkout to open again");
    const ok = await confirm(checkout.clientSecret, await confirmationToken(s.peer, STRIPE_CARDS.visa));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await ordersOf(checkout.id)).length).toBe(1);
  });

  it("renewal declined off-session → past due and the dunning email → a new card from the portal (SetupIntent) pays the order", async () => {
    const product = await createProduct(sandboxSeller, "trial");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const email = uniqueBuyer("stripe-dunning");
    const res = await confirm(checkout.clientSecret, await confirmationToken(s.peer, STRIPE_CARDS.chargesFail, "off_session"), { customer_email: email });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [sub] = (await s.sdk.subscriptions.list({ productId: product.id })).result.items;
    if (!sub) throw new Error("no subscription");
    const renewed = await renew(sub.id, sub.currentPeriodStart);
    expect(renewed.status).toBe("past_due");
    const intent = [...s.peer.payments.intents.values()].find((i) => i.metadata.subscription_id === sub.id && i.object === "payment_intent");
    expect(intent).toMatchObject({ status: "requires_payment_method", last_payment_error: { decline_code: "generic_decline" } });
    await s.server.mailbox.waitFor(email, /Payment failed/, 10_000);

    const order = await pendingOrderOf(sub.id);
    const portal = await portalToken(sub.customerId);
    // a new card through the Payment Element: a SetupIntent on the customer's Stripe customer, then the order paid with
    // it
    const paid = await portalCall(portal, "POST", `/v1/customer-portal/orders/${order}/confirm-payment`, { confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa) });
    expect(paid.body, JSON.stringify(paid.body)).toMatchObject({ status: "succeeded" });
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    const methods = await portalCall(portal, "GET", "/v1/customer-portal/customers/me/payment-methods");
    const items = methods.body.items as Array<{ id: string; is_default: boolean; method_metadata: { last4: string } }>;
    expect(items.find((m) => m.is_default)?.method_metadata.last4).toBe("4242");
    // the failing card is removed: detached in Stripe too
    const failing = items.find((m) => m.method_metadata.last4 === "0341");
    if (!failing) throw new Error("no failing card listed");
    const removed = await portalCall(portal, "DELETE", `/v1/customer-portal/customers/me/payment-methods/${failing.id}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(204);
    const detached = [...s.peer.payments.paymentMethods.values()].find((pm) => pm.card?.last4 === "0341" && pm.id === intent?.payment_method);
    expect(detached?.customer).toBeNull();

    // the renewal order has no checkout: its refund goes to Stripe with the PaymentIntent the portal paid it with
    const paidOrder = await s.sdk.orders.get({ id: order });
    const refund = await s.sdk.refunds.create({ orderId: order, reason: "customer_request", amount: paidOrder.netAmount });
    expect(refund.status).toBe("succeeded");
    expect(s.peer.requests.some((r) => r.path === "/v1/refunds" && r.idempotencyKey === `till-refund-${refund.id}`)).toBe(true);
  });

  it("an off-session renewal needing authentication: past due, then the customer authenticates from the portal and the order is paid", async () => {
    const product = await createProduct(sandboxSeller, "trial");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const email = uniqueBuyer("stripe-sca");
    const res = await confirm(checkout.clientSecret, await confirmationToken(s.peer, STRIPE_CARDS.authAlways, "off_session"), { customer_email: email });
    // saving the card asks for 3-D Secure already
    const metadata = res.body.payment_processor_metadata as Record<string, string>;
    expect(metadata).toMatchObject({ intent_status: "requires_action", intent_kind: "setup" });
    await authenticate(s.peer, String(metadata.intent_id), String(metadata.intent_client_secret));
    await until(async () => ((await s.sdk.checkouts.get({ id: checkout.id })).status === "succeeded" ? true : undefined), "the trial to start");
    const [sub] = (await s.sdk.subscriptions.list({ productId: product.id })).result.items;
    if (!sub) throw new Error("no subscription");
    expect((await renew(sub.id, sub.currentPeriodStart)).status).toBe("past_due");
    const payments = (await s.sdk.payments.list({})).result.items.filter((p) => p.orderId === undefined || p.status === "failed");
    expect(payments.some((p) => p.declineReason === "authentication_required")).toBe(true);
    await s.server.mailbox.waitFor(email, /Payment failed/, 10_000);

    const order = await pendingOrderOf(sub.id);
    const portal = await portalToken(sub.customerId);
    const retry = await portalCall(portal, "POST", `/v1/customer-portal/orders/${order}/confirm-payment`, {});
    expect(retry.body).toMatchObject({ status: "requires_action", error: null });
    const clientSecret = String(retry.body.client_secret);
    await authenticate(s.peer, clientSecret.split("_secret_")[0] ?? "", clientSecret);
    await until(async () => ((await s.sdk.subscriptions.get({ id: sub.id })).status === "active" ? true : undefined), "the subscription to be active");
    const status = await portalCall(portal, "GET", `/v1/customer-portal/orders/${order}/payment-status`);
    expect(status.body).toMatchObject({ status: "succeeded" });
  });

  it("sends webhooks both SDKs validate", async () => {
    const hits = await receiver.until((all) => (all.length >= 6 ? all : undefined));
    for (const h of hits) {
      validateEvent(h.body, h.headers, endpointSecret);
      validateEvent049(h.body, h.headers, endpointSecret);
    }
  });
});
