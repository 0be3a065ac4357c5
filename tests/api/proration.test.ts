// Proration and customer balance through @polar-sh/sdk 0.47.1 and 0.49.0: a product or seat
// change mid-period billed now (`invoice`: an order with billing_reason subscription_update, charged through the
// test processor); a downgrade's credit going to the customer's balance and paying the next orders
// (applied_balance_amount, due_amount); tax on the proration lines; and the change's order webhooks accepted by
// both SDKs' validateEvent. Money to the minor unit. Carried to the next renewal's order (`prorate`) and the
// organization's behavior: proration-behavior.test.ts.
import { asc, eq } from "drizzle-orm";
import { Polar } from "@polar-sh/sdk";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { describe, expect, it } from "vitest";
import { customerBalanceEntry, orderDunning, subscription, subscriptionProration } from "../../server/db/schema/index.js";
import { prorationLines } from "../../server/billing/subscriptions/proration.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller } from "../helpers/seller.js";
import { DAY, expected, prorationFixture } from "./proration-fixtures.js";

const fx = prorationFixture();

describe("prorationLines", () => {
  it("credits the unused share of the old amount and charges the new one's, by the second, each rounded half away from zero", () => {
    const periodStart = new Date("2026-01-01T00:00:00Z");
    const periodEnd = new Date("2026-01-31T00:00:00Z"); // 2,592,000 s
    const at = (iso: string) => ({ periodStart, periodEnd, now: new Date(iso), oldTerms: { product: "A", seats: null }, newTerms: { product: "B", seats: null }, oldPriceId: null, newPriceId: null });
    expect(prorationLines({ ...at("2026-01-11T00:00:00Z"), oldAmount: 1000, newAmount: 4000 }).map((l) => l.amount)).toEqual([-667, 2667]);
    // 1 s left of 2,592,000: 999 × 1/2,592,000 rounds to 0, so no credit line; 1,296,001 × 1/2,592,000 = 0.5000004 → 1
    expect(prorationLines({ ...at("2026-01-30T23:59:59Z"), oldAmount: 999, newAmount: 1_296_001 }).map((l) => l.amount)).toEqual([1]);
    // exactly half: 1 × ½ = 0.5 → 1 (half away from zero), the credit −1
    expect(prorationLines({ ...at("2026-01-16T00:00:00Z"), oldAmount: 1, newAmount: 3 }).map((l) => l.amount)).toEqual([-1, 2]);
    // fractions of a second do not count: 0.9 s left is 0 s
    expect(prorationLines({ ...at("2026-01-30T23:59:59.100Z"), oldAmount: 1000, newAmount: 4000 })).toEqual([]);
    // nothing left, or nothing changes
    expect(prorationLines({ ...at("2026-02-01T00:00:00Z"), oldAmount: 1000, newAmount: 4000 })).toEqual([]);
    expect(prorationLines({ ...at("2026-01-11T00:00:00Z"), oldAmount: 1000, newAmount: 1000 })).toEqual([]);
  });
});

