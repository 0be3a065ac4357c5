// Renewal at period end through the till-only POST /v1/subscriptions/{id}/renew, checked through @polar-sh/sdk
// 0.47.1: the new period and its paid order (subscription_cycle, invoice numbers in sequence), a trial becoming
// active, metered usage, a declined renewal (past_due), one renewal per period, discount durations, and the
// renewal's webhooks delivered and accepted by both SDKs' validateEvent. The renewal schedule (runRenewals):
// subscriptions-renewal-schedule.test.ts.
import { and, eq, sql } from "drizzle-orm";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { describe, expect, it } from "vitest";
import { addInterval } from "../../server/billing/subscriptions/period.js";
import { order, outbox } from "../../server/db/schema/index.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { renewalFixture } from "./subscriptions-renewal-fixtures.js";

const fx = renewalFixture();

describe("POST /v1/subscriptions/{id}/renew", () => {
  it("starts a new period now, billed by a paid subscription_cycle order; the grants are cycled", async () => {
    const sub = await fx.subscribe(fx.monthly);
    const before = Date.now();
    const { status, sub: renewed } = await fx.renew(sub.id);
    expect(status).toBe(200);
    expect(renewed).toMatchObject({ id: sub.id, status: "active", cancelAtPeriodEnd: false, endedAt: null });
    const start = renewed?.currentPeriodStart.getTime() ?? 0;
    expect(start).toBeGreaterThanOrEqual(before - 1000);
    expect(renewed?.currentPeriodEnd.getTime()).toBe(addInterval(new Date(start), "month", 1).getTime());
    expect(await fx.seller.sdk.subscriptions.get({ id: sub.id })).toMatchObject({ currentPeriodStart: renewed?.currentPeriodStart, status: "active" });

    const [first, cycle] = await fx.ordersOf(sub.id);
    expect(first).toMatchObject({ billingReason: "subscription_create" });
    expect(cycle).toMatchObject({
      billingReason: "subscription_cycle",
      status: "paid",
      paid: true,
      subtotalAmount: 900,
      discountAmount: 0,
      totalAmount: 900,
      checkoutId: null,
      subscriptionId: sub.id,
      productId: fx.monthly.id,
      customerId: sub.customerId,
    });
    expect(cycle?.items).toMatchObject([{ label: fx.monthly.name, amount: 900 }]);

    const grants = (await fx.seller.sdk.benefits.grants({ id: fx.perk, customerId: sub.customerId })).result.items;
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ isGranted: true, revokedAt: null, subscriptionId: sub.id });
    expect(grants[0]?.modifiedAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);

    const types = (await fx.eventsOf(sub.id)).map((e) => e.type);
    expect(types.slice(-4)).toEqual([
      "order.created",
      "order.paid",
      "subscription.updated",
      "benefit_grant.cycled",
    ]);
    const orderEvent = (await fx.eventsOf(sub.id)).filter((e) => e.type === "order.paid").at(-1);
    expect(orderEvent?.payload).toMatchObject({ id: cycle?.id, invoice_number: cycle?.invoiceNumber, billing_reason: "subscription_cycle" });
    const states = await fx.db()
      .select()
      .from(outbox)
      .where(and(eq(outbox.type, "customer.state_changed"), sql`${outbox.payload} ->> 'id' = ${sub.customerId}`));
    expect(states.length).toBeGreaterThanOrEqual(2);
  });

  it("gives each renewal the organization's next invoice number", async () => {
    const sub = await fx.subscribe(fx.monthly);
    await fx.renew(sub.id);
    await fx.renew(sub.id);
    const numbers = (await fx.ordersOf(sub.id)).map((o) => o.invoiceNumber);
    expect(numbers).toHaveLength(3);
    const n = numbers.map((x) => Number(x.split("-").at(-1)));
    expect(n[1]).toBe((n[0] ?? 0) + 1);
    expect(n[2]).toBe((n[1] ?? 0) + 1);
  });

  it("ends a trial: the subscription becomes active and its first charge is ordered", async () => {
    const trial = await createProduct(fx.seller, "trial");
    const sub = await fx.subscribe(trial);
    expect(sub.status).toBe("trialing");
    const { sub: renewed } = await fx.renew(sub.id);
    expect(renewed?.status).toBe("active");
    expect(renewed?.trialEnd?.getTime()).toBe(renewed?.currentPeriodStart.getTime());
    const orders = await fx.ordersOf(sub.id);
    expect(orders.map((o) => [o.billingReason, o.totalAmount, o.status])).toEqual([
      ["subscription_create", 0, "paid"],
      ["subscription_cycle", 1200, "paid"],
    ]);
    const types = (await fx.eventsOf(sub.id)).map((e) => e.type);
    expect(types.filter((t) => t === "subscription.active")).toHaveLength(1);
  });

  it("a declined renewal leaves the order pending and the subscription past_due", async () => {
    const trial = await createProduct(fx.seller, "trial");
    // Stripe's test card that can be saved but whose charges fail
    const sub = await fx.subscribe(trial, {}, "4000 0000 0000 0341");
    const { sub: renewed } = await fx.renew(sub.id);
    expect(renewed?.status).toBe("past_due");
    const orders = await fx.ordersOf(sub.id);
    expect(orders.at(-1)).toMatchObject({ billingReason: "subscription_cycle", status: "pending", paid: false, totalAmount: 1200 });
    const types = (await fx.eventsOf(sub.id)).map((e) => e.type);
    // only the trial's order was paid
    expect(types.filter((t) => t === "order.paid")).toHaveLength(1);
    expect(types.filter((t) => t === "order.created")).toHaveLength(2);
    expect(types).not.toContain("benefit_grant.cycled");
    // past_due is not renewed again by the schedule, nor by the route
    expect((await fx.renew(sub.id)).status).toBe(403);
  });

  it("bills the period's metered usage at the unit amount, capped", async () => {
    const meter = await fx.seller.sdk.meters.create({
      name: `calls ${Date.now()}`,
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "renewal-call" }] },
      aggregation: { func: "count" },
    });
    const metered = await fx.seller.sdk.products.create({
      name: "metered plan",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 500, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "30", capAmount: 200, priceCurrency: "usd" },
      ],
    });
    const sub = await fx.subscribe(metered);
    const ingest = (count: number) =>
      fx.raw(fx.seller.token, "POST", "/v1/events/ingest", {
        events: Array.from({ length: count }, () => ({ name: "renewal-call", customer_id: sub.customerId })),
      });
    expect((await ingest(5)).status).toBe(200);
    await fx.renew(sub.id);
    let cycle = (await fx.ordersOf(sub.id)).at(-1);
    expect(cycle?.items.map((i) => i.amount)).toEqual([500, 150]);
    expect(cycle?.totalAmount).toBe(650);
    // 10 more calls in the next period: 300 capped at 200
    await new Promise((r) => setTimeout(r, 20));
    expect((await ingest(10)).status).toBe(200);
    await fx.renew(sub.id);
    cycle = (await fx.ordersOf(sub.id)).at(-1);
    expect(cycle?.items.map((i) => i.amount)).toEqual([500, 200]);
  });

  it("answers 404 for another organization's subscription, 422 for a malformed id, 403 without subscriptions:write", async () => {
    const sub = await fx.subscribe(fx.monthly);
    expect(await fx.renew(sub.id, fx.other.token)).toMatchObject({ status: 404, body: { error: "ResourceNotFound" } });
    expect((await fx.renew("not-a-uuid")).status).toBe(422);
    const reader = await fx.seller.createKey({ subscriptions: ["read"] });
    expect((await fx.renew(sub.id, reader)).status).toBe(403);
    expect(await fx.ordersOf(sub.id)).toHaveLength(1);
    const writer = await fx.seller.createKey({ subscriptions: ["write"] });
    expect((await fx.renew(sub.id, writer)).status).toBe(200);
  });
});

