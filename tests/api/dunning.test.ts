// Dunning: a failed renewal charge leaves the order pending (due_amount) and the subscription
// past_due, with subscription.past_due and the past-due email (portal link); the schedule (runDunning, as the
// worker's schedules run it, here with the clock it is handed) charges again 3, 5 and 7 days after each
// failure; the last failure ends the subscription as the organization chose (canceled, or unpaid) with its
// benefits revoked; a retry that succeeds pays the order and makes the subscription active again. The
// organization's `dunning_settings` (till's extension of PATCH /v1/organizations), the charge attempts through
// payments.list/get with their decline reasons (both SDKs), the portal's getPaymentStatus / confirmRetryPayment
// with its 404/409/422/429, tenancy, and the dunning webhooks accepted by both SDKs' validateEvent.
import { and, asc, eq, sql } from "drizzle-orm";
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDunning } from "../../server/billing/dunning/service.js";
import { lockDunning } from "../../server/billing/dunning/repository.js";
import { benefitGrant, orderDunning, outbox } from "../../server/db/schema/index.js";
import { createPaymentProcessor } from "../../server/payments/index.js";
import { rawRequest } from "../helpers/api.js";
import { usingPostgres } from "../helpers/db.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const DAY = 86_400_000;
let server: TestServer;
let seller: Seller;
let other: Seller;
let perk: string;
let portal: Polar;
let portal049: Polar049;

const db = () => server.database.db;
const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);
const dunningAt = (now: Date) => runDunning({ db: db(), processor: createPaymentProcessor(), baseURL: server.url, now });

async function trialProduct(s: Seller): Promise<Product> {
  const product = await createProduct(s, "trial");
  if (s === seller) await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [perk] } });
  return product;
}

async function subscribe(s: Seller, product: Product, card: string): Promise<{ sub: Subscription; email: string; session: string }> {
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  const email = uniqueBuyer("dunning");
  await pay(server, checkout, { customerEmail: email }, card);
  const [sub] = (await s.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
  if (!sub) throw new Error("no subscription");
  const session = await s.sdk.customerSessions.create({ customerId: sub.customerId });
  return { sub, email, session: session.token };
}

/** Renews the current period now (a failing card: past_due). */
async function renew(s: Seller, id: string) {
  const { currentPeriodStart } = await s.sdk.subscriptions.get({ id });
  const res = await raw(s.token, "POST", `/v1/subscriptions/${id}/renew`, { current_period_start: currentPeriodStart.toISOString() });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function pendingOrder(s: Seller, subscriptionId: string) {
  const orders = (await s.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 100 })).result.items;
  const last = orders.at(-1);
  if (!last) throw new Error("no order");
  return last;
}

async function dunningRow(orderId: string) {
  const [row] = await db().select().from(orderDunning).where(eq(orderDunning.orderId, orderId));
  return row;
}

async function eventTypes(subscriptionId: string) {
  const rows = await db()
    .select()
    .from(outbox)
    .where(sql`${outbox.payload} ->> 'id' = ${subscriptionId} OR ${outbox.payload} ->> 'subscription_id' = ${subscriptionId}`)
    .orderBy(asc(outbox.createdAt));
  return rows.map((r) => r.type);
}

async function setDunning(s: Seller, settings: unknown) {
  const res = await raw(s.token, "PATCH", `/v1/organizations/${s.organizationId}`, { dunning_settings: settings });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.dunning_settings;
}

async function grantedCount(subscriptionId: string) {
  const rows = await db()
    .select()
    .from(benefitGrant)
    .where(and(eq(benefitGrant.subscriptionId, subscriptionId), sql`${benefitGrant.revokedAt} IS NULL`));
  return rows.length;
}

beforeAll(async () => {
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  seller = await createSeller(server, "dunning");
  other = await createSeller(server, "dunning-other");
  perk = (await seller.sdk.benefits.create({ type: "custom", description: "Dunning perk", properties: {} })).id;
  portal = new Polar({ serverURL: server.url });
  portal049 = new Polar049({ serverURL: server.url });
}, 120_000);
afterAll(async () => server?.close());

