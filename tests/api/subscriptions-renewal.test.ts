// Renewal at period end: the till-only POST /v1/subscriptions/{id}/renew and the renewal schedule
// (runRenewals, as the server runs it), checked through @polar-sh/sdk 0.47.1 — the new period and its paid
// order (subscription_cycle, invoice numbers in sequence), a trial becoming active, discount durations,
// metered usage, a declined renewal (past_due), cancel at period end (ended, grants revoked), two concurrent
// runs renewing once (also in several batches each, numbered gaplessly at each batch's end), and the renewal's webhooks delivered and accepted by both SDKs' validateEvent.
import { randomUUID } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { subscriptionFromJSON } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addInterval } from "../../server/billing/checkouts/pricing.js";
import { order, orderDunning, outbox, payment, subscription } from "../../server/db/schema/index.js";
import { runRenewals } from "../../server/billing/renewal/run.js";
import { createPaymentProcessor } from "../../server/payments/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let monthly: Product;
let perk: string;

const db = () => server.database.db;
const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);
const renewals = () => runRenewals({ db: db(), processor: createPaymentProcessor(), baseURL: server.url });

async function subscribe(product: Product, checkoutExtra: Record<string, unknown> = {}, card?: string): Promise<Subscription> {
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], ...checkoutExtra });
  await pay(server, checkout, { customerEmail: uniqueBuyer("renewal") }, card);
  const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((s) => s.checkoutId === checkout.id);
  if (!sub) throw new Error("no subscription");
  return sub;
}

/** Renews the current period now: names it (a bare renew renews only a period that has ended). */
async function renew(id: string, token = seller.token) {
  const current = await raw(token, "GET", `/v1/subscriptions/${id}`);
  const body = current.status === 200 ? { current_period_start: current.body.current_period_start } : {};
  const res = await raw(token, "POST", `/v1/subscriptions/${id}/renew`, body);
  if (res.status !== 200) return { status: res.status, body: res.body, sub: null };
  const parsed = subscriptionFromJSON(JSON.stringify(res.body));
  if (!parsed.ok) throw parsed.error;
  return { status: res.status, body: res.body, sub: parsed.value };
}

const ordersOf = async (subscriptionId: string) =>
  (await seller.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 100 })).result.items;

/** Outbox event types whose payload is (or embeds as `subscription_id`) the subscription, in order. */
async function eventsOf(subscriptionId: string) {
  const rows = await db()
    .select()
    .from(outbox)
    .where(sql`${outbox.payload} ->> 'id' = ${subscriptionId} OR ${outbox.payload} ->> 'subscription_id' = ${subscriptionId}`)
    .orderBy(asc(outbox.createdAt));
  return rows.map((r) => ({ type: r.type, payload: r.payload }));
}

/** Moves the subscription's clock: its period (and start) as given. */
async function setPeriod(id: string, start: Date, end: Date, extra: Partial<typeof subscription.$inferInsert> = {}) {
  await db().update(subscription).set({ currentPeriodStart: start, currentPeriodEnd: end, startedAt: start, ...extra }).where(eq(subscription.id, id));
}

beforeAll(async () => {
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  seller = await createSeller(server, "renewal");
  other = await createSeller(server, "renewal-other");
  perk = (await seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: {} })).id;
  monthly = await createProduct(seller, "monthly");
  await seller.sdk.products.updateBenefits({ id: monthly.id, productBenefitsUpdate: { benefits: [perk] } });
});
afterAll(async () => server?.close());

