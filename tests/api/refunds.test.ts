// /v1/refunds through @polar-sh/sdk 0.47.1 (list again through 0.49.0): full and partial refunds of orders
// bought through checkouts, the order's refunded amounts and status, Polar's errors (too high, refunded
// already, validation) changing nothing, concurrent refunds of one order never giving back more than it took,
// revoke_benefits, list filters, scopes, tenancy, and the webhook events a refund delivers.
import { eq } from "drizzle-orm";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import type { Order } from "@polar-sh/sdk/models/components/order.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { RefundedAlready } from "@polar-sh/sdk/models/errors/refundedalready.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benefitGrant, order as orderTable, outbox, refund as refundTable } from "../../server/db/schema/index.js";
import { createRefund } from "../../server/billing/refunds/service.js";
import { createTestProcessor } from "../../server/payments/test-processor.js";
import { locs, rawRequest } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { Receiver, type Hit } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let receiver: Receiver;
/** A one-time product at 2500 usd with a custom benefit. */
let oneTime: Product;
let monthly: Product;
let benefitId: string;

const db = () => server.database.db;
const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);

async function buy(product: Product = oneTime, checkoutExtra: Record<string, unknown> = {}): Promise<Order> {
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], ...checkoutExtra });
  await pay(server, checkout);
  const [o] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!o) throw new Error("no order");
  return o;
}

const refundRows = (orderId: string) => db().select().from(refundTable).where(eq(refundTable.orderId, orderId));
const orderRow = async (orderId: string) => (await db().select().from(orderTable).where(eq(orderTable.id, orderId)))[0]!;
const grantsOf = (orderId: string) => db().select().from(benefitGrant).where(eq(benefitGrant.orderId, orderId));

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "refunds");
  other = await createSeller(server, "refunds-other");
  const benefit = await seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: { note: "hi" } });
  benefitId = benefit.id;
  [oneTime, monthly] = await Promise.all([createProduct(seller, "fixed"), createProduct(seller, "monthly")]);
  await Promise.all([
    seller.sdk.products.updateBenefits({ id: oneTime.id, productBenefitsUpdate: { benefits: [benefitId] } }),
    seller.sdk.products.updateBenefits({ id: monthly.id, productBenefitsUpdate: { benefits: [benefitId] } }),
  ]);
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