describe("dunning settings", () => {
  it("default to retries after 3, 5 and 7 days and cancel; are set, checked and reset over PATCH /v1/organizations", async () => {
    const s = await createSeller(server, "dunning-settings");
    const got = await raw(s.token, "GET", `/v1/organizations/${s.organizationId}`);
    expect(got.body.dunning_settings).toEqual({ retry_intervals_days: [3, 5, 7], final_action: "cancel" });
    expect(await setDunning(s, { retry_intervals_days: [1, 2], final_action: "unpaid" })).toEqual({ retry_intervals_days: [1, 2], final_action: "unpaid" });
    // a partial change keeps the rest
    expect(await setDunning(s, { final_action: "cancel" })).toEqual({ retry_intervals_days: [1, 2], final_action: "cancel" });
    const bad = await raw(s.token, "PATCH", `/v1/organizations/${s.organizationId}`, { dunning_settings: { retry_intervals_days: [0, 1.5], final_action: "pause" } });
    expect(bad.status).toBe(422);
    const locs = (bad.body.detail as Array<{ loc: unknown[] }>).map((d) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.dunning_settings.retry_intervals_days.0", "body.dunning_settings.final_action"]));
    expect(await setDunning(s, null)).toEqual({ retry_intervals_days: [3, 5, 7], final_action: "cancel" });
    // the SDKs read the organization as before (the extension is ignored)
    expect((await s.sdk.organizations.get({ id: s.organizationId })).id).toBe(s.organizationId);
    expect((await s.sdk049.organizations.get({ id: s.organizationId })).id).toBe(s.organizationId);
  });
});

describe("a failed renewal", () => {
  it("goes past_due with a pending order, the past-due email, retries after 3, 5 and 7 days, then is canceled with its benefits revoked", async () => {
    const product = await trialProduct(seller);
    const { sub, email } = await subscribe(seller, product, "4000 0000 0000 0341");
    expect(await grantedCount(sub.id)).toBe(1);
    await server.worker.start();
    try {
      const renewed = await renew(seller, sub.id);
      expect(renewed.status).toBe("past_due");
      const order = await pendingOrder(seller, sub.id);
      expect(order).toMatchObject({ billingReason: "subscription_cycle", status: "pending", paid: false, totalAmount: 1200, dueAmount: 1200 });
      const mail = await server.mailbox.waitFor(email, /Payment failed/);
      expect(mail.links).toContain(`${server.url}/portal?organization=${seller.slug}`);
    } finally {
      await server.worker.stop();
    }
    const order = await pendingOrder(seller, sub.id);
    expect(await eventTypes(sub.id)).toContain("subscription.past_due");
    const first = await dunningRow(order.id);
    expect(first?.attempts).toBe(1);
    const failedAt = first?.createdAt.getTime() ?? 0;
    expect(first?.nextAttemptAt?.getTime()).toBe(failedAt + 3 * DAY);

    // nothing is due before the third day
    expect(await dunningAt(new Date(failedAt + 2 * DAY))).toBe(0);
    const t1 = new Date(failedAt + 3 * DAY + 1000);
    expect(await dunningAt(t1)).toBe(1);
    expect((await dunningRow(order.id))?.nextAttemptAt?.getTime()).toBe(t1.getTime() + 5 * DAY);
    const t2 = new Date(t1.getTime() + 5 * DAY);
    expect(await dunningAt(t2)).toBe(1);
    expect((await dunningRow(order.id))?.nextAttemptAt?.getTime()).toBe(t2.getTime() + 7 * DAY);
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("past_due");
    expect(await grantedCount(sub.id)).toBe(1);
    const t3 = new Date(t2.getTime() + 7 * DAY);
    expect(await dunningAt(t3)).toBe(1);
    // the last retry failed: canceled, ended, benefits revoked, no more retries
    const ended = await seller.sdk.subscriptions.get({ id: sub.id });
    expect(ended).toMatchObject({ status: "canceled" });
    expect(ended.endedAt?.getTime()).toBe(t3.getTime());
    expect(await grantedCount(sub.id)).toBe(0);
    expect((await dunningRow(order.id))?.nextAttemptAt).toBeNull();
    expect(await dunningAt(new Date(t3.getTime() + 30 * DAY))).toBe(0);
    expect((await pendingOrder(seller, sub.id)).status).toBe("pending");
    const types = await eventTypes(sub.id);
    expect(types).toEqual(expect.arrayContaining(["subscription.canceled", "subscription.revoked", "benefit_grant.revoked"]));
    // the end of dunning reaches the customer: the revocation email (subscription.revoked)
    await server.worker.start();
    try {
      const ended = await server.mailbox.waitFor(email, /subscription has ended/, 15_000);
      expect(ended.subject).toContain(product.name);
    } finally {
      await server.worker.stop();
    }

    // every charge attempt: the renewal's and three retries, declined, through both SDKs
    const payments = (await seller.sdk.payments.list({ orderId: order.id, sorting: ["created_at"] })).result;
    expect(payments.items).toHaveLength(4);
    for (const p of payments.items) {
      expect(p).toMatchObject({ status: "failed", amount: 1200, currency: "usd", method: "card", declineReason: "card_declined", orderId: order.id });
      expect(p).toMatchObject({ methodMetadata: { brand: "visa", last4: "0341" } });
    }
    const one = payments.items[0];
    if (!one) throw new Error("no payment");
    expect(await seller.sdk049.payments.get({ id: one.id })).toMatchObject({ id: one.id, trigger: "subscription_cycle" });
    expect((await seller.sdk049.payments.list({ status: "failed", orderId: order.id })).result.pagination.totalCount).toBe(4);
    expect((await seller.sdk.payments.list({ status: "succeeded", orderId: order.id })).result.items).toHaveLength(0);
    // another organization sees none of it
    expect((await raw(other.token, "GET", `/v1/payments/${one.id}`)).status).toBe(404);
    expect((await other.sdk.payments.list({ orderId: order.id })).result.items).toHaveLength(0);
  });

  it("insufficient funds (4000 0000 0000 9995 attaches, its charges fail): a retry after a new default card pays the order and reactivates", async () => {
    const product = await trialProduct(seller);
    const { sub, session } = await subscribe(seller, product, "4000 0000 0000 9995");
    expect((await renew(seller, sub.id)).status).toBe("past_due");
    const order = await pendingOrder(seller, sub.id);
    const [declined] = (await seller.sdk.payments.list({ orderId: order.id })).result.items;
    expect(declined).toMatchObject({ status: "failed", declineReason: "insufficient_funds", declineMessage: "Your card has insufficient funds." });
    expect(await portal.customerPortal.orders.getPaymentStatus({ customerSession: session }, { id: order.id })).toEqual({
      status: "failed",
      error: "Your card has insufficient funds.",
    });

    // the customer adds a working card in the portal (the default now); the schedule's retry charges it
    const token = await portalCard(session, "4242 4242 4242 4242");
    await portal.customerPortal.customers.addPaymentMethod(
      { customerSession: session },
      { confirmationTokenId: token, setDefault: true, returnUrl: "https://example.com/back" },
    );
    const due = (await dunningRow(order.id))?.nextAttemptAt ?? new Date();
    expect(await dunningAt(new Date(due.getTime() + 1000))).toBe(1);
    const paid = await seller.sdk.orders.get({ id: order.id });
    expect(paid).toMatchObject({ status: "paid", paid: true });
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    expect(await grantedCount(sub.id)).toBe(1);
    const types = await eventTypes(sub.id);
    expect(types.slice(-6)).toEqual(expect.arrayContaining(["order.updated", "order.paid", "subscription.updated", "subscription.active", "benefit_grant.cycled"]));
    const attempts = (await seller.sdk.payments.list({ orderId: order.id, sorting: ["created_at"] })).result.items;
    expect(attempts.map((p) => [p.status, "methodMetadata" in p ? p.methodMetadata.last4 : null])).toEqual([
      ["failed", "9995"],
      ["succeeded", "4242"],
    ]);
    expect(await portal049.customerPortal.orders.getPaymentStatus({ customerSession: session }, { id: order.id })).toMatchObject({ status: "succeeded" });
    // paid: nothing left to retry
    const again = await raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {});
    expect(again.status).toBe(422);
    expect(again.body.error).toBe("OrderNotEligibleForRetry");
  });

  it("ends unpaid when the organization says so; the customer pays it from the portal with a new card and gets the benefits back", async () => {
    const s = await createSeller(server, "dunning-unpaid");
    expect(await setDunning(s, { retry_intervals_days: [1], final_action: "unpaid" })).toEqual({ retry_intervals_days: [1], final_action: "unpaid" });
    const benefit = (await s.sdk.benefits.create({ type: "custom", description: "Unpaid perk", properties: {} })).id;
    const product = await createProduct(s, "trial");
    await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit] } });
    const { sub, session, email } = await subscribe(s, product, "4000 0000 0000 0341");
    expect((await renew(s, sub.id)).status).toBe("past_due");
    const order = await pendingOrder(s, sub.id);
    const due = (await dunningRow(order.id))?.nextAttemptAt ?? new Date();
    expect(await dunningAt(new Date(due.getTime() + 1000))).toBe(1);
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("unpaid");
    expect(await grantedCount(sub.id)).toBe(0);
    expect(await eventTypes(sub.id)).toEqual(expect.arrayContaining(["subscription.revoked", "benefit_grant.revoked"]));
    // the customer is told: the past-due email of the renewal, then the revocation email of the unpaid end
    await server.worker.start();
    try {
      await server.mailbox.waitFor(email, /Payment failed/, 15_000);
      const ended = await server.mailbox.waitFor(email, /subscription has ended/, 15_000);
      expect(ended.subject).toContain(product.name);
    } finally {
      await server.worker.stop();
    }

    // a declined manual retry with the saved card, then one with a new card (SDK 0.49.0's confirmRetryPayment)
    const declined = await portal049.customerPortal.orders.confirmRetryPayment({ customerSession: session }, { id: order.id, customerOrderConfirmPayment: {} });
    expect(declined).toMatchObject({ status: "failed", error: "Your card was declined." });
    const token = await portalCard(session, "4242 4242 4242 4242");
    const ok = await portal.customerPortal.orders.confirmRetryPayment(
      { customerSession: session },
      { id: order.id, customerOrderConfirmPayment: { confirmationTokenId: token } },
    );
    expect(ok).toMatchObject({ status: "succeeded" });
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("paid");
    expect(await grantedCount(sub.id)).toBe(1);
    const attempts = (await s.sdk.payments.list({ orderId: order.id, sorting: ["created_at"] })).result.items;
    // the schedule's retry ran on a later clock than the customer's attempts: compared as a set
    expect(attempts.map((p) => p.status).sort()).toEqual(["failed", "failed", "failed", "succeeded"]);
  });
});