describe("POST /v1/subscriptions/{id}/renew", () => {
  it("starts a new period now, billed by a paid subscription_cycle order; the grants are cycled", async () => {
    const sub = await subscribe(monthly);
    const before = Date.now();
    const { status, sub: renewed } = await renew(sub.id);
    expect(status).toBe(200);
    expect(renewed).toMatchObject({ id: sub.id, status: "active", cancelAtPeriodEnd: false, endedAt: null });
    const start = renewed?.currentPeriodStart.getTime() ?? 0;
    expect(start).toBeGreaterThanOrEqual(before - 1000);
    expect(renewed?.currentPeriodEnd.getTime()).toBe(addInterval(new Date(start), "month", 1).getTime());
    expect(await seller.sdk.subscriptions.get({ id: sub.id })).toMatchObject({ currentPeriodStart: renewed?.currentPeriodStart, status: "active" });

    const [first, cycle] = await ordersOf(sub.id);
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
      productId: monthly.id,
      customerId: sub.customerId,
    });
    expect(cycle?.items).toMatchObject([{ label: monthly.name, amount: 900 }]);

    const grants = (await seller.sdk.benefits.grants({ id: perk, customerId: sub.customerId })).result.items;
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ isGranted: true, revokedAt: null, subscriptionId: sub.id });
    expect(grants[0]?.modifiedAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);

    const types = (await eventsOf(sub.id)).map((e) => e.type);
    expect(types.slice(-4)).toEqual([
      "order.created",
      "order.paid",
      "subscription.updated",
      "benefit_grant.cycled",
    ]);
    const orderEvent = (await eventsOf(sub.id)).filter((e) => e.type === "order.paid").at(-1);
    expect(orderEvent?.payload).toMatchObject({ id: cycle?.id, invoice_number: cycle?.invoiceNumber, billing_reason: "subscription_cycle" });
    const states = await db()
      .select()
      .from(outbox)
      .where(and(eq(outbox.type, "customer.state_changed"), sql`${outbox.payload} ->> 'id' = ${sub.customerId}`));
    expect(states.length).toBeGreaterThanOrEqual(2);
  });

  it("gives each renewal the organization's next invoice number", async () => {
    const sub = await subscribe(monthly);
    await renew(sub.id);
    await renew(sub.id);
    const numbers = (await ordersOf(sub.id)).map((o) => o.invoiceNumber);
    expect(numbers).toHaveLength(3);
    const n = numbers.map((x) => Number(x.split("-").at(-1)));
    expect(n[1]).toBe((n[0] ?? 0) + 1);
    expect(n[2]).toBe((n[1] ?? 0) + 1);
  });

  it("ends a trial: the subscription becomes active and its first charge is ordered", async () => {
    const trial = await createProduct(seller, "trial");
    const sub = await subscribe(trial);
    expect(sub.status).toBe("trialing");
    const { sub: renewed } = await renew(sub.id);
    expect(renewed?.status).toBe("active");
    expect(renewed?.trialEnd?.getTime()).toBe(renewed?.currentPeriodStart.getTime());
    const orders = await ordersOf(sub.id);
    expect(orders.map((o) => [o.billingReason, o.totalAmount, o.status])).toEqual([
      ["subscription_create", 0, "paid"],
      ["subscription_cycle", 1200, "paid"],
    ]);
    const types = (await eventsOf(sub.id)).map((e) => e.type);
    expect(types.filter((t) => t === "subscription.active")).toHaveLength(1);
  });

  it("a declined renewal leaves the order pending and the subscription past_due", async () => {
    const trial = await createProduct(seller, "trial");
    // Stripe's test card that can be saved but whose charges fail
    const sub = await subscribe(trial, {}, "4000 0000 0000 0341");
    const { sub: renewed } = await renew(sub.id);
    expect(renewed?.status).toBe("past_due");
    const orders = await ordersOf(sub.id);
    expect(orders.at(-1)).toMatchObject({ billingReason: "subscription_cycle", status: "pending", paid: false, totalAmount: 1200 });
    const types = (await eventsOf(sub.id)).map((e) => e.type);
    // only the trial's order was paid
    expect(types.filter((t) => t === "order.paid")).toHaveLength(1);
    expect(types.filter((t) => t === "order.created")).toHaveLength(2);
    expect(types).not.toContain("benefit_grant.cycled");
    // past_due is not renewed again by the schedule, nor by the route
    expect((await renew(sub.id)).status).toBe(403);
  });

  it("bills the period's metered usage at the unit amount, capped", async () => {
    const meter = await seller.sdk.meters.create({
      name: `calls ${Date.now()}`,
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "renewal-call" }] },
      aggregation: { func: "count" },
    });
    const metered = await seller.sdk.products.create({
      name: "metered plan",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 500, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "30", capAmount: 200, priceCurrency: "usd" },
      ],
    });
    const sub = await subscribe(metered);
    const ingest = (count: number) =>
      raw(seller.token, "POST", "/v1/events/ingest", {
        events: Array.from({ length: count }, () => ({ name: "renewal-call", customer_id: sub.customerId })),
      });
    expect((await ingest(5)).status).toBe(200);
    await renew(sub.id);
    let cycle = (await ordersOf(sub.id)).at(-1);
    expect(cycle?.items.map((i) => i.amount)).toEqual([500, 150]);
    expect(cycle?.totalAmount).toBe(650);
    // 10 more calls in the next period: 300 capped at 200
    await new Promise((r) => setTimeout(r, 20));
    expect((await ingest(10)).status).toBe(200);
    await renew(sub.id);
    cycle = (await ordersOf(sub.id)).at(-1);
    expect(cycle?.items.map((i) => i.amount)).toEqual([500, 200]);
  });

  it("answers 404 for another organization's subscription, 422 for a malformed id, 403 without subscriptions:write", async () => {
    const sub = await subscribe(monthly);
    expect(await renew(sub.id, other.token)).toMatchObject({ status: 404, body: { error: "ResourceNotFound" } });
    expect((await renew("not-a-uuid")).status).toBe(422);
    const reader = await seller.createKey({ subscriptions: ["read"] });
    expect((await renew(sub.id, reader)).status).toBe(403);
    expect(await ordersOf(sub.id)).toHaveLength(1);
    const writer = await seller.createKey({ subscriptions: ["write"] });
    expect((await renew(sub.id, writer)).status).toBe(200);
  });
});

