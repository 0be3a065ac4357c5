// Dunning: a failed renewal charge leaves the order pending (due_amount) and the subscription
// past_due, with subscription.past_due and the past-due email (portal link); the schedule (runDunning, as the
// worker's schedules run it, here with the clock it is handed) charges again 3, 5 and 7 days after each
// failure; the last failure ends the subscription as the organization chose (canceled, or unpaid) with its
// benefits revoked; a retry that succeeds pays the order and makes the subscription active again. The
// organization's `dunning_settings` (till's extension of PATCH /v1/organizations), the charge attempts through
// payments.list/get with their decline reasons (both SDKs), the portal's getPaymentStatus / confirmRetryPayment,
// tenancy, and the dunning webhooks accepted by both SDKs' validateEvent. The portal retry's 404/409/422/429:
// dunning-portal.test.ts.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { describe, expect, it } from "vitest";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller } from "../helpers/seller.js";
import { DAY, dunningFixture } from "./dunning-fixtures.js";

const fx = dunningFixture();

describe("dunning settings", () => {
  it("default to retries after 3, 5 and 7 days and cancel; are set, checked and reset over PATCH /v1/organizations", async () => {
    const s = await createSeller(fx.server, "dunning-settings");
    const got = await fx.raw(s.token, "GET", `/v1/organizations/${s.organizationId}`);
    expect(got.body.dunning_settings).toEqual({ retry_intervals_days: [3, 5, 7], final_action: "cancel" });
    expect(await fx.setDunning(s, { retry_intervals_days: [1, 2], final_action: "unpaid" })).toEqual({ retry_intervals_days: [1, 2], final_action: "unpaid" });
    // a partial change keeps the rest
    expect(await fx.setDunning(s, { final_action: "cancel" })).toEqual({ retry_intervals_days: [1, 2], final_action: "cancel" });
    const bad = await fx.raw(s.token, "PATCH", `/v1/organizations/${s.organizationId}`, { dunning_settings: { retry_intervals_days: [0, 1.5], final_action: "pause" } });
    expect(bad.status).toBe(422);
    const locs = (bad.body.detail as Array<{ loc: unknown[] }>).map((d) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.dunning_settings.retry_intervals_days.0", "body.dunning_settings.final_action"]));
    expect(await fx.setDunning(s, null)).toEqual({ retry_intervals_days: [3, 5, 7], final_action: "cancel" });
    // the SDKs read the organization as before (the extension is ignored)
    expect((await s.sdk.organizations.get({ id: s.organizationId })).id).toBe(s.organizationId);
    expect((await s.sdk049.organizations.get({ id: s.organizationId })).id).toBe(s.organizationId);
  });
});

describe("a failed renewal", () => {
  it("goes past_due with a pending order, the past-due email, retries after 3, 5 and 7 days, then is canceled with its benefits revoked", async () => {
    const product = await fx.trialProduct(fx.seller);
    const { sub, email } = await fx.subscribe(fx.seller, product, "4000 0000 0000 0341");
    expect(await fx.grantedCount(sub.id)).toBe(1);
    await fx.server.worker.start();
    try {
      const renewed = await fx.renew(fx.seller, sub.id);
      expect(renewed.status).toBe("past_due");
      const order = await fx.pendingOrder(fx.seller, sub.id);
      expect(order).toMatchObject({ billingReason: "subscription_cycle", status: "pending", paid: false, totalAmount: 1200, dueAmount: 1200 });
      const mail = await fx.server.mailbox.waitFor(email, /Payment failed/);
      expect(mail.links).toContain(`${fx.server.url}/portal?organization=${fx.seller.slug}`);
    } finally {
      await fx.server.worker.stop();
    }
    const order = await fx.pendingOrder(fx.seller, sub.id);
    expect(await fx.eventTypes(sub.id)).toContain("subscription.past_due");
    const first = await fx.dunningRow(order.id);
    expect(first?.attempts).toBe(1);
    const failedAt = first?.createdAt.getTime() ?? 0;
    expect(first?.nextAttemptAt?.getTime()).toBe(failedAt + 3 * DAY);

    // nothing is due before the third day
    expect(await fx.dunningAt(new Date(failedAt + 2 * DAY))).toBe(0);
    const t1 = new Date(failedAt + 3 * DAY + 1000);
    expect(await fx.dunningAt(t1)).toBe(1);
    expect((await fx.dunningRow(order.id))?.nextAttemptAt?.getTime()).toBe(t1.getTime() + 5 * DAY);
    const t2 = new Date(t1.getTime() + 5 * DAY);
    expect(await fx.dunningAt(t2)).toBe(1);
    expect((await fx.dunningRow(order.id))?.nextAttemptAt?.getTime()).toBe(t2.getTime() + 7 * DAY);
    expect((await fx.seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("past_due");
    expect(await fx.grantedCount(sub.id)).toBe(1);
    const t3 = new Date(t2.getTime() + 7 * DAY);
    expect(await fx.dunningAt(t3)).toBe(1);
    // the last retry failed: canceled, ended, benefits revoked, no more retries
    const ended = await fx.seller.sdk.subscriptions.get({ id: sub.id });
    expect(ended).toMatchObject({ status: "canceled" });
    expect(ended.endedAt?.getTime()).toBe(t3.getTime());
    expect(await fx.grantedCount(sub.id)).toBe(0);
    expect((await fx.dunningRow(order.id))?.nextAttemptAt).toBeNull();
    expect(await fx.dunningAt(new Date(t3.getTime() + 30 * DAY))).toBe(0);
    expect((await fx.pendingOrder(fx.seller, sub.id)).status).toBe("pending");
    const types = await fx.eventTypes(sub.id);
    expect(types).toEqual(expect.arrayContaining(["subscription.canceled", "subscription.revoked", "benefit_grant.revoked"]));
    // the end of dunning reaches the customer: the revocation email (subscription.revoked)
    await fx.server.worker.start();
    try {
      const ended = await fx.server.mailbox.waitFor(email, /subscription has ended/, 15_000);
      expect(ended.subject).toContain(product.name);
    } finally {
      await fx.server.worker.stop();
    }

    // every charge attempt: the renewal's and three retries, declined, through both SDKs
    const payments = (await fx.seller.sdk.payments.list({ orderId: order.id, sorting: ["created_at"] })).result;
    expect(payments.items).toHaveLength(4);
    for (const p of payments.items) {
      expect(p).toMatchObject({ status: "failed", amount: 1200, currency: "usd", method: "card", declineReason: "card_declined", orderId: order.id });
      expect(p).toMatchObject({ methodMetadata: { brand: "visa", last4: "0341" } });
    }
    const one = payments.items[0];
    if (!one) throw new Error("no payment");
    expect(await fx.seller.sdk049.payments.get({ id: one.id })).toMatchObject({ id: one.id, trigger: "subscription_cycle" });
    expect((await fx.seller.sdk049.payments.list({ status: "failed", orderId: order.id })).result.pagination.totalCount).toBe(4);
    expect((await fx.seller.sdk.payments.list({ status: "succeeded", orderId: order.id })).result.items).toHaveLength(0);
    // another organization sees none of it
    expect((await fx.raw(fx.other.token, "GET", `/v1/payments/${one.id}`)).status).toBe(404);
    expect((await fx.other.sdk.payments.list({ orderId: order.id })).result.items).toHaveLength(0);
  });

  it("insufficient funds (4000 0000 0000 9995 attaches, its charges fail): a retry after a new default card pays the order and reactivates", async () => {
    const product = await fx.trialProduct(fx.seller);
    const { sub, session } = await fx.subscribe(fx.seller, product, "4000 0000 0000 9995");
    expect((await fx.renew(fx.seller, sub.id)).status).toBe("past_due");
    const order = await fx.pendingOrder(fx.seller, sub.id);
    const [declined] = (await fx.seller.sdk.payments.list({ orderId: order.id })).result.items;
    expect(declined).toMatchObject({ status: "failed", declineReason: "insufficient_funds", declineMessage: "Your card has insufficient funds." });
    expect(await fx.portal.customerPortal.orders.getPaymentStatus({ customerSession: session }, { id: order.id })).toEqual({
      status: "failed",
      error: "Your card has insufficient funds.",
    });

    // the customer adds a working card in the portal (the default now); the schedule's retry charges it
    const token = await fx.portalCard(session, "4242 4242 4242 4242");
    await fx.portal.customerPortal.customers.addPaymentMethod(
      { customerSession: session },
      { confirmationTokenId: token, setDefault: true, returnUrl: "https://example.com/back" },
    );
    const due = (await fx.dunningRow(order.id))?.nextAttemptAt ?? new Date();
    expect(await fx.dunningAt(new Date(due.getTime() + 1000))).toBe(1);
    const paid = await fx.seller.sdk.orders.get({ id: order.id });
    expect(paid).toMatchObject({ status: "paid", paid: true });
    expect((await fx.seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    expect(await fx.grantedCount(sub.id)).toBe(1);
    const types = await fx.eventTypes(sub.id);
    expect(types.slice(-6)).toEqual(expect.arrayContaining(["order.updated", "order.paid", "subscription.updated", "subscription.active", "benefit_grant.cycled"]));
    const attempts = (await fx.seller.sdk.payments.list({ orderId: order.id, sorting: ["created_at"] })).result.items;
    expect(attempts.map((p) => [p.status, "methodMetadata" in p ? p.methodMetadata.last4 : null])).toEqual([
      ["failed", "9995"],
      ["succeeded", "4242"],
    ]);
    expect(await fx.portal049.customerPortal.orders.getPaymentStatus({ customerSession: session }, { id: order.id })).toMatchObject({ status: "succeeded" });
    // paid: nothing left to retry
    const again = await fx.raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {});
    expect(again.status).toBe(422);
    expect(again.body.error).toBe("OrderNotEligibleForRetry");
  });

  it("ends unpaid when the organization says so; the customer pays it from the portal with a new card and gets the benefits back", async () => {
    const s = await createSeller(fx.server, "dunning-unpaid");
    expect(await fx.setDunning(s, { retry_intervals_days: [1], final_action: "unpaid" })).toEqual({ retry_intervals_days: [1], final_action: "unpaid" });
    const benefit = (await s.sdk.benefits.create({ type: "custom", description: "Unpaid perk", properties: {} })).id;
    const product = await createProduct(s, "trial");
    await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit] } });
    const { sub, session, email } = await fx.subscribe(s, product, "4000 0000 0000 0341");
    expect((await fx.renew(s, sub.id)).status).toBe("past_due");
    const order = await fx.pendingOrder(s, sub.id);
    const due = (await fx.dunningRow(order.id))?.nextAttemptAt ?? new Date();
    expect(await fx.dunningAt(new Date(due.getTime() + 1000))).toBe(1);
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("unpaid");
    expect(await fx.grantedCount(sub.id)).toBe(0);
    expect(await fx.eventTypes(sub.id)).toEqual(expect.arrayContaining(["subscription.revoked", "benefit_grant.revoked"]));
    // the customer is told: the past-due email of the renewal, then the revocation email of the unpaid end
    await fx.server.worker.start();
    try {
      await fx.server.mailbox.waitFor(email, /Payment failed/, 15_000);
      const ended = await fx.server.mailbox.waitFor(email, /subscription has ended/, 15_000);
      expect(ended.subject).toContain(product.name);
    } finally {
      await fx.server.worker.stop();
    }

    // a declined manual retry with the saved card, then one with a new card (SDK 0.49.0's confirmRetryPayment)
    const declined = await fx.portal049.customerPortal.orders.confirmRetryPayment({ customerSession: session }, { id: order.id, customerOrderConfirmPayment: {} });
    expect(declined).toMatchObject({ status: "failed", error: "Your card was declined." });
    const token = await fx.portalCard(session, "4242 4242 4242 4242");
    const ok = await fx.portal.customerPortal.orders.confirmRetryPayment(
      { customerSession: session },
      { id: order.id, customerOrderConfirmPayment: { confirmationTokenId: token } },
    );
    expect(ok).toMatchObject({ status: "succeeded" });
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("paid");
    expect(await fx.grantedCount(sub.id)).toBe(1);
    const attempts = (await s.sdk.payments.list({ orderId: order.id, sorting: ["created_at"] })).result.items;
    // the schedule's retry ran on a later clock than the customer's attempts: compared as a set
    expect(attempts.map((p) => p.status).sort()).toEqual(["failed", "failed", "failed", "succeeded"]);
  });
});