/** Tokenizes a card with the test processor's portal endpoint. */
async function portalCard(session: string, number: string): Promise<string> {
  const res = await raw(session, "POST", "/v1/customer-portal/customers/me/payment-methods/test-card", {
    number,
    exp_month: 12,
    exp_year: new Date().getUTCFullYear() + 3,
    cvc: "123",
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.confirmation_token_id as string;
}

describe("the portal's retry", () => {
  it("is 404 for another customer's order, waits for an attempt holding the order (409 after 5 s), 429 after five attempts", async () => {
    const product = await trialProduct(seller);
    const { sub, session } = await subscribe(seller, product, "4000 0000 0000 0341");
    await renew(seller, sub.id);
    const order = await pendingOrder(seller, sub.id);
    const stranger = await subscribe(seller, await trialProduct(seller), "4242 4242 4242 4242");
    expect((await raw(stranger.session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {})).status).toBe(404);
    expect((await raw(stranger.session, "GET", `/v1/customer-portal/orders/${order.id}/payment-status`)).status).toBe(404);
    expect((await raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, { payment_method_id: "nope" })).status).toBe(422);

    // an attempt under way (a Stripe event's settlement, the schedule's retry; here a held lock) is waited for: a
    // short one ends and the customer's attempt goes on, one held longer than REQUEST_LOCK_WAIT (5 s) answers 409 —
    // PostgreSQL only: PGlite has one connection, which the held transaction would keep from the request
    let attempts = 0;
    if (usingPostgres) {
      const hold = async (ms: number, alsoSend?: () => void) => {
        let locked = () => {};
        const isLocked = new Promise<void>((r) => (locked = r));
        const holder = db().transaction(async (tx) => {
          await lockDunning(tx, seller.organizationId, order.id);
          locked();
          await new Promise((r) => setTimeout(r, ms));
        });
        await isLocked;
        const started = Date.now();
        const sent = raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {});
        alsoSend?.();
        const answer = await sent;
        await holder;
        return { answer, waited: Date.now() - started };
      };
      const short = await hold(400);
      expect(short.answer.status, JSON.stringify(short.answer.body)).toBe(200);
      expect(short.answer.body).toMatchObject({ status: "failed", error: "Your card was declined." });
      expect(short.waited).toBeGreaterThanOrEqual(300);
      attempts++;
      // held longer: the first request waits 5 s, one sent beside it does not wait too (one request waits per order)
      let beside: Promise<{ answer: Awaited<ReturnType<typeof raw>>; at: number }> | undefined;
      const long = await hold(6_500, () => {
        const sent = Date.now();
        beside = new Promise((r) => setTimeout(r, 300)).then(async () => ({ answer: await raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {}), at: Date.now() - sent }));
      });
      const busy = { error: "PaymentAlreadyInProgress", detail: "A payment of this order is already in progress.", code: "payment_in_progress" };
      expect([long.answer.status, long.answer.body]).toEqual([409, busy]);
      expect(long.waited).toBeGreaterThanOrEqual(4_500);
      const second = await beside;
      expect([second?.answer.status, second?.answer.body]).toEqual([409, busy]);
      expect(second?.at).toBeLessThan(3_000);
    }

    for (let i = attempts; i < 5; i++) {
      const r = await raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {});
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: "failed", error: "Your card was declined." });
    }
    const limited = await raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {});
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe("ManualRetryLimitExceeded");
    // manual attempts leave the schedule alone
    expect((await dunningRow(order.id))?.attempts).toBe(1);
  });
});