describe("renewal is idempotent per period", () => {
  const renewPeriod = (id: string, start: Date | string) =>
    raw(seller.token, "POST", `/v1/subscriptions/${id}/renew`, { current_period_start: typeof start === "string" ? start : start.toISOString() });

  it("a renew naming its period, sent twice (also at once), bills that period once; the repeat answers the subscription", async () => {
    const sub = await subscribe(monthly);
    const period = sub.currentPeriodStart;
    const first = await renewPeriod(sub.id, period);
    expect(first.status).toBe(200);
    const again = await renewPeriod(sub.id, period);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: sub.id, current_period_start: first.body.current_period_start });
    expect((await ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);

    const next = new Date(first.body.current_period_start as string);
    const racing = await Promise.all([renewPeriod(sub.id, next), renewPeriod(sub.id, next), renewPeriod(sub.id, next)]);
    expect(racing.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(racing.map((r) => r.body.current_period_start)).size).toBe(1);
    expect(await ordersOf(sub.id)).toHaveLength(3);
  });

  it("a bare renew (no period, no Idempotency-Key) renews only a period that has ended, so sent twice it bills once", async () => {
    const bare = (id: string) => raw(seller.token, "POST", `/v1/subscriptions/${id}/renew`, {});
    const sub = await subscribe(monthly);
    // the period has not ended: nothing to renew, the subscription as it is
    const startOf = (res: { body: Record<string, unknown> }) => new Date(res.body.current_period_start as string).getTime();
    const early = await bare(sub.id);
    expect(early).toMatchObject({ status: 200, body: { id: sub.id } });
    expect(startOf(early)).toBe(sub.currentPeriodStart.getTime());
    expect(await ordersOf(sub.id)).toHaveLength(1);

    const end = new Date(Date.now() - 60_000);
    await setPeriod(sub.id, new Date(end.getTime() - 30 * 86_400_000), end);
    const first = await bare(sub.id);
    expect(first.status).toBe(200);
    // renewed at the period's recorded end, as the schedule would
    expect(startOf(first)).toBe(end.getTime());
    const again = await bare(sub.id);
    expect(again).toMatchObject({ status: 200, body: { current_period_start: first.body.current_period_start, current_period_end: first.body.current_period_end } });
    expect((await ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);

    // at once: one renewal
    const end2 = new Date(Date.now() - 1000);
    await setPeriod(sub.id, new Date(end2.getTime() - 30 * 86_400_000), end2);
    const racing = await Promise.all([bare(sub.id), bare(sub.id), bare(sub.id)]);
    expect(racing.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(racing.map(startOf))).toEqual(new Set([end2.getTime()]));
    expect(await ordersOf(sub.id)).toHaveLength(3);
  });

  it("a subscription that ended in the named period answers as it is; a period after the current one is a 422", async () => {
    const sub = await subscribe(monthly);
    expect((await renewPeriod(sub.id, new Date(sub.currentPeriodStart.getTime() + 1000))).status).toBe(422);
    expect((await renewPeriod(sub.id, "yesterday")).status).toBe(422);
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const ended = await renewPeriod(sub.id, sub.currentPeriodStart);
    expect(ended.body).toMatchObject({ status: "canceled" });
    const repeat = await renewPeriod(sub.id, sub.currentPeriodStart);
    expect(repeat).toMatchObject({ status: 200, body: { status: "canceled", ended_at: ended.body.ended_at } });
    expect(await ordersOf(sub.id)).toHaveLength(1);
  });

  it("the database holds one renewal order per subscription and period", async () => {
    const sub = await subscribe(monthly);
    await renewPeriod(sub.id, sub.currentPeriodStart);
    const [cycle] = await db().select().from(order).where(and(eq(order.subscriptionId, sub.id), eq(order.billingReason, "subscription_cycle")));
    expect(cycle?.renewedPeriodStart?.getTime()).toBe(sub.currentPeriodStart.getTime());
    const { id: _id, invoiceNumber, ...copy } = cycle!;
    const refused = await db()
      .insert(order)
      .values({ ...copy, invoiceNumber: `${invoiceNumber}-copy` })
      .then(() => null, (err: unknown) => err as { cause?: { code?: string; message?: string } });
    expect(refused?.cause?.code).toBe("23505");
    expect(refused?.cause?.message).toMatch(/order_subscription_renewed_period_uq/);
  });
});