describe("POST /v1/refunds/ (SDK 0.47.1)", () => {
  it("refunds a whole order: the refund succeeds and the order is refunded", async () => {
    const order = await buy();
    expect(order.totalAmount).toBe(2500);
    const refund = await seller.sdk.refunds.create({
      orderId: order.id,
      reason: "customer_request",
      amount: 2500,
      comment: "asked by mail",
      metadata: { ticket: "T-1", urgent: true },
    });
    expect(refund).toMatchObject({
      status: "succeeded",
      reason: "customer_request",
      amount: 2500,
      taxAmount: 0,
      currency: "usd",
      organizationId: seller.organizationId,
      orderId: order.id,
      subscriptionId: null,
      customerId: order.customerId,
      revokeBenefits: false,
      metadata: { ticket: "T-1", urgent: true },
      dispute: null,
    });
    expect(refund.createdAt).toBeInstanceOf(Date);

    const after = await seller.sdk.orders.get({ id: order.id });
    expect(after).toMatchObject({ status: "refunded", paid: true, refundedAmount: 2500, refundedTaxAmount: 0 });
    expect(after.modifiedAt).toBeInstanceOf(Date);
    expect(await seller.sdk049.orders.get({ id: order.id })).toMatchObject({ refundableAmount: 0, refundableTaxAmount: 0 });
    // the grants stay without revoke_benefits
    expect((await grantsOf(order.id)).every((g) => g.revokedAt === null)).toBe(true);
    const [row] = await refundRows(order.id);
    expect(row).toMatchObject({ comment: "asked by mail", processorRefundId: expect.stringMatching(/^re_test_/) });
  });

  it("refunds in parts: partially_refunded, then refunded; then RefundedAlready (403)", async () => {
    const order = await buy();
    const first = await seller.sdk.refunds.create({ orderId: order.id, reason: "service_disruption", amount: 1000 });
    expect(first).toMatchObject({ status: "succeeded", amount: 1000 });
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "partially_refunded", refundedAmount: 1000 });
    expect(await seller.sdk049.orders.get({ id: order.id })).toMatchObject({ status: "partially_refunded", refundableAmount: 1500 });

    await seller.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 1500 });
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "refunded", refundedAmount: 2500 });

    const again = seller.sdk.refunds.create({ orderId: order.id, reason: "duplicate", amount: 1 });
    await expect(again).rejects.toBeInstanceOf(RefundedAlready);
    const res = await raw(seller.token, "POST", "/v1/refunds/", { order_id: order.id, reason: "duplicate", amount: 1 });
    expect(res).toEqual({ status: 403, body: { error: "RefundedAlready", detail: `Order is already fully refunded: ${order.id}` } });
    expect(await refundRows(order.id)).toHaveLength(2);
  });

  it("refuses more than what is left (400 RefundAmountTooHigh), changing nothing", async () => {
    const order = await buy();
    const before = await orderRow(order.id);
    const res = await raw(seller.token, "POST", "/v1/refunds/", { order_id: order.id, reason: "other", amount: 2501 });
    expect(res).toEqual({ status: 400, body: { error: "RefundAmountTooHigh", detail: "Refund amount exceeds remaining order balance: $25.00" } });
    await expect(seller.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 2501 })).rejects.toMatchObject({ statusCode: 400 });
    await seller.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 2000 });
    const left = await raw(seller.token, "POST", "/v1/refunds/", { order_id: order.id, reason: "other", amount: 501 });
    expect(left.body).toEqual({ error: "RefundAmountTooHigh", detail: "Refund amount exceeds remaining order balance: $5.00" });
    expect(await orderRow(order.id)).toMatchObject({ status: "partially_refunded", refundedAmount: 2000, invoiceNumber: before.invoiceNumber });
    expect(await refundRows(order.id)).toHaveLength(1);
  });

  it("never refunds more than the order's total under concurrent requests", async () => {
    const order = await buy();
    const parts = await Promise.all(
      Array.from({ length: 6 }, () => raw(seller.token, "POST", "/v1/refunds/", { order_id: order.id, reason: "other", amount: 700 })),
    );
    expect(parts.filter((r) => r.status === 201)).toHaveLength(3);
    expect(parts.filter((r) => r.status === 400).map((r) => r.body.error)).toEqual(["RefundAmountTooHigh", "RefundAmountTooHigh", "RefundAmountTooHigh"]);
    expect(await orderRow(order.id)).toMatchObject({ status: "partially_refunded", refundedAmount: 2100 });
    expect((await refundRows(order.id)).reduce((sum, r) => sum + r.amount, 0)).toBe(2100);

    const whole = await buy();
    const fulls = await Promise.all(
      Array.from({ length: 4 }, () => raw(seller.token, "POST", "/v1/refunds/", { order_id: whole.id, reason: "duplicate", amount: 2500 })),
    );
    expect(fulls.map((r) => r.status).sort()).toEqual([201, 403, 403, 403]);
    expect(await orderRow(whole.id)).toMatchObject({ status: "refunded", refundedAmount: 2500 });
    expect(await refundRows(whole.id)).toHaveLength(1);
  });

  it("revokes the order's benefit grants with revoke_benefits (one-time purchases only)", async () => {
    const order = await buy();
    const granted = await grantsOf(order.id);
    expect(granted).toHaveLength(1);
    expect(granted[0]!.revokedAt).toBeNull();

    const refund = await seller.sdk.refunds.create({ orderId: order.id, reason: "fraudulent", amount: 500, revokeBenefits: true });
    expect(refund.revokeBenefits).toBe(true);
    const [grant] = (await seller.sdk.benefits.grants({ id: benefitId, customerId: order.customerId })).result.items;
    expect(grant).toMatchObject({ orderId: order.id, isRevoked: true, isGranted: false });
    expect(grant!.revokedAt).toBeInstanceOf(Date);
    const state = await seller.sdk.customers.getState({ id: order.customerId });
    expect(state.grantedBenefits.map((g) => g.benefitId)).not.toContain(benefitId);

    // a subscription's benefits end with the subscription, not with a refund of one of its orders
    const subOrder = await buy(monthly);
    const res = await raw(seller.token, "POST", "/v1/refunds/", { order_id: subOrder.id, reason: "other", amount: 100, revoke_benefits: true });
    expect(res).toEqual({
      status: 400,
      body: { error: "RevokeSubscriptionBenefitsProhibited", detail: "Subscription benefits can only be revoked upon cancellation" },
    });
    expect(await refundRows(subOrder.id)).toHaveLength(0);
    expect(await orderRow(subOrder.id)).toMatchObject({ status: "paid", refundedAmount: 0 });
    // without revoking, a subscription's order can be refunded
    const subRefund = await seller.sdk.refunds.create({ orderId: subOrder.id, reason: "other", amount: 900 });
    expect(subRefund).toMatchObject({ subscriptionId: subOrder.subscriptionId, amount: 900, status: "succeeded" });
  });

  it("gives the tax back in proportion, and what is left of it with the last refund", async () => {
    const order = await buy();
    // the order is given a tax of 500 on its 2500 net, as a taxed sale would have (tests/api/tax.test.ts buys taxed
    // ones)
    await db().update(orderTable).set({ taxAmount: 500, totalAmount: 3000 }).where(eq(orderTable.id, order.id));
    const first = await seller.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 999 });
    expect(first).toMatchObject({ amount: 999, taxAmount: 200 });
    expect(await seller.sdk049.orders.get({ id: order.id })).toMatchObject({
      refundedAmount: 999,
      refundedTaxAmount: 200,
      refundableAmount: 1501,
      refundableTaxAmount: 300,
    });
    const last = await seller.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 1501 });
    expect(last).toMatchObject({ amount: 1501, taxAmount: 300 });
    expect(await orderRow(order.id)).toMatchObject({ status: "refunded", refundedAmount: 2500, refundedTaxAmount: 500 });
  });

  it("keeps nothing when the processor refuses the refund", async () => {
    const order = await buy();
    const refusing = { ...createTestProcessor(), refund: async () => ({ ok: false as const, code: "charge_disputed", message: "The charge is disputed." }) };
    const outboxBefore = (await db().select().from(outbox)).length;
    await expect(
      createRefund({ db: db(), processor: refusing }, seller.organizationId, { order_id: order.id, reason: "other", amount: 100, revoke_benefits: true }),
    ).rejects.toMatchObject({ status: 400, body: { error: "PaymentError", detail: "The charge is disputed." } });
    expect(await refundRows(order.id)).toHaveLength(0);
    expect(await orderRow(order.id)).toMatchObject({ status: "paid", refundedAmount: 0 });
    expect((await grantsOf(order.id)).every((g) => g.revokedAt === null)).toBe(true);
    expect((await db().select().from(outbox)).length).toBe(outboxBefore);
  });

  it("answers 422 for invalid bodies, changing nothing", async () => {
    const order = await buy();
    const cases: Array<[unknown, unknown[]]> = [
      [{ reason: "other", amount: 100 }, ["body", "order_id"]],
      [{ order_id: "nope", reason: "other", amount: 100 }, ["body", "order_id"]],
      [{ order_id: order.id, amount: 100 }, ["body", "reason"]],
      [{ order_id: order.id, reason: "dispute_prevention", amount: 100 }, ["body", "reason"]],
      [{ order_id: order.id, reason: "because", amount: 100 }, ["body", "reason"]],
      [{ order_id: order.id, reason: "other" }, ["body", "amount"]],
      [{ order_id: order.id, reason: "other", amount: 0 }, ["body", "amount"]],
      [{ order_id: order.id, reason: "other", amount: -5 }, ["body", "amount"]],
      [{ order_id: order.id, reason: "other", amount: 1.5 }, ["body", "amount"]],
      [{ order_id: order.id, reason: "other", amount: "100" }, ["body", "amount"]],
      [{ order_id: order.id, reason: "other", amount: 100, revoke_benefits: "yes" }, ["body", "revoke_benefits"]],
      [{ order_id: order.id, reason: "other", amount: 100, metadata: { nested: { a: 1 } } }, ["body", "metadata", "nested"]],
      [{ order_id: order.id, reason: "other", amount: 100, comment: "a\u0000b" }, ["body", "comment"]],
    ];
    for (const [body, loc] of cases) {
      const res = await raw(seller.token, "POST", "/v1/refunds/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body), JSON.stringify(body)).toContainEqual(loc);
    }
    const broken = await raw(seller.token, "POST", "/v1/refunds/", "{not json");
    expect(broken.status).toBe(422);
    for (const query of ["limit=0", "page=x", "id=nope", "order_id=1", "succeeded=maybe", "sorting=name"]) {
      const res = await raw(seller.token, "GET", `/v1/refunds/?${query}`);
      expect(res.status, query).toBe(422);
    }
    expect(await refundRows(order.id)).toHaveLength(0);
    expect(await orderRow(order.id)).toMatchObject({ status: "paid", refundedAmount: 0 });
  });

  it("answers 404 for an order of another organization or none, changing nothing", async () => {
    const order = await buy();
    const foreign = await raw(other.token, "POST", "/v1/refunds/", { order_id: order.id, reason: "other", amount: 100 });
    expect(foreign).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Order not found" } });
    await expect(other.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 100 })).rejects.toMatchObject({ statusCode: 404 });
    const unknown = await raw(seller.token, "POST", "/v1/refunds/", { order_id: crypto.randomUUID(), reason: "other", amount: 100 });
    expect(unknown.status).toBe(404);
    expect(await refundRows(order.id)).toHaveLength(0);

    await seller.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 100 });
    expect((await other.sdk.refunds.list({ limit: 100 })).result.items).toEqual([]);
    expect((await other.sdk.refunds.list({ orderId: order.id })).result.pagination.totalCount).toBe(0);
    await expect(other.sdk.refunds.list({ organizationId: seller.organizationId })).rejects.toMatchObject({ statusCode: 404 });
  });

  it("needs the refunds scopes", async () => {
    const order = await buy();
    const reader = sdkFor(server, await seller.createKey({ refunds: ["read"] }));
    const noRefunds = sdkFor(server, await seller.createKey({ orders: ["write"] }));
    await reader.refunds.list({});
    await expect(reader.refunds.create({ orderId: order.id, reason: "other", amount: 100 })).rejects.toMatchObject({ statusCode: 403 });
    await expect(noRefunds.refunds.list({})).rejects.toMatchObject({ statusCode: 403 });
    await expect(noRefunds.refunds.create({ orderId: order.id, reason: "other", amount: 100 })).rejects.toMatchObject({ statusCode: 403 });
    expect(await refundRows(order.id)).toHaveLength(0);
    const writer = sdkFor(server, await seller.createKey({ refunds: ["write"] }));
    expect(await writer.refunds.create({ orderId: order.id, reason: "other", amount: 100 })).toMatchObject({ status: "succeeded" });
  });
});

