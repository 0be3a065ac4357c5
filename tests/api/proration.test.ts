// Proration and customer balance through @polar-sh/sdk 0.47.1 and 0.49.0: a product or seat
// change mid-period billed now (`invoice`: an order with billing_reason subscription_update, charged through the
// test processor), or carried to the next renewal's order as its own lines (`prorate`); a downgrade's credit
// going to the customer's balance and paying the next orders (applied_balance_amount, due_amount); tax on the
// proration lines; and the change's order webhooks accepted by both SDKs' validateEvent. Money to the minor unit.
import { asc, eq, sql } from "drizzle-orm";
import { Polar } from "@polar-sh/sdk";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerBalanceEntry, orderDunning, outbox, subscription, subscriptionProration } from "../../server/db/schema/index.js";
import { prorationLines } from "../../server/billing/subscriptions/proration.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let basic: Product;
let pro: Product;

const DAY = 86_400_000;
const db = () => server.database.db;
const raw = (method: string, path: string, body?: unknown, s: Seller = seller) => rawRequest(server.url, s.token, method, path, body);

async function subscribe(product: Product, s: Seller = seller, extra: Record<string, unknown> = {}): Promise<Subscription> {
  const checkout = await s.sdk.checkouts.create({ products: [product.id], ...extra });
  await pay(server, checkout, { customerEmail: uniqueBuyer("proration") });
  const [sub] = (await s.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
  if (!sub) throw new Error("no subscription");
  return sub;
}

/** Puts the change `doneDays` into a period of `days` days: the period started that long ago. */
async function midPeriod(id: string, doneDays: number, days = 30) {
  const now = Date.now();
  const start = new Date(now - doneDays * DAY);
  const end = new Date(start.getTime() + days * DAY);
  await db().update(subscription).set({ currentPeriodStart: start, currentPeriodEnd: end, startedAt: start }).where(eq(subscription.id, id));
  return { start, end };
}

const ordersOf = async (subscriptionId: string, s: Seller = seller) =>
  (await s.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 100 })).result.items;

/** The customer's balance in the ledger (sum of its movements). */
async function balanceOf(customerId: string): Promise<number> {
  const [row] = await db()
    .select({ total: sql<string | null>`sum(${customerBalanceEntry.amount})` })
    .from(customerBalanceEntry)
    .where(eq(customerBalanceEntry.customerId, customerId));
  return Number(row?.total ?? 0);
}

/** The outbox's event types about the subscription (its own events and its orders' and grants'), oldest first. */
async function eventTypesOf(subscriptionId: string): Promise<string[]> {
  const rows = await db()
    .select({ type: outbox.type })
    .from(outbox)
    .where(sql`${outbox.payload} ->> 'id' = ${subscriptionId} OR ${outbox.payload} ->> 'subscription_id' = ${subscriptionId}`)
    .orderBy(asc(outbox.createdAt));
  return rows.map((r) => r.type);
}

async function renew(id: string, s: Seller = seller) {
  const current = await raw("GET", `/v1/subscriptions/${id}`, undefined, s);
  const res = await raw("POST", `/v1/subscriptions/${id}/renew`, { current_period_start: current.body.current_period_start }, s);
  expect(res.status).toBe(200);
  return res.body;
}

/** `amount × left / whole` of the period at the order's time, half away from zero: what the test expects. */
function expected(amount: number, period: { start: Date; end: Date }, at: Date) {
  const whole = Math.floor((period.end.getTime() - period.start.getTime()) / 1000);
  const left = Math.floor((period.end.getTime() - at.getTime()) / 1000);
  return Math.round((amount * left) / whole);
}