describe("discount durations", () => {
  async function discounted(duration: "once" | "forever" | "repeating", months?: number) {
    const d = await seller.sdk.discounts.create({
      type: "percentage",
      basisPoints: 5000,
      name: `${duration} half`,
      duration,
      ...(months ? { durationInMonths: months } : {}),
    } as Parameters<Seller["sdk"]["discounts"]["create"]>[0]);
    return subscribe(monthly, { discountId: d.id });
  }

  it("once: only the first order", async () => {
    const sub = await discounted("once");
    await renew(sub.id);
    expect((await ordersOf(sub.id)).map((o) => o.discountAmount)).toEqual([450, 0]);
    expect((await ordersOf(sub.id)).at(-1)?.discountId).toBeNull();
  });

  it("forever: every order", async () => {
    const sub = await discounted("forever");
    await renew(sub.id);
    await renew(sub.id);
    expect((await ordersOf(sub.id)).map((o) => o.totalAmount)).toEqual([450, 450, 450]);
  });

  it("repeating: the periods that start within duration_in_months of the start", async () => {
    const sub = await discounted("repeating", 2);
    const start = new Date(addInterval(new Date(), "month", -2).getTime() - 86_400_000);
    await setPeriod(sub.id, start, addInterval(start, "month", 1));
    // the first renewal's period starts a month in (discounted); the second's two months in (not)
    expect(await renewals()).toBeGreaterThanOrEqual(1);
    expect(await renewals()).toBeGreaterThanOrEqual(1);
    expect(await renewals()).toBe(0);
    expect((await ordersOf(sub.id)).map((o) => o.discountAmount)).toEqual([450, 450, 0]);
  });
});