describe("proration_behavior invoice", () => {
  it("an upgrade bills the prorated difference now: a paid subscription_update order with proration lines", async () => {
    const sub = await fx.subscribe(fx.basic);
    const period = await fx.midPeriod(sub.id, 10);
    const changed = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.pro.id, prorationBehavior: "invoice" } });
    expect(changed).toMatchObject({ productId: fx.pro.id, amount: 4000, status: "active" });
    const orders = await fx.ordersOf(sub.id);
    expect(orders.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_update"]);
    const update = orders[1]!;
    const credit = expected(1000, period, update.createdAt);
    const charge = expected(4000, period, update.createdAt);
    expect([credit, charge]).toEqual([667, 2667]);
    expect(update).toMatchObject({
      status: "paid",
      paid: true,
      subtotalAmount: 2000,
      discountAmount: 0,
      netAmount: 2000,
      taxAmount: 0,
      totalAmount: 2000,
      appliedBalanceAmount: 0,
      dueAmount: 2000,
      productId: fx.pro.id,
      subscriptionId: sub.id,
    });
    expect(update.items.map((i) => ({ label: i.label, amount: i.amount, proration: i.proration }))).toEqual([
      { label: "Unused time on Basic", amount: -667, proration: true },
      { label: "Remaining time on Pro", amount: 2667, proration: true },
    ]);
    // nothing waits for the renewal, and the renewal bills the new amount only
    expect(await fx.db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id))).toEqual([]);
    await fx.renew(sub.id);
    const cycle = (await fx.ordersOf(sub.id))[2]!;
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", subtotalAmount: 4000, totalAmount: 4000, appliedBalanceAmount: 0, dueAmount: 4000 });
    expect(cycle.items.map((i) => i.proration)).toEqual([false]);
  });

  it("a downgrade credits the customer's balance, which pays the next renewals until it is spent", async () => {
    const sub = await fx.subscribe(fx.pro);
    await fx.midPeriod(sub.id, 15);
    await fx.seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.basic.id, prorationBehavior: "invoice" } });
    const update = (await fx.ordersOf(sub.id))[1]!;
    // −2000 for half a Pro period, +500 for half a Basic one
    expect(update.items.map((i) => i.amount)).toEqual([-2000, 500]);
    expect(update).toMatchObject({
      billingReason: "subscription_update",
      status: "paid",
      subtotalAmount: -1500,
      totalAmount: -1500,
      appliedBalanceAmount: 1500,
      dueAmount: 0,
    });
    expect(await fx.balanceOf(sub.customerId)).toBe(1500);
    // first renewal: 1000 paid entirely from the balance
    await fx.renew(sub.id);
    const first = (await fx.ordersOf(sub.id))[2]!;
    expect(first).toMatchObject({ billingReason: "subscription_cycle", status: "paid", totalAmount: 1000, appliedBalanceAmount: -1000, dueAmount: 0 });
    expect(await fx.balanceOf(sub.customerId)).toBe(500);
    // second: 500 from the balance, 500 charged
    await fx.renew(sub.id);
    const second = (await fx.ordersOf(sub.id))[3]!;
    expect(second).toMatchObject({ status: "paid", totalAmount: 1000, appliedBalanceAmount: -500, dueAmount: 500 });
    expect(await fx.balanceOf(sub.customerId)).toBe(0);
    // third: nothing left
    await fx.renew(sub.id);
    expect((await fx.ordersOf(sub.id))[4]).toMatchObject({ totalAmount: 1000, appliedBalanceAmount: 0, dueAmount: 1000 });
    // the ledger: the credit, then each use, naming its order
    const ledger = await fx.db()
      .select()
      .from(customerBalanceEntry)
      .where(eq(customerBalanceEntry.customerId, sub.customerId))
      .orderBy(asc(customerBalanceEntry.createdAt));
    expect(ledger.map((e) => [e.amount, e.reason, e.orderId, e.currency])).toEqual([
      [1500, "proration_credit", update.id, "usd"],
      [-1000, "order_applied", first.id, "usd"],
      [-500, "order_applied", second.id, "usd"],
    ]);
  });

  it("the balance pays a returning customer's checkout orders too, before the card", async () => {
    const sub = await fx.subscribe(fx.pro);
    await fx.midPeriod(sub.id, 15);
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.basic.id, prorationBehavior: "invoice" } });
    expect(await fx.balanceOf(sub.customerId)).toBe(1500);
    const { email } = await fx.seller.sdk.customers.get({ id: sub.customerId });
    const buy = async (product: Product) => {
      const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id], customerId: sub.customerId });
      await pay(fx.server, checkout, { customerEmail: email });
      const [order] = (await fx.seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
      if (!order) throw new Error("no order");
      return order;
    };
    // 1000 paid whole by the balance, then 500 of 2500
    const small = await buy(await fx.seller.sdk.products.create({ name: "Add-on", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] }));
    expect(small).toMatchObject({ billingReason: "purchase", status: "paid", totalAmount: 1000, appliedBalanceAmount: -1000, dueAmount: 0, customerId: sub.customerId });
    expect(await fx.balanceOf(sub.customerId)).toBe(500);
    const large = await buy(await createProduct(fx.seller, "fixed"));
    expect(large).toMatchObject({ status: "paid", totalAmount: 2500, appliedBalanceAmount: -500, dueAmount: 2000 });
    expect(await fx.balanceOf(sub.customerId)).toBe(0);
    // nothing left: the next one is charged whole
    const third = await buy(await createProduct(fx.seller, "fixed"));
    expect(third).toMatchObject({ totalAmount: 2500, appliedBalanceAmount: 0, dueAmount: 2500 });
    const ledger = await fx.db().select().from(customerBalanceEntry).where(eq(customerBalanceEntry.customerId, sub.customerId)).orderBy(asc(customerBalanceEntry.createdAt));
    expect(ledger.map((e) => [e.amount, e.reason, e.orderId])).toEqual([
      [1500, "proration_credit", expect.any(String)],
      [-1000, "order_applied", small.id],
      [-500, "order_applied", large.id],
    ]);
    // a new customer has no balance: its checkout is charged whole
    const fresh = await fx.seller.sdk.checkouts.create({ products: [fx.basic.id] });
    await pay(fx.server, fresh, { customerEmail: uniqueBuyer("proration-fresh") });
    expect((await fx.seller.sdk.orders.list({ checkoutId: fresh.id })).result.items[0]).toMatchObject({ totalAmount: 1000, appliedBalanceAmount: 0, dueAmount: 1000 });
  });

  it("a seat change bills the seats' difference for the rest of the period", async () => {
    const seats = await createProduct(fx.seller, "seats");
    const sub = await fx.subscribe(seats, fx.seller, { seats: 3 });
    await fx.midPeriod(sub.id, 15);
    // 3 × 1000 → 6 × 800
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { seats: 6, prorationBehavior: "invoice" } });
    const update = (await fx.ordersOf(sub.id))[1]!;
    expect(update.items.map((i) => ({ label: i.label, amount: i.amount }))).toEqual([
      { label: "Unused time on 3 seats", amount: -1500 },
      { label: "Remaining time on 6 seats", amount: 2400 },
    ]);
    expect(update).toMatchObject({ billingReason: "subscription_update", status: "paid", totalAmount: 900, dueAmount: 900 });
  });

  it("taxes each proration line (FR 20%, exclusive), the credit line's tax negative", async () => {
    const s = await createSeller(fx.server, "proration-tax");
    await fx.raw("PATCH", `/v1/organizations/${s.organizationId}`, { country: "FR", tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false } }, s);
    const a = await s.sdk.products.create({ name: "Small", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "eur" }] });
    const b = await s.sdk.products.create({ name: "Large", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "eur" }] });
    const sub = await fx.subscribe(a, s);
    await fx.midPeriod(sub.id, 10);
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: b.id, prorationBehavior: "invoice" } });
    const update = (await fx.ordersOf(sub.id, s))[1]!;
    // −667 × 20% = −133.4 → −133; 2667 × 20% = 533.4 → 533
    expect(update.items.map((i) => [i.amount, i.taxAmount])).toEqual([
      [-667, -133],
      [2667, 533],
    ]);
    expect(update).toMatchObject({ subtotalAmount: 2000, netAmount: 2000, taxAmount: 400, totalAmount: 2400, dueAmount: 2400, currency: "eur" });
  });
});