describe("renewal is idempotent per period", () => {
  const renewPeriod = (id: string, start: Date | string) =>
    fx.raw(fx.seller.token, "POST", `/v1/subscriptions/${id}/renew`, { current_period_start: typeof start === "string" ? start : start.toISOString() });

  it("a renew naming its period, sent twice (also at once), bills that period once; the repeat answers the subscription", async () => {
    const sub = await fx.subscribe(fx.monthly);
    const period = sub.currentPeriodStart;
    const first = await renewPeriod(sub.id, period);
    expect(first.status).toBe(200);
    const again = await renewPeriod(sub.id, period);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: sub.id, current_period_start: first.body.current_period_start });
    expect((await fx.ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);

    const next = new Date(first.body.current_period_start as string);
    const racing = await Promise.all([renewPeriod(sub.id, next), renewPeriod(sub.id, next), renewPeriod(sub.id, next)]);
    expect(racing.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(racing.map((r) => r.body.current_period_start)).size).toBe(1);
    expect(await fx.ordersOf(sub.id)).toHaveLength(3);
  });

  it("a bare renew (no period, no Idempotency-Key) renews only a period that has ended, so sent twice it bills once", async () => {
    const bare = (id: string) => fx.raw(fx.seller.token, "POST", `/v1/subscriptions/${id}/renew`, {});
    const sub = await fx.subscribe(fx.monthly);
    // the period has not ended: nothing to renew, the subscription as it is
    const startOf = (res: { body: Record<string, unknown> }) => new Date(res.body.current_period_start as string).getTime();
    const early = await bare(sub.id);
    expect(early).toMatchObject({ status: 200, body: { id: sub.id } });
    expect(startOf(early)).toBe(sub.currentPeriodStart.getTime());
    expect(await fx.ordersOf(sub.id)).toHaveLength(1);

    const end = new Date(Date.now() - 60_000);
    await fx.setPeriod(sub.id, new Date(end.getTime() - 30 * 86_400_000), end);
    const first = await bare(sub.id);
    expect(first.status).toBe(200);
    // renewed at the period's recorded end, as the schedule would
    expect(startOf(first)).toBe(end.getTime());
    const again = await bare(sub.id);
    expect(again).toMatchObject({ status: 200, body: { current_period_start: first.body.current_period_start, current_period_end: first.body.current_period_end } });
    expect((await fx.ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);

    // at once: one renewal
    const end2 = new Date(Date.now() - 1000);
    await fx.setPeriod(sub.id, new Date(end2.getTime() - 30 * 86_400_000), end2);
    const racing = await Promise.all([bare(sub.id), bare(sub.id), bare(sub.id)]);
    expect(racing.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(racing.map(startOf))).toEqual(new Set([end2.getTime()]));
    expect(await fx.ordersOf(sub.id)).toHaveLength(3);
  });

  it("a subscription that ended in the named period answers as it is; a period after the current one is a 422", async () => {
    const sub = await fx.subscribe(fx.monthly);
    expect((await renewPeriod(sub.id, new Date(sub.currentPeriodStart.getTime() + 1000))).status).toBe(422);
    expect((await renewPeriod(sub.id, "yesterday")).status).toBe(422);
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const ended = await renewPeriod(sub.id, sub.currentPeriodStart);
    expect(ended.body).toMatchObject({ status: "canceled" });
    const repeat = await renewPeriod(sub.id, sub.currentPeriodStart);
    expect(repeat).toMatchObject({ status: 200, body: { status: "canceled", ended_at: ended.body.ended_at } });
    expect(await fx.ordersOf(sub.id)).toHaveLength(1);
  });

  it("the database holds one renewal order per subscription and period", async () => {
    const sub = await fx.subscribe(fx.monthly);
    await renewPeriod(sub.id, sub.currentPeriodStart);
    const [cycle] = await fx.db().select().from(order).where(and(eq(order.subscriptionId, sub.id), eq(order.billingReason, "subscription_cycle")));
    expect(cycle?.renewedPeriodStart?.getTime()).toBe(sub.currentPeriodStart.getTime());
    const { id: _id, invoiceNumber, ...copy } = cycle!;
    const refused = await fx.db()
      .insert(order)
      .values({ ...copy, invoiceNumber: `${invoiceNumber}-copy` })
      .then(() => null, (err: unknown) => err as { cause?: { code?: string; message?: string } });
    expect(refused?.cause?.code).toBe("23505");
    expect(refused?.cause?.message).toMatch(/order_subscription_renewed_period_uq/);
  });
});