describe("the renewal schedule", () => {
  it("renews a subscription whose period has ended, from the period's end, once", async () => {
    const sub = await subscribe(monthly);
    const start = new Date(Date.now() - 40 * 86_400_000);
    const end = new Date(Date.now() - 60_000);
    await setPeriod(sub.id, start, end);
    expect(await renewals()).toBe(1);
    expect(await renewals()).toBe(0);
    const got = await seller.sdk.subscriptions.get({ id: sub.id });
    expect(got.currentPeriodStart.getTime()).toBe(end.getTime());
    expect(got.currentPeriodEnd.getTime()).toBe(addInterval(end, "month", 1).getTime());
    expect((await ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);
  });

  it("two runs at once renew a due subscription once", async () => {
    const sub = await subscribe(monthly);
    await setPeriod(sub.id, new Date(Date.now() - 40 * 86_400_000), new Date(Date.now() - 60_000));
    const counts = await Promise.all([renewals(), renewals()]);
    expect(counts[0] + counts[1]).toBe(1);
    expect(await ordersOf(sub.id)).toHaveLength(2);
  });

  it("batches renewed by two runs at once, several batches each: one order per subscription, invoice numbers gapless and in the events", async () => {
    const s = await createSeller(server, "renewal-batches");
    const product = await createProduct(s, "monthly");
    const subs: Subscription[] = [];
    for (let i = 0; i < 6; i += 1) {
      const checkout = await s.sdk.checkouts.create({ products: [product.id] });
      await pay(server, checkout, { customerEmail: uniqueBuyer("renewal-batch") });
      const [sub] = (await s.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
      if (!sub) throw new Error("no subscription");
      subs.push(sub);
    }
    for (const sub of subs) await setPeriod(sub.id, new Date(Date.now() - 40 * 86_400_000), new Date(Date.now() - 60_000));
    // batches of 2, two claiming transactions per run: the schedule's batch path, its numbering at each batch's end
    const run = () => runRenewals({ db: db(), processor: createPaymentProcessor(), baseURL: server.url, batch: 2, concurrency: 2 });
    const counts = await Promise.all([run(), run()]);
    expect(counts[0] + counts[1]).toBe(6);
    const orders = await db().select().from(order).where(eq(order.organizationId, s.organizationId)).orderBy(asc(order.createdAt));
    expect(orders).toHaveLength(12);
    for (const sub of subs) expect(orders.filter((o) => o.subscriptionId === sub.id).map((o) => o.billingReason).sort()).toEqual(["subscription_create", "subscription_cycle"]);
    const numbers = orders.map((o) => Number(o.invoiceNumber.split("-").at(-1))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const created = await db()
      .select({ payload: outbox.payload })
      .from(outbox)
      .where(and(eq(outbox.organizationId, s.organizationId), eq(outbox.type, "order.created"), sql`${outbox.payload} ->> 'billing_reason' = 'subscription_cycle'`));
    expect(created).toHaveLength(6);
    const byId = new Map(orders.map((o) => [o.id, o.invoiceNumber]));
    for (const { payload } of created) expect((payload as { invoice_number: string }).invoice_number).toBe(byId.get((payload as { id: string }).id));
  });

  it("ends a subscription canceled at period end: canceled, ended, grants revoked, no order", async () => {
    const sub = await subscribe(monthly);
    const canceled = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    expect(canceled).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
    const end = new Date(Date.now() - 60_000);
    await setPeriod(sub.id, new Date(Date.now() - 30 * 86_400_000), end);
    expect(await renewals()).toBe(1);
    const got = await seller.sdk.subscriptions.get({ id: sub.id });
    expect(got).toMatchObject({ status: "canceled", cancelAtPeriodEnd: true, endsAt: end, canceledAt: canceled.canceledAt });
    expect(got.endedAt).toBeInstanceOf(Date);
    expect(await ordersOf(sub.id)).toHaveLength(1);
    const grants = (await seller.sdk.benefits.grants({ id: perk, customerId: sub.customerId })).result.items;
    expect(grants).toMatchObject([{ isGranted: false, isRevoked: true }]);
    const types = (await eventsOf(sub.id)).map((e) => e.type);
    expect(types.slice(-3)).toEqual(["subscription.updated", "subscription.revoked", "benefit_grant.revoked"]);
    expect(await raw(seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, {})).toMatchObject({ status: 403, body: { error: "AlreadyCanceledSubscription" } });
    expect(await renewals()).toBe(0);
  });
});

describe("the schedule's batch: renewals written together (renewal/writes.ts)", () => {
  /** A seller whose monthly product grants a perk, and `cards.length` subscriptions of it paid with those cards (a trial product for 0341). */
  async function batchOf(name: string, cards: string[]) {
    const s = await createSeller(server, name);
    const benefit = (await s.sdk.benefits.create({ type: "custom", description: `${name} perk`, properties: {} })).id;
    const products = { monthly: await createProduct(s, "monthly"), trial: await createProduct(s, "trial") };
    for (const p of Object.values(products)) await s.sdk.products.updateBenefits({ id: p.id, productBenefitsUpdate: { benefits: [benefit] } });
    const subs: Subscription[] = [];
    for (const card of cards) {
      const product = card.startsWith("4000") ? products.trial : products.monthly;
      const checkout = await s.sdk.checkouts.create({ products: [product.id] });
      await pay(server, checkout, { customerEmail: uniqueBuyer(name) }, card);
      const [sub] = (await s.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
      if (!sub) throw new Error("no subscription");
      subs.push(sub);
    }
    const end = new Date(Date.now() - 60_000);
    for (const sub of subs) await setPeriod(sub.id, new Date(end.getTime() - 30 * 86_400_000), end, sub.status === "trialing" ? { trialEnd: end } : {});
    return { s, subs, end };
  }
  const runBatch = (organizationId: string) => runRenewals({ db: db(), processor: createPaymentProcessor(), baseURL: server.url, batch: 10, organizationId });
  const cycleOrderOf = async (subscriptionId: string) =>
    (await db().select().from(order).where(and(eq(order.subscriptionId, subscriptionId), eq(order.billingReason, "subscription_cycle"))))[0];
  /** The renewal's event types, in outbox order (after the purchase's). */
  const renewalEvents = async (subscriptionId: string, organizationId: string) => {
    const rows = await db()
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
      const row = (await db().select().from(subscription).where(eq(subscription.id, paid.id)))[0];
      expect(row).toMatchObject({ status: "active", currentPeriodStart: end, currentPeriodEnd: addInterval(end, "month", 1) });
      expect(row?.modifiedAt?.getTime()).toBeGreaterThan(end.getTime());
      const cycle = await cycleOrderOf(paid.id);
      expect(cycle).toMatchObject({ status: "paid", totalAmount: 900, renewedPeriodStart: new Date(end.getTime() - 30 * 86_400_000) });
      expect(await db().select().from(payment).where(eq(payment.orderId, cycle?.id ?? ""))).toMatchObject([{ status: "succeeded", amount: 900, attempt: "renewal", method: "card" }]);
      expect(await renewalEvents(paid.id, s.organizationId)).toEqual(["order.created", "order.paid", "subscription.updated", "benefit_grant.cycled"]);
      const grants = (await s.sdk.benefits.grants({ id: (await s.sdk.benefits.list({})).result.items[0]?.id ?? "", customerId: paid.customerId })).result.items;
      expect(grants[0]?.modifiedAt?.getTime()).toBeGreaterThan(end.getTime());
    }
    // the declined trial: past_due, its order pending, the failed attempt recorded, dunning started
    expect((await db().select().from(subscription).where(eq(subscription.id, declined.id)))[0]).toMatchObject({ status: "past_due", trialEnd: end, currentPeriodStart: end });
    const pending = await cycleOrderOf(declined.id);
    expect(pending).toMatchObject({ status: "pending", totalAmount: 1200 });
    expect(await db().select().from(payment).where(eq(payment.orderId, pending?.id ?? ""))).toMatchObject([{ status: "failed", declineReason: "card_declined", attempt: "renewal" }]);
    const [dunning] = await db().select().from(orderDunning).where(eq(orderDunning.orderId, pending?.id ?? ""));
    expect(dunning).toMatchObject({ attempts: 1, manualAttempts: 0, subscriptionId: declined.id });
    expect(Math.round(((dunning?.nextAttemptAt?.getTime() ?? 0) - (dunning?.createdAt.getTime() ?? 0)) / 86_400_000)).toBe(3);
    expect(await renewalEvents(declined.id, s.organizationId)).toEqual(["order.created", "subscription.updated", "subscription.past_due"]);
    // three purchases, three renewals: invoice numbers 1–6
    const numbers = (await db().select().from(order).where(eq(order.organizationId, s.organizationId))).map((o) => Number(o.invoiceNumber.split("-").at(-1)));
    expect(numbers.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a renewal whose rows cannot be written fails alone: the rest of its batch is renewed, it is renewed later", async () => {
    const { s, subs, end } = await batchOf("batch-fallback", ["4242 4242 4242 4242", "4242 4242 4242 4242", "4242 4242 4242 4242"]);
    const [, blocked] = subs as [Subscription, Subscription, Subscription];
    // an order already names the period blocked renews (one renewal per period: a unique index), so the batch's
    // order statement fails
    const [purchase] = await db().select().from(order).where(eq(order.subscriptionId, blocked.id));
    if (!purchase) throw new Error("no order");
    const squatter = randomUUID();
    await db()
      .insert(order)
      .values({ ...purchase, id: squatter, checkoutId: null, invoiceNumber: `squatter-${squatter}`, billingReason: "subscription_cycle", renewedPeriodStart: new Date(end.getTime() - 30 * 86_400_000) });
    expect(await runBatch(s.organizationId)).toBe(2);
    for (const sub of subs) {
      const cycle = await cycleOrderOf(sub.id);
      if (sub.id === blocked.id) {
        expect(cycle?.id).toBe(squatter);
        expect((await db().select().from(subscription).where(eq(subscription.id, sub.id)))[0]).toMatchObject({ status: "active", currentPeriodEnd: end });
        // its events stayed out of the outbox: only the purchase's order.created
        const created = await db()
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
    expect((await db().select().from(payment).where(eq(payment.customerId, blocked.customerId))).map((p) => p.attempt)).toEqual(["checkout"]);
    // the two renewals took numbers 4 and 5 (the squatter has none of the counter's)
    const numbered = (await db().select().from(order).where(eq(order.organizationId, s.organizationId))).filter((o) => !o.invoiceNumber.startsWith("squatter-"));
    expect(numbered.map((o) => Number(o.invoiceNumber.split("-").at(-1))).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5]);
    // once the squatter is gone the next run renews it
    await db().delete(order).where(eq(order.id, squatter));
    expect(await runBatch(s.organizationId)).toBe(1);
    expect(await cycleOrderOf(blocked.id)).toMatchObject({ status: "paid", invoiceNumber: expect.stringMatching(/-0006$/) });
  });
});

describe("webhooks of a renewal", () => {
  it("delivers order.created, order.paid, subscription.updated, benefit_grant.cycled and subscription.revoked, valid for both SDKs", async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const s = await createSeller(server, "renewal-hooks");
      const endpoint = await s.sdk.webhooks.createWebhookEndpoint({
        url: `${receiver.url}/renewal`,
        format: "raw",
        events: ["order.created", "order.paid", "subscription.updated", "subscription.revoked", "benefit_grant.cycled", "benefit_grant.revoked"],
      });
      const benefit = (await s.sdk.benefits.create({ type: "custom", description: "Hooks perk", properties: {} })).id;
      const product = await createProduct(s, "monthly");
      await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit] } });
      const checkout = await s.sdk.checkouts.create({ products: [product.id] });
      await pay(server, checkout);
      const [sub] = (await s.sdk.subscriptions.list({ productId: product.id })).result.items;
      if (!sub) throw new Error("no subscription");
      await server.worker.start();
      const renewed = await raw(s.token, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
      expect(renewed.status).toBe(200);
      await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
      const ending = { current_period_start: renewed.body.current_period_start };
      expect((await raw(s.token, "POST", `/v1/subscriptions/${sub.id}/renew`, ending)).status).toBe(200);

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
      await server.worker.stop();
      await receiver.stop();
    }
  });
});