describe("what is not billed now, or not paid", () => {
  it("a declined charge leaves the subscription_update order pending and the subscription past_due; its dunning is scheduled, the customer pays it in the portal", async () => {
    const trial = await createProduct(fx.seller, "trial", { name: "Trial basic" });
    const checkout = await fx.seller.sdk.checkouts.create({ products: [trial.id] });
    // Stripe's test card that can be saved but whose charges fail
    const email = uniqueBuyer("proration-declined");
    await pay(fx.server, checkout, { customerEmail: email }, "4000 0000 0000 0341");
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: trial.id, limit: 100 })).result.items;
    if (!sub) throw new Error("no subscription");
    // the trial is over: a paid period half gone
    await fx.db().update(subscription).set({ status: "active", trialStart: null, trialEnd: null }).where(eq(subscription.id, sub.id));
    await fx.midPeriod(sub.id, 15);
    // a plan with a benefit: its grant is not cycled when the change's order is paid (no period starts)
    const perk = await fx.seller.sdk.benefits.create({ type: "custom", description: "Pro perk", properties: {} });
    const proPerk = await fx.seller.sdk.products.create({ name: "Pro", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "usd" }] });
    await fx.seller.sdk.products.updateBenefits({ id: proPerk.id, productBenefitsUpdate: { benefits: [perk.id] } });
    const changed = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: proPerk.id, prorationBehavior: "invoice" } });
    // the change stands; the subscription is past due until the order is paid (Stripe's allow_incomplete)
    expect(changed).toMatchObject({ productId: proPerk.id, amount: 4000, status: "past_due" });
    const update = (await fx.ordersOf(sub.id)).at(-1)!;
    // −600 for half of 1200, +2000 for half of 4000
    expect(update).toMatchObject({ billingReason: "subscription_update", status: "pending", paid: false, totalAmount: 1400, dueAmount: 1400 });
    // the attempt is a payment of the order, charged to the customer's default card
    const declined = (await fx.seller.sdk.payments.list({ orderId: update.id })).result.items;
    expect(declined).toMatchObject([{ status: "failed", amount: 1400, declineReason: "card_declined", orderId: update.id }]);
    // SDK 0.49.0 reads it too (no Polar trigger names a plan change: null)
    expect((await fx.seller.sdk049.payments.list({ orderId: update.id })).result.items).toMatchObject([{ status: "failed", trigger: null }]);
    // its dunning is scheduled as a failed renewal's (the first retry 3 days later)
    const [dun] = await fx.db().select().from(orderDunning).where(eq(orderDunning.orderId, update.id));
    expect(dun).toMatchObject({ subscriptionId: sub.id, attempts: 1 });
    expect(dun!.nextAttemptAt!.getTime() - Date.now()).toBeGreaterThan(3 * DAY - 60_000);
    expect(await fx.eventTypesOf(sub.id)).toContain("subscription.past_due");
    // and the customer gets the past-due email, as for a failed renewal
    await fx.server.worker.start();
    try {
      await fx.server.mailbox.waitFor(email, /Payment failed/, 15_000);
    } finally {
      await fx.server.worker.stop();
    }

    // the customer pays it from the portal with a new card
    const session = (await fx.seller.sdk.customerSessions.create({ customerId: sub.customerId })).token;
    const portal = new Polar({ serverURL: fx.server.url });
    expect(await portal.customerPortal.orders.getPaymentStatus({ customerSession: session }, { id: update.id })).toEqual({ status: "failed", error: "Your card was declined." });
    const card = await rawRequest(fx.server.url, session, "POST", "/v1/customer-portal/customers/me/payment-methods/test-card", {
      number: "4242 4242 4242 4242",
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      cvc: "123",
    });
    const ok = await portal.customerPortal.orders.confirmRetryPayment(
      { customerSession: session },
      { id: update.id, customerOrderConfirmPayment: { confirmationTokenId: String(card.body.confirmation_token_id) } },
    );
    expect(ok).toMatchObject({ status: "succeeded" });
    expect(await fx.seller.sdk.orders.get({ id: update.id })).toMatchObject({ status: "paid", paid: true });
    expect((await fx.seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    const attempts = (await fx.seller.sdk.payments.list({ orderId: update.id, sorting: ["created_at"] })).result.items;
    expect(attempts.map((p) => p.status)).toEqual(["failed", "succeeded"]);
    // no period started: the paid plan change cycles no grant (its grant was made at the change)
    const types = await fx.eventTypesOf(sub.id);
    expect(types).toContain("benefit_grant.created");
    expect(types).not.toContain("benefit_grant.cycled");
  });

  it("a trialing subscription's change bills nothing (no paid period to prorate)", async () => {
    const trial = await createProduct(fx.seller, "trial");
    const sub = await fx.subscribe(trial);
    expect(sub.status).toBe("trialing");
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.pro.id, prorationBehavior: "invoice" } });
    expect((await fx.ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create"]);
    expect(await fx.db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id))).toEqual([]);
  });

  it("a carried credit larger than the renewal goes to the balance (applied_balance_amount positive, due 0)", async () => {
    const sub = await fx.subscribe(fx.pro);
    await fx.midPeriod(sub.id, 3);
    // 27 of 30 days left: −3600 + 900 carried; the renewal: 1000 − 2700 = −1700
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.basic.id, prorationBehavior: "prorate" } });
    await fx.renew(sub.id);
    const cycle = (await fx.ordersOf(sub.id))[1]!;
    expect(cycle.items.map((i) => i.amount)).toEqual([1000, -3600, 900]);
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", status: "paid", totalAmount: -1700, appliedBalanceAmount: 1700, dueAmount: 0 });
    expect(await fx.balanceOf(sub.customerId)).toBe(1700);
  });
});