describe("GET /v1/refunds/ (SDK 0.49.0 and 0.47.1)", () => {
  it("filters by id, order, subscription, customer and external customer; sorts and paginates", async () => {
    const s = await createSeller(server, "refund-list");
    const product = await createProduct(s, "fixed");
    const plan = await createProduct(s, "monthly");
    const buyFor = async (p: Product, extra: Record<string, unknown> = {}) => {
      const checkout = await s.sdk.checkouts.create({ products: [p.id], ...extra });
      await pay(server, checkout);
      return (await s.sdk.orders.list({ checkoutId: checkout.id })).result.items[0]!;
    };
    const externalId = `ext-refund-${Date.now()}`;
    const a = await buyFor(product, { externalCustomerId: externalId });
    const b = await buyFor(product);
    const sub = await buyFor(plan);
    const r1 = await s.sdk.refunds.create({ orderId: a.id, reason: "other", amount: 300 });
    const r2 = await s.sdk.refunds.create({ orderId: a.id, reason: "other", amount: 100 });
    const r3 = await s.sdk.refunds.create({ orderId: b.id, reason: "duplicate", amount: 2500 });
    const r4 = await s.sdk.refunds.create({ orderId: sub.id, reason: "customer_request", amount: 200 });

    const ids = async (q: Parameters<typeof s.sdk049.refunds.list>[0]) => (await s.sdk049.refunds.list(q)).result.items.map((r) => r.id);
    expect(await ids({})).toEqual([r4.id, r3.id, r2.id, r1.id]);
    expect(await ids({ sorting: ["created_at"] })).toEqual([r1.id, r2.id, r3.id, r4.id]);
    expect(await ids({ sorting: ["-amount"] })).toEqual([r3.id, r1.id, r4.id, r2.id]);
    expect(await ids({ sorting: ["amount"] })).toEqual([r2.id, r4.id, r1.id, r3.id]);
    expect(await ids({ id: [r1.id, r3.id] })).toEqual([r3.id, r1.id]);
    expect(await ids({ id: r2.id.toUpperCase() })).toEqual([r2.id]);
    expect(await ids({ orderId: a.id })).toEqual([r2.id, r1.id]);
    expect(await ids({ orderId: [a.id, sub.id] })).toEqual([r4.id, r2.id, r1.id]);
    expect(await ids({ subscriptionId: sub.subscriptionId! })).toEqual([r4.id]);
    expect(await ids({ customerId: b.customerId })).toEqual([r3.id]);
    expect(await ids({ externalCustomerId: externalId })).toEqual([r2.id, r1.id]);
    expect(await ids({ externalCustomerId: "nobody" })).toEqual([]);
    expect(await ids({ externalCustomerId: externalId, customerId: b.customerId })).toEqual([]);
    expect(await ids({ succeeded: true })).toHaveLength(4);
    // Polar's filter: false does not filter
    expect(await ids({ succeeded: false })).toHaveLength(4);
    expect(await ids({ organizationId: s.organizationId })).toHaveLength(4);

    const page2 = await s.sdk049.refunds.list({ limit: 3, page: 2 });
    expect(page2.result.items.map((r) => r.id)).toEqual([r1.id]);
    expect(page2.result.pagination).toEqual({ totalCount: 4, maxPage: 2 });
    const past = await s.sdk.refunds.list({ limit: 3, page: 5 });
    expect(past.result).toEqual({ items: [], pagination: { totalCount: 4, maxPage: 2 } });

    // 0.47.1 reads the same page
    const list047 = await s.sdk.refunds.list({ orderId: a.id });
    expect(list047.result.items).toEqual([r2, r1]);
  });
});