describe("a checkout's charges", () => {
  it("are payments of the checkout: a declined attempt (kept after its rollback) and the charge that paid the order, through both SDKs", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id] });
    await expect(pay(fx.server, checkout, { customerEmail: uniqueBuyer("checkout-pay") }, "4000 0000 0000 0002")).rejects.toThrow(/declined/);
    await pay(fx.server, checkout, { customerEmail: uniqueBuyer("checkout-pay") }, "4242 4242 4242 4242");
    const [order] = (await fx.seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order) throw new Error("no order");
    const listed = (await fx.seller.sdk.payments.list({ checkoutId: checkout.id, sorting: ["created_at"] })).result.items;
    expect(listed).toMatchObject([
      { status: "failed", amount: 2500, currency: "usd", checkoutId: checkout.id, orderId: null, declineReason: "card_declined", declineMessage: "Your card was declined." },
      { status: "succeeded", amount: 2500, currency: "usd", checkoutId: checkout.id, orderId: order.id, declineReason: null, methodMetadata: { last4: "4242" } },
    ]);
    const listed049 = (await fx.seller.sdk049.payments.list({ checkoutId: checkout.id, status: "succeeded" })).result.items;
    expect(listed049).toMatchObject([{ orderId: order.id, trigger: "purchase" }]);
    expect(await fx.seller.sdk.payments.get({ id: listed[1]!.id })).toMatchObject({ orderId: order.id, status: "succeeded" });
  });

  it("records nothing for a trial's checkout (the card is only saved)", async () => {
    const product = await createProduct(fx.seller, "trial");
    const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id] });
    await pay(fx.server, checkout, { customerEmail: uniqueBuyer("checkout-trial") });
    expect((await fx.seller.sdk.payments.list({ checkoutId: checkout.id })).result.items).toEqual([]);
  });
});

describe("webhooks of dunning", () => {
  it("delivers subscription.past_due, subscription.canceled and subscription.revoked (no retries configured), valid for both SDKs", async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const s = await createSeller(fx.server, "dunning-hooks");
      await fx.setDunning(s, { retry_intervals_days: [] });
      const endpoint = await s.sdk.webhooks.createWebhookEndpoint({
        url: `${receiver.url}/dunning`,
        format: "raw",
        events: ["subscription.past_due", "subscription.revoked", "subscription.canceled"],
      });
      const product = await createProduct(s, "trial");
      const { sub } = await fx.subscribe(s, product, "4000 0000 0000 0341");
      await fx.server.worker.start();
      await fx.renew(s, sub.id);
      // no retries configured: the next pass ends it without charging again
      expect(await fx.dunningAt(new Date(Date.now() + 1000))).toBe(1);
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
      await fx.server.worker.stop();
      await receiver.stop();
    }
  });
});