describe("webhooks of a plan change billed now", () => {
  it("delivers order.created and order.paid of the subscription_update order (a credit one too), valid for both SDKs", async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const s = await createSeller(fx.server, "proration-hooks");
      const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/p`, format: "raw", events: ["order.created", "order.paid"] });
      const a = await s.sdk.products.create({ name: "Plan A", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
      const b = await s.sdk.products.create({ name: "Plan B", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "usd" }] });
      const sub = await fx.subscribe(a, s);
      await fx.midPeriod(sub.id, 15);
      await fx.server.worker.start();
      await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: b.id, prorationBehavior: "invoice" } });
      await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: a.id, prorationBehavior: "invoice" } });
      const hits = await receiver.until((all) => {
        const parsed = all.map((h) => ({ h, body: JSON.parse(h.body) as { type: string; data: Record<string, unknown> } }));
        const updates = parsed.filter((p) => p.body.data.billing_reason === "subscription_update");
        return updates.length === 4 ? updates : undefined;
      });
      for (const { h, body } of hits) {
        const event = validateEvent(h.body, h.headers, endpoint.secret);
        validateEvent049(h.body, h.headers, endpoint.secret);
        expect(event.type).toBe(body.type);
      }
      const totals = hits.filter((p) => p.body.type === "order.paid").map((p) => [p.body.data.total_amount, p.body.data.applied_balance_amount, p.body.data.due_amount]);
      expect(totals).toHaveLength(2);
      expect(totals).toEqual(expect.arrayContaining([[1500, 0, 1500]]));
      // the way back: −2000 (B's unused half, less the rounding of the second that passed) + 500
      const back = totals.find((t) => Number(t[0]) < 0);
      expect(back?.[2]).toBe(0);
      expect(Number(back?.[1])).toBe(-Number(back?.[0]));
    } finally {
      await fx.server.worker.stop();
      await receiver.stop();
    }
  });
});