describe("a checkout's charges", () => {
  it("are payments of the checkout: a declined attempt (kept after its rollback) and the charge that paid the order, through both SDKs", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await expect(pay(server, checkout, { customerEmail: uniqueBuyer("checkout-pay") }, "4000 0000 0000 0002")).rejects.toThrow(/declined/);
    await pay(server, checkout, { customerEmail: uniqueBuyer("checkout-pay") }, "4242 4242 4242 4242");
    const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order) throw new Error("no order");
    const listed = (await seller.sdk.payments.list({ checkoutId: checkout.id, sorting: ["created_at"] })).result.items;
    expect(listed).toMatchObject([
      { status: "failed", amount: 2500, currency: "usd", checkoutId: checkout.id, orderId: null, declineReason: "card_declined", declineMessage: "Your card was declined." },
      { status: "succeeded", amount: 2500, currency: "usd", checkoutId: checkout.id, orderId: order.id, declineReason: null, methodMetadata: { last4: "4242" } },
    ]);
    const listed049 = (await seller.sdk049.payments.list({ checkoutId: checkout.id, status: "succeeded" })).result.items;
    expect(listed049).toMatchObject([{ orderId: order.id, trigger: "purchase" }]);
    expect(await seller.sdk.payments.get({ id: listed[1]!.id })).toMatchObject({ orderId: order.id, status: "succeeded" });
  });

  it("records nothing for a trial's checkout (the card is only saved)", async () => {
    const product = await createProduct(seller, "trial");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerEmail: uniqueBuyer("checkout-trial") });
    expect((await seller.sdk.payments.list({ checkoutId: checkout.id })).result.items).toEqual([]);
  });
});

