// The renewal schedule (runRenewals, as the server runs it): cancel at period end (ended, grants revoked), two
// concurrent runs renewing once (also in several batches each, numbered gaplessly at each batch's end), and the
// batch's renewals written together (renewal/writes.ts).
import { randomUUID } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { describe, expect, it } from "vitest";
import { addInterval } from "../../server/billing/subscriptions/period.js";
import { order, orderDunning, outbox, payment, subscription } from "../../server/db/schema/index.js";
import { runRenewals } from "../../server/billing/renewal/run.js";
import { createPaymentProcessor } from "../../server/payments/index.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller } from "../helpers/seller.js";
import { renewalFixture } from "./subscriptions-renewal-fixtures.js";

const fx = renewalFixture();

describe("the renewal schedule", () => {
  it("renews a subscription whose period has ended, from the period's end, once", async () => {
    const sub = await fx.subscribe(fx.monthly);
    const start = new Date(Date.now() - 40 * 86_400_000);
    const end = new Date(Date.now() - 60_000);
    await fx.setPeriod(sub.id, start, end);
    expect(await fx.renewals()).toBe(1);
    expect(await fx.renewals()).toBe(0);
    const got = await fx.seller.sdk.subscriptions.get({ id: sub.id });
    expect(got.currentPeriodStart.getTime()).toBe(end.getTime());
    expect(got.currentPeriodEnd.getTime()).toBe(addInterval(end, "month", 1).getTime());
    expect((await fx.ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);
  });

  it("two runs at once renew a due subscription once", async () => {
    const sub = await fx.subscribe(fx.monthly);
    await fx.setPeriod(sub.id, new Date(Date.now() - 40 * 86_400_000), new Date(Date.now() - 60_000));
    const counts = await Promise.all([fx.renewals(), fx.renewals()]);
    expect(counts[0] + counts[1]).toBe(1);
    expect(await fx.ordersOf(sub.id)).toHaveLength(2);
  });

  it("batches renewed by two runs at once, several batches each: one order per subscription, invoice numbers gapless and in the events", async () => {
    const s = await createSeller(fx.server, "renewal-batches");
    const product = await createProduct(s, "monthly");
    const subs: Subscription[] = [];
    for (let i = 0; i < 6; i += 1) {
      const checkout = await s.sdk.checkouts.create({ products: [product.id] });
      await pay(fx.server, checkout, { customerEmail: uniqueBuyer("renewal-batch") });
      const [sub] = (await s.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
      if (!sub) throw new Error("no subscription");
      subs.push(sub);
    }
    for (const sub of subs) await fx.setPeriod(sub.id, new Date(Date.now() - 40 * 86_400_000), new Date(Date.now() - 60_000));
    // batches of 2, two claiming transactions per run: the schedule's batch path, its numbering at each batch's end
    const run = () => runRenewals({ db: fx.db(), processor: createPaymentProcessor(), baseURL: fx.server.url, batch: 2, concurrency: 2 });
    const counts = await Promise.all([run(), run()]);
    expect(counts[0] + counts[1]).toBe(6);
    const orders = await fx.db().select().from(order).where(eq(order.organizationId, s.organizationId)).orderBy(asc(order.createdAt));
    expect(orders).toHaveLength(12);
    for (const sub of subs) expect(orders.filter((o) => o.subscriptionId === sub.id).map((o) => o.billingReason).sort()).toEqual(["subscription_create", "subscription_cycle"]);
    const numbers = orders.map((o) => Number(o.invoiceNumber.split("-").at(-1))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const created = await fx.db()
      .select({ payload: outbox.payload })
      .from(outbox)
      .where(and(eq(outbox.organizationId, s.organizationId), eq(outbox.type, "order.created"), sql`${outbox.payload} ->> 'billing_reason' = 'subscription_cycle'`));
    expect(created).toHaveLength(6);
    const byId = new Map(orders.map((o) => [o.id, o.invoiceNumber]));
    for (const { payload } of created) expect((payload as { invoice_number: string }).invoice_number).toBe(byId.get((payload as { id: string }).id));
  });

  it("ends a subscription canceled at period end: canceled, ended, grants revoked, no order", async () => {
    const sub = await fx.subscribe(fx.monthly);
    const canceled = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    expect(canceled).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
    const end = new Date(Date.now() - 60_000);
    await fx.setPeriod(sub.id, new Date(Date.now() - 30 * 86_400_000), end);
    expect(await fx.renewals()).toBe(1);
    const got = await fx.seller.sdk.subscriptions.get({ id: sub.id });
    expect(got).toMatchObject({ status: "canceled", cancelAtPeriodEnd: true, endsAt: end, canceledAt: canceled.canceledAt });
    expect(got.endedAt).toBeInstanceOf(Date);
    expect(await fx.ordersOf(sub.id)).toHaveLength(1);
    const grants = (await fx.seller.sdk.benefits.grants({ id: fx.perk, customerId: sub.customerId })).result.items;
    expect(grants).toMatchObject([{ isGranted: false, isRevoked: true }]);
    const types = (await fx.eventsOf(sub.id)).map((e) => e.type);
    expect(types.slice(-3)).toEqual(["subscription.updated", "subscription.revoked", "benefit_grant.revoked"]);
    expect(await fx.raw(fx.seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, {})).toMatchObject({ status: 403, body: { error: "AlreadyCanceledSubscription" } });
    expect(await fx.renewals()).toBe(0);
  });
});

describe("the schedule's batch: renewals written together (renewal/writes.ts)", () => {
  /**
   * A seller whose monthly product grants a perk, and `cards.length` subscriptions of it paid with those cards (a trial
   * product for 0341).
   */
  async function batchOf(name: string, cards: string[]) {
    const s = await createSeller(fx.server, name);
    const benefit = (await s.sdk.benefits.create({ type: "custom", description: `${name} perk`, properties: {} })).id;
    const products = { monthly: await createProduct(s, "monthly"), trial: await createProduct(s, "trial") };
    for (const p of Object.values(products)) await s.sdk.products.updateBenefits({ id: p.id, productBenefitsUpdate: { benefits: [benefit] } });
    const subs: Subscription[] = [];
    for (const card of cards) {
      const product = card.startsWith("4000") ? products.trial : products.monthly;
      const checkout = await s.sdk.checkouts.create({ products: [product.id] });
      await pay(fx.server, checkout, { customerEmail: uniqueBuyer(name) }, card);
      const [sub] = (await s.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
      if (!sub) throw new Error("no subscription");
      subs.push(sub);
    }
    const end = new Date(Date.now() - 60_000);
    for (const sub of subs) await fx.setPeriod(sub.id, new Date(end.getTime() - 30 * 86_400_000), end, sub.status === "trialing" ? { trialEnd: end } : {});
    return { s, subs, end };
  }
  const runBatch = (organizationId: string) => runRenewals({ db: fx.db(), processor: createPaymentProcessor(), baseURL: fx.server.url, batch: 10, organizationId });
  const cycleOrderOf = async (subscriptionId: string) =>
    (await fx.db().select().from(order).where(and(eq(order.subscriptionId, subscriptionId), eq(order.billingReason, "subscription_cycle"))))[0];
  /** The renewal's event types, in outbox order (after the purchase's). */
  const renewalEvents = async (subscriptionId: string, organizationId: string) => {
    const rows = await fx.db()
      .select({ type: outbox.type, payload: outbox.payload })
      .from(outbox)
      .where(and(eq(outbox.organizationId, organizationId), sql`${outbox.payload} ->> 'id' = ${subscriptionId} OR ${outbox.payload} ->> 'subscription_id' = ${subscriptionId}`))
      .orderBy(asc(outbox.createdAt), asc(outbox.id));
    const last = rows.map((r) => r.type).lastIndexOf("order.created");
    return rows.slice(last).map((r) => r.type);
  };

  it("writes the orders, payments, dunning, terms and grants of a batch, with each renewal's events in order", async () => {
    const { s, subs, end } = await batchOf("batch-written", ["4242 4242 4242 4242", "4000 0000 0000 0341", "4242 4242 4242 4242"]);
    expect(await runBatch(s.organizationId)).toBe(3);
    const [a, declined, c] = subs as [Subscription, Subscription, Subscription];
    for (const paid of [a, c]) {
      const row = (await fx.db().select().from(subscription).where(eq(subscription.id, paid.id)))[0];
      expect(row).toMatchObject({ status: "active", currentPeriodStart: end, currentPeriodEnd: addInterval(end, "month", 1) });
      expect(row?.modifiedAt?.getTime()).toBeGreaterThan(end.getTime());
      const cycle = await cycleOrderOf(paid.id);
      expect(cycle).toMatchObject({ status: "paid", totalAmount: 900, renewedPeriodStart: new Date(end.getTime() - 30 * 86_400_000) });
      expect(await fx.db().select().from(payment).where(eq(payment.orderId, cycle?.id ?? ""))).toMatchObject([{ status: "succeeded", amount: 900, attempt: "renewal", method: "card" }]);
      expect(await renewalEvents(paid.id, s.organizationId)).toEqual(["order.created", "order.paid", "subscription.updated", "benefit_grant.cycled"]);
      const grants = (await s.sdk.benefits.grants({ id: (await s.sdk.benefits.list({})).result.items[0]?.id ?? "", customerId: paid.customerId })).result.items;
      expect(grants[0]?.modifiedAt?.getTime()).toBeGreaterThan(end.getTime());
    }
    // the declined trial: past_due, its order pending, the failed attempt recorded, dunning started
    expect((await fx.db().select().from(subscription).where(eq(subscription.id, declined.id)))[0]).toMatchObject({ status: "past_due", trialEnd: end, currentPeriodStart: end });
    const pending = await cycleOrderOf(declined.id);
    expect(pending).toMatchObject({ status: "pending", totalAmount: 1200 });
    expect(await fx.db().select().from(payment).where(eq(payment.orderId, pending?.id ?? ""))).toMatchObject([{ status: "failed", declineReason: "card_declined", attempt: "renewal" }]);
    const [dunning] = await fx.db().select().from(orderDunning).where(eq(orderDunning.orderId, pending?.id ?? ""));
    expect(dunning).toMatchObject({ attempts: 1, manualAttempts: 0, subscriptionId: declined.id });
    expect(Math.round(((dunning?.nextAttemptAt?.getTime() ?? 0) - (dunning?.createdAt.getTime() ?? 0)) / 86_400_000)).toBe(3);
    expect(await renewalEvents(declined.id, s.organizationId)).toEqual(["order.created", "subscription.updated", "subscription.past_due"]);
    // three purchases, three renewals: invoice numbers 1–6
    const numbers = (await fx.db().select().from(order).where(eq(order.organizationId, s.organizationId))).map((o) => Number(o.invoiceNumber.split("-").at(-1)));
    expect(numbers.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a renewal whose rows cannot be written fails alone: the rest of its batch is renewed, it is renewed later", async () => {
    const { s, subs, end } = await batchOf("batch-fallback", ["4242 4242 4242 4242", "4242 4242 4242 4242", "4242 4242 4242 4242"]);
    const [, blocked] = subs as [Subscription, Subscription, Subscription];
    // an order already names the period blocked renews (one renewal per period: a unique index), so the batch's
    // order statement fails
    const [purchase] = await fx.db().select().from(order).where(eq(order.subscriptionId, blocked.id));
    if (!purchase) throw new Error("no order");
    const squatter = randomUUID();
    await fx.db()
      .insert(order)
      .values({
        ...purchase, id: squatter, checkoutId: null, invoiceNumber: `squatter-${squatter}`,
        billingReason: "subscription_cycle", renewedPeriodStart: new Date(end.getTime() - 30 * 86_400_000),
      });
    expect(await runBatch(s.organizationId)).toBe(2);
    for (const sub of subs) {
      const cycle = await cycleOrderOf(sub.id);
      if (sub.id === blocked.id) {
        expect(cycle?.id).toBe(squatter);
        expect((await fx.db().select().from(subscription).where(eq(subscription.id, sub.id)))[0]).toMatchObject({ status: "active", currentPeriodEnd: end });
        // its events stayed out of the outbox: only the purchase's order.created
        const created = await fx.db()
          .select({ id: outbox.id })
          .from(outbox)
          .where(and(eq(outbox.type, "order.created"), sql`${outbox.payload} ->> 'subscription_id' = ${sub.id}`));
        expect(created).toHaveLength(1);
      } else {
        expect(cycle).toMatchObject({ status: "paid" });
        expect(await renewalEvents(sub.id, s.organizationId)).toEqual(["order.created", "order.paid", "subscription.updated", "benefit_grant.cycled"]);
      }
    }
    // its renewal's charge attempt was not recorded (its rows rolled back with its savepoint); only the checkout's
    expect((await fx.db().select().from(payment).where(eq(payment.customerId, blocked.customerId))).map((p) => p.attempt)).toEqual(["checkout"]);
    // the two renewals took numbers 4 and 5 (the squatter has none of the counter's)
    const numbered = (await fx.db().select().from(order).where(eq(order.organizationId, s.organizationId))).filter((o) => !o.invoiceNumber.startsWith("squatter-"));
    expect(numbered.map((o) => Number(o.invoiceNumber.split("-").at(-1))).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5]);
    // once the squatter is gone the next run renews it
    await fx.db().delete(order).where(eq(order.id, squatter));
    expect(await runBatch(s.organizationId)).toBe(1);
    expect(await cycleOrderOf(blocked.id)).toMatchObject({ status: "paid", invoiceNumber: expect.stringMatching(/-0006$/) });
  });
});