beforeAll(async () => {
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  seller = await createSeller(server, "proration");
  basic = await seller.sdk.products.create({ name: "Basic", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
  pro = await seller.sdk.products.create({ name: "Pro", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "usd" }] });
});
afterAll(async () => server?.close());

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
    const sub = await subscribe(basic);
    const period = await midPeriod(sub.id, 10);
    const changed = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: pro.id, prorationBehavior: "invoice" } });
    expect(changed).toMatchObject({ productId: pro.id, amount: 4000, status: "active" });
    const orders = await ordersOf(sub.id);
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
      productId: pro.id,
      subscriptionId: sub.id,
    });
    expect(update.items.map((i) => ({ label: i.label, amount: i.amount, proration: i.proration }))).toEqual([
      { label: "Unused time on Basic", amount: -667, proration: true },
      { label: "Remaining time on Pro", amount: 2667, proration: true },
    ]);
    // nothing waits for the renewal, and the renewal bills the new amount only
    expect(await db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id))).toEqual([]);
    await renew(sub.id);
    const cycle = (await ordersOf(sub.id))[2]!;
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", subtotalAmount: 4000, totalAmount: 4000, appliedBalanceAmount: 0, dueAmount: 4000 });
    expect(cycle.items.map((i) => i.proration)).toEqual([false]);
  });

  it("a downgrade credits the customer's balance, which pays the next renewals until it is spent", async () => {
    const sub = await subscribe(pro);
    await midPeriod(sub.id, 15);
    await seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: basic.id, prorationBehavior: "invoice" } });
    const update = (await ordersOf(sub.id))[1]!;
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
    expect(await balanceOf(sub.customerId)).toBe(1500);
    // first renewal: 1000 paid entirely from the balance
    await renew(sub.id);
    const first = (await ordersOf(sub.id))[2]!;
    expect(first).toMatchObject({ billingReason: "subscription_cycle", status: "paid", totalAmount: 1000, appliedBalanceAmount: -1000, dueAmount: 0 });
    expect(await balanceOf(sub.customerId)).toBe(500);
    // second: 500 from the balance, 500 charged
    await renew(sub.id);
    const second = (await ordersOf(sub.id))[3]!;
    expect(second).toMatchObject({ status: "paid", totalAmount: 1000, appliedBalanceAmount: -500, dueAmount: 500 });
    expect(await balanceOf(sub.customerId)).toBe(0);
    // third: nothing left
    await renew(sub.id);
    expect((await ordersOf(sub.id))[4]).toMatchObject({ totalAmount: 1000, appliedBalanceAmount: 0, dueAmount: 1000 });
    // the ledger: the credit, then each use, naming its order
    const ledger = await db()
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
    const sub = await subscribe(pro);
    await midPeriod(sub.id, 15);
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: basic.id, prorationBehavior: "invoice" } });
    expect(await balanceOf(sub.customerId)).toBe(1500);
    const { email } = await seller.sdk.customers.get({ id: sub.customerId });
    const buy = async (product: Product) => {
      const checkout = await seller.sdk.checkouts.create({ products: [product.id], customerId: sub.customerId });
      await pay(server, checkout, { customerEmail: email });
      const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
      if (!order) throw new Error("no order");
      return order;
    };
    // 1000 paid whole by the balance, then 500 of 2500
    const small = await buy(await seller.sdk.products.create({ name: "Add-on", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] }));
    expect(small).toMatchObject({ billingReason: "purchase", status: "paid", totalAmount: 1000, appliedBalanceAmount: -1000, dueAmount: 0, customerId: sub.customerId });
    expect(await balanceOf(sub.customerId)).toBe(500);
    const large = await buy(await createProduct(seller, "fixed"));
    expect(large).toMatchObject({ status: "paid", totalAmount: 2500, appliedBalanceAmount: -500, dueAmount: 2000 });
    expect(await balanceOf(sub.customerId)).toBe(0);
    // nothing left: the next one is charged whole
    const third = await buy(await createProduct(seller, "fixed"));
    expect(third).toMatchObject({ totalAmount: 2500, appliedBalanceAmount: 0, dueAmount: 2500 });
    const ledger = await db().select().from(customerBalanceEntry).where(eq(customerBalanceEntry.customerId, sub.customerId)).orderBy(asc(customerBalanceEntry.createdAt));
    expect(ledger.map((e) => [e.amount, e.reason, e.orderId])).toEqual([
      [1500, "proration_credit", expect.any(String)],
      [-1000, "order_applied", small.id],
      [-500, "order_applied", large.id],
    ]);
    // a new customer has no balance: its checkout is charged whole
    const fresh = await seller.sdk.checkouts.create({ products: [basic.id] });
    await pay(server, fresh, { customerEmail: uniqueBuyer("proration-fresh") });
    expect((await seller.sdk.orders.list({ checkoutId: fresh.id })).result.items[0]).toMatchObject({ totalAmount: 1000, appliedBalanceAmount: 0, dueAmount: 1000 });
  });

  it("a seat change bills the seats' difference for the rest of the period", async () => {
    const seats = await createProduct(seller, "seats");
    const sub = await subscribe(seats, seller, { seats: 3 });
    await midPeriod(sub.id, 15);
    // 3 × 1000 → 6 × 800
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { seats: 6, prorationBehavior: "invoice" } });
    const update = (await ordersOf(sub.id))[1]!;
    expect(update.items.map((i) => ({ label: i.label, amount: i.amount }))).toEqual([
      { label: "Unused time on 3 seats", amount: -1500 },
      { label: "Remaining time on 6 seats", amount: 2400 },
    ]);
    expect(update).toMatchObject({ billingReason: "subscription_update", status: "paid", totalAmount: 900, dueAmount: 900 });
  });

  it("taxes each proration line (FR 20%, exclusive), the credit line's tax negative", async () => {
    const s = await createSeller(server, "proration-tax");
    await raw("PATCH", `/v1/organizations/${s.organizationId}`, { country: "FR", tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false } }, s);
    const a = await s.sdk.products.create({ name: "Small", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "eur" }] });
    const b = await s.sdk.products.create({ name: "Large", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "eur" }] });
    const sub = await subscribe(a, s);
    await midPeriod(sub.id, 10);
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: b.id, prorationBehavior: "invoice" } });
    const update = (await ordersOf(sub.id, s))[1]!;
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
    const trial = await createProduct(seller, "trial", { name: "Trial basic" });
    const checkout = await seller.sdk.checkouts.create({ products: [trial.id] });
    // Stripe's test card that can be saved but whose charges fail
    const email = uniqueBuyer("proration-declined");
    await pay(server, checkout, { customerEmail: email }, "4000 0000 0000 0341");
    const [sub] = (await seller.sdk.subscriptions.list({ productId: trial.id, limit: 100 })).result.items;
    if (!sub) throw new Error("no subscription");
    // the trial is over: a paid period half gone
    await db().update(subscription).set({ status: "active", trialStart: null, trialEnd: null }).where(eq(subscription.id, sub.id));
    await midPeriod(sub.id, 15);
    // a plan with a benefit: its grant is not cycled when the change's order is paid (no period starts)
    const perk = await seller.sdk.benefits.create({ type: "custom", description: "Pro perk", properties: {} });
    const proPerk = await seller.sdk.products.create({ name: "Pro", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "usd" }] });
    await seller.sdk.products.updateBenefits({ id: proPerk.id, productBenefitsUpdate: { benefits: [perk.id] } });
    const changed = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: proPerk.id, prorationBehavior: "invoice" } });
    // the change stands; the subscription is past due until the order is paid (Stripe's allow_incomplete)
    expect(changed).toMatchObject({ productId: proPerk.id, amount: 4000, status: "past_due" });
    const update = (await ordersOf(sub.id)).at(-1)!;
    // −600 for half of 1200, +2000 for half of 4000
    expect(update).toMatchObject({ billingReason: "subscription_update", status: "pending", paid: false, totalAmount: 1400, dueAmount: 1400 });
    // the attempt is a payment of the order, charged to the customer's default card
    const declined = (await seller.sdk.payments.list({ orderId: update.id })).result.items;
    expect(declined).toMatchObject([{ status: "failed", amount: 1400, declineReason: "card_declined", orderId: update.id }]);
    // SDK 0.49.0 reads it too (no Polar trigger names a plan change: null)
    expect((await seller.sdk049.payments.list({ orderId: update.id })).result.items).toMatchObject([{ status: "failed", trigger: null }]);
    // its dunning is scheduled as a failed renewal's (the first retry 3 days later)
    const [dun] = await db().select().from(orderDunning).where(eq(orderDunning.orderId, update.id));
    expect(dun).toMatchObject({ subscriptionId: sub.id, attempts: 1 });
    expect(dun!.nextAttemptAt!.getTime() - Date.now()).toBeGreaterThan(3 * DAY - 60_000);
    expect(await eventTypesOf(sub.id)).toContain("subscription.past_due");
    // and the customer gets the past-due email, as for a failed renewal
    await server.worker.start();
    try {
      await server.mailbox.waitFor(email, /Payment failed/, 15_000);
    } finally {
      await server.worker.stop();
    }

    // the customer pays it from the portal with a new card
    const session = (await seller.sdk.customerSessions.create({ customerId: sub.customerId })).token;
    const portal = new Polar({ serverURL: server.url });
    expect(await portal.customerPortal.orders.getPaymentStatus({ customerSession: session }, { id: update.id })).toEqual({ status: "failed", error: "Your card was declined." });
    const card = await rawRequest(server.url, session, "POST", "/v1/customer-portal/customers/me/payment-methods/test-card", {
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
    expect(await seller.sdk.orders.get({ id: update.id })).toMatchObject({ status: "paid", paid: true });
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    const attempts = (await seller.sdk.payments.list({ orderId: update.id, sorting: ["created_at"] })).result.items;
    expect(attempts.map((p) => p.status)).toEqual(["failed", "succeeded"]);
    // no period started: the paid plan change cycles no grant (its grant was made at the change)
    const types = await eventTypesOf(sub.id);
    expect(types).toContain("benefit_grant.created");
    expect(types).not.toContain("benefit_grant.cycled");
  });

  it("a trialing subscription's change bills nothing (no paid period to prorate)", async () => {
    const trial = await createProduct(seller, "trial");
    const sub = await subscribe(trial);
    expect(sub.status).toBe("trialing");
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: pro.id, prorationBehavior: "invoice" } });
    expect((await ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create"]);
    expect(await db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id))).toEqual([]);
  });

  it("a carried credit larger than the renewal goes to the balance (applied_balance_amount positive, due 0)", async () => {
    const sub = await subscribe(pro);
    await midPeriod(sub.id, 3);
    // 27 of 30 days left: −3600 + 900 carried; the renewal: 1000 − 2700 = −1700
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: basic.id, prorationBehavior: "prorate" } });
    await renew(sub.id);
    const cycle = (await ordersOf(sub.id))[1]!;
    expect(cycle.items.map((i) => i.amount)).toEqual([1000, -3600, 900]);
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", status: "paid", totalAmount: -1700, appliedBalanceAmount: 1700, dueAmount: 0 });
    expect(await balanceOf(sub.customerId)).toBe(1700);
  });
});