describe("discount durations", () => {
  async function discounted(duration: "once" | "forever" | "repeating", months?: number) {
    const d = await fx.seller.sdk.discounts.create({
      type: "percentage",
      basisPoints: 5000,
      name: `${duration} half`,
      duration,
      ...(months ? { durationInMonths: months } : {}),
    } as Parameters<Seller["sdk"]["discounts"]["create"]>[0]);
    return fx.subscribe(fx.monthly, { discountId: d.id });
  }

  it("once: only the first order", async () => {
    const sub = await discounted("once");
    await fx.renew(sub.id);
    expect((await fx.ordersOf(sub.id)).map((o) => o.discountAmount)).toEqual([450, 0]);
    expect((await fx.ordersOf(sub.id)).at(-1)?.discountId).toBeNull();
  });

  it("forever: every order", async () => {
    const sub = await discounted("forever");
    await fx.renew(sub.id);
    await fx.renew(sub.id);
    expect((await fx.ordersOf(sub.id)).map((o) => o.totalAmount)).toEqual([450, 450, 450]);
  });

  it("repeating: the periods that start within duration_in_months of the start", async () => {
    const sub = await discounted("repeating", 2);
    const start = new Date(addInterval(new Date(), "month", -2).getTime() - 86_400_000);
    await fx.setPeriod(sub.id, start, addInterval(start, "month", 1));
    // the first renewal's period starts a month in (discounted); the second's two months in (not)
    expect(await fx.renewals()).toBeGreaterThanOrEqual(1);
    expect(await fx.renewals()).toBeGreaterThanOrEqual(1);
    expect(await fx.renewals()).toBe(0);
    expect((await fx.ordersOf(sub.id)).map((o) => o.discountAmount)).toEqual([450, 450, 0]);
  });
});