describe("refund webhooks", () => {
  it("delivers refund.created, refund.updated, order.updated, order.refunded and benefit_grant.revoked, valid for both SDKs", async () => {
    const path = "/refund-events";
    const types = ["refund.created", "refund.updated", "order.updated", "order.refunded", "benefit_grant.revoked", "customer.state_changed"] as const;
    const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events: [...types] });
    const order = await buy();
    const refund = await seller.sdk.refunds.create({ orderId: order.id, reason: "satisfaction_guarantee", amount: 2500, revokeBenefits: true });

    const typeOf = (h: Hit) => (JSON.parse(h.body) as { type: string }).type;
    // the purchase's own customer.state_changed comes too: wait for the one after the revocation
    const revokedState = (h: Hit) => {
      const e = JSON.parse(h.body) as { type: string; data: { id?: string; granted_benefits?: unknown[] } };
      return e.type === "customer.state_changed" && e.data.id === order.customerId && e.data.granted_benefits?.length === 0;
    };
    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      return types.every((t) => mine.some((h) => typeOf(h) === t)) && mine.some(revokedState) && mine;
    }, 20_000);
    const byType = new Map<string, unknown>();
    for (const hit of hits) {
      const event = validateEvent(hit.body, hit.headers, endpoint.secret);
      validateEvent049(hit.body, hit.headers, endpoint.secret);
      if (event.type !== "customer.state_changed" || revokedState(hit)) byType.set(event.type, event);
    }
    expect(byType.get("refund.created")).toMatchObject({ data: { id: refund.id, status: "pending", amount: 2500, modifiedAt: null } });
    expect(byType.get("refund.updated")).toMatchObject({ data: { id: refund.id, status: "succeeded", orderId: order.id, revokeBenefits: true } });
    expect(byType.get("order.updated")).toMatchObject({ data: { id: order.id, status: "refunded", refundedAmount: 2500 } });
    expect(byType.get("order.refunded")).toMatchObject({ data: { id: order.id, status: "refunded", refundedAmount: 2500 } });
    expect(byType.get("benefit_grant.revoked")).toMatchObject({ data: { orderId: order.id, benefitId, isRevoked: true } });
    expect(byType.get("customer.state_changed")).toMatchObject({ data: { id: order.customerId, grantedBenefits: [] } });
    // refund.created, refund.updated, order.updated and order.refunded were recorded in this order
    const recorded = await db().select({ type: outbox.type, payload: outbox.payload }).from(outbox).orderBy(outbox.createdAt);
    const forRefund = recorded.filter((r) => r.payload.id === refund.id || r.payload.id === order.id).map((r) => r.type);
    expect(forRefund.slice(-4)).toEqual(["refund.created", "refund.updated", "order.updated", "order.refunded"]);
  });
});