describe("proration_behavior prorate", () => {
  it("carries the lines to the next renewal's order as its own lines; nothing is billed at the change", async () => {
    const sub = await subscribe(basic);
    await midPeriod(sub.id, 10);
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: pro.id, prorationBehavior: "prorate" } });
    expect((await ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create"]);
    const pending = await db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id));
    expect(pending.map((p) => [p.amount, p.orderId])).toEqual([
      [-667, null],
      [2667, null],
    ]);
    await renew(sub.id);
    const cycle = (await ordersOf(sub.id))[1]!;
    expect(cycle.items.map((i) => ({ label: i.label, amount: i.amount, proration: i.proration }))).toEqual([
      { label: "Pro", amount: 4000, proration: false },
      { label: "Unused time on Basic", amount: -667, proration: true },
      { label: "Remaining time on Pro", amount: 2667, proration: true },
    ]);
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", status: "paid", subtotalAmount: 6000, totalAmount: 6000, dueAmount: 6000 });
    // billed once: the next renewal has the period's amount only
    await renew(sub.id);
    expect((await ordersOf(sub.id))[2]).toMatchObject({ subtotalAmount: 4000, totalAmount: 4000 });
  });

  it("the organization's behavior applies when the request names none; next_period bills nothing for the change", async () => {
    const sub = await subscribe(basic);
    await midPeriod(sub.id, 10);
    // the organization's default is prorate
    await seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: pro.id } });
    expect(await db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id))).toHaveLength(2);
    const other = await subscribe(basic);
    await midPeriod(other.id, 10);
    await seller.sdk.subscriptions.update({ id: other.id, subscriptionUpdate: { productId: pro.id, prorationBehavior: "next_period" } });
    expect(await db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, other.id))).toEqual([]);
    expect(await ordersOf(other.id)).toHaveLength(1);
  });
});