describe("webhooks of a renewal", () => {
  it("delivers order.created, order.paid, subscription.updated, benefit_grant.cycled and subscription.revoked, valid for both SDKs", async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const s = await createSeller(fx.server, "renewal-hooks");
      const endpoint = await s.sdk.webhooks.createWebhookEndpoint({
        url: `${receiver.url}/renewal`,
        format: "raw",
        events: ["order.created", "order.paid", "subscription.updated", "subscription.revoked", "benefit_grant.cycled", "benefit_grant.revoked"],
      });
      const benefit = (await s.sdk.benefits.create({ type: "custom", description: "Hooks perk", properties: {} })).id;
      const product = await createProduct(s, "monthly");
      await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit] } });
      const checkout = await s.sdk.checkouts.create({ products: [product.id] });
      await pay(fx.server, checkout);
      const [sub] = (await s.sdk.subscriptions.list({ productId: product.id })).result.items;
      if (!sub) throw new Error("no subscription");
      await fx.server.worker.start();
      const renewed = await fx.raw(s.token, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
      expect(renewed.status).toBe(200);
      await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
      const ending = { current_period_start: renewed.body.current_period_start };
      expect((await fx.raw(s.token, "POST", `/v1/subscriptions/${sub.id}/renew`, ending)).status).toBe(200);

      const wanted = ["order.created", "order.paid", "subscription.updated", "benefit_grant.cycled", "subscription.revoked", "benefit_grant.revoked"];
      const hits = await receiver.until((all) => {
        const parsed = all.map((h) => ({ h, body: JSON.parse(h.body) as { type: string; data: Record<string, unknown> } }));
        const cycleOrder = parsed.filter((p) => p.body.type.startsWith("order.") && p.body.data.billing_reason === "subscription_cycle");
        const types = new Set([...cycleOrder, ...parsed.filter((p) => !p.body.type.startsWith("order."))].map((p) => p.body.type));
        return wanted.every((t) => types.has(t)) ? parsed : undefined;
      });
      for (const { h, body } of hits) {
        const event = validateEvent(h.body, h.headers, endpoint.secret);
        validateEvent049(h.body, h.headers, endpoint.secret);
        expect(event.type).toBe(body.type);
      }
      const cycled = hits.find((p) => p.body.type === "benefit_grant.cycled");
      expect(cycled?.body.data).toMatchObject({ subscription_id: sub.id, benefit_id: benefit, is_granted: true });
      const revoked = hits.find((p) => p.body.type === "subscription.revoked");
      expect(revoked?.body.data).toMatchObject({ id: sub.id, status: "canceled" });
    } finally {
      await fx.server.worker.stop();
      await receiver.stop();
    }
  });
});