describe("webhooks of dunning", () => {
  it("delivers subscription.past_due, subscription.canceled and subscription.revoked (no retries configured), valid for both SDKs", async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const s = await createSeller(server, "dunning-hooks");
      await setDunning(s, { retry_intervals_days: [] });
      const endpoint = await s.sdk.webhooks.createWebhookEndpoint({
        url: `${receiver.url}/dunning`,
        format: "raw",
        events: ["subscription.past_due", "subscription.revoked", "subscription.canceled"],
      });
      const product = await createProduct(s, "trial");
      const { sub } = await subscribe(s, product, "4000 0000 0000 0341");
      await server.worker.start();
      await renew(s, sub.id);
      // no retries configured: the next pass ends it without charging again
      expect(await dunningAt(new Date(Date.now() + 1000))).toBe(1);
      const hits = await receiver.until((all) => {
        const types = new Set(all.map((h) => (JSON.parse(h.body) as { type: string }).type));
        return ["subscription.past_due", "subscription.canceled", "subscription.revoked"].every((t) => types.has(t)) ? all : undefined;
      });
      for (const h of hits) {
        const event = validateEvent(h.body, h.headers, endpoint.secret);
        validateEvent049(h.body, h.headers, endpoint.secret);
        if (event.type === "subscription.past_due") expect(event.data).toMatchObject({ id: sub.id, status: "past_due" });
        if (event.type === "subscription.revoked") expect(event.data).toMatchObject({ id: sub.id, status: "canceled" });
      }
      expect((await s.sdk.payments.list({})).result.items.map((p) => p.status)).toEqual(["failed"]);
    } finally {
      await server.worker.stop();
      await receiver.stop();
    }
  });
});