describe("the organization's proration_behavior", () => {
  it("invoice, set on the organization (subscription_settings), bills a change whose request names no behavior now", async () => {
    const s = await createSeller(server, "proration-org-invoice");
    await s.sdk.organizations.update({
      id: s.organizationId,
      organizationUpdate: {
        subscriptionSettings: { allowMultipleSubscriptions: true, allowCustomerUpdates: true, prorationBehavior: "invoice", benefitRevocationGracePeriod: 0, preventTrialAbuse: false },
      },
    });
    const [a, b] = await Promise.all(
      [1000, 4000].map((priceAmount, i) =>
        s.sdk.products.create({ name: `Org plan ${i}`, recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount, priceCurrency: "usd" }] }),
      ),
    );
    const sub = await subscribe(a!, s);
    await midPeriod(sub.id, 15);
    await s.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: b!.id } });
    const orders = await ordersOf(sub.id, s);
    expect(orders.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_update"]);
    // −500 for half of 1000, +2000 for half of 4000 (a second may have passed: ±1 on each line)
    expect(orders[1]).toMatchObject({ status: "paid", paid: true });
    expect(Math.abs(orders[1]!.totalAmount - 1500)).toBeLessThanOrEqual(2);
    expect(await db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id))).toEqual([]);
  });
});

describe("webhooks of a plan change billed now", () => {
  it("delivers order.created and order.paid of the subscription_update order (a credit one too), valid for both SDKs", async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const s = await createSeller(server, "proration-hooks");
      const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/p`, format: "raw", events: ["order.created", "order.paid"] });
      const a = await s.sdk.products.create({ name: "Plan A", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
      const b = await s.sdk.products.create({ name: "Plan B", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "usd" }] });
      const sub = await subscribe(a, s);
      await midPeriod(sub.id, 15);
      await server.worker.start();
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
      await server.worker.stop();
      await receiver.stop();
    }
  });
});
