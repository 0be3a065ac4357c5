// POST /v1/subscriptions/ (`subscriptions.create`) through @polar-sh/sdk 0.47.1 and 0.49.0: a free
// recurring product's subscription created by the seller (active, benefits granted), a trial product's (trialing,
// nothing charged), by customer id or external id; products that need a checkout and unknown customers are 422 in
// Polar's shape; another organization's customer or product is 422 as unknown; the events it records are valid
// for both SDKs' validateEvent.
import { and, asc, eq, sql } from "drizzle-orm";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benefitGrant, outbox } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let free: Product;
let trial: Product;
let perk: string;

const db = () => server.database.db;
const raw = (method: string, path: string, body?: unknown, s: Seller = seller) => rawRequest(server.url, s.token, method, path, body);
const issues = (body: { detail?: Array<{ loc: unknown; msg: string; type: string }> }) => body.detail?.map(({ loc, msg, type }) => ({ loc, msg, type }));

const newCustomer = (s: Seller = seller, externalId?: string) => s.sdk.customers.create({ email: uniqueBuyer("subcreate"), ...(externalId ? { externalId } : {}) });

async function eventTypes(subscriptionId: string) {
  const rows = await db()
    .select({ type: outbox.type })
    .from(outbox)
    .where(sql`${outbox.payload} ->> 'id' = ${subscriptionId} OR ${outbox.payload} ->> 'subscription_id' = ${subscriptionId}`)
    .orderBy(asc(outbox.createdAt));
  return rows.map((r) => r.type);
}

beforeAll(async () => {
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  seller = await createSeller(server, "subcreate");
  other = await createSeller(server, "subcreate-other");
  perk = (await seller.sdk.benefits.create({ type: "custom", description: "Community access", properties: {} })).id;
  free = await createProduct(seller, "free", { recurringInterval: "month" });
  await seller.sdk.products.updateBenefits({ id: free.id, productBenefitsUpdate: { benefits: [perk] } });
  trial = await createProduct(seller, "trial");
});
afterAll(async () => server?.close());

describe("POST /v1/subscriptions/", () => {
  it("creates an active subscription on a free product for a customer (0.47.1): 201, benefits granted, its events", async () => {
    const customer = await newCustomer();
    const before = Date.now();
    const sub = await seller.sdk.subscriptions.create({ productId: free.id, customerId: customer.id, metadata: { plan: "community", seats: 1 } });
    expect(sub).toMatchObject({
      status: "active",
      amount: 0,
      currency: "usd",
      recurringInterval: "month",
      customerId: customer.id,
      productId: free.id,
      checkoutId: null,
      discountId: null,
      cancelAtPeriodEnd: false,
      trialStart: null,
      trialEnd: null,
      metadata: { plan: "community", seats: 1 },
    });
    expect(sub.prices.map((p) => p.id)).toEqual([free.prices[0]!.id]);
    // the free price (created as `free` through 0.47.1) reads through 0.49.0 as well: a fixed price of 0
    const read049 = await seller.sdk049.subscriptions.get({ id: sub.id });
    expect(read049.prices[0]).toMatchObject({ id: free.prices[0]!.id, amountType: "fixed", priceAmount: 0 });
    expect(read049.product.prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 0 });
    expect(sub.currentPeriodStart.getTime()).toBeGreaterThanOrEqual(before - 1000);
    // a month later
    const end = new Date(sub.currentPeriodStart);
    end.setUTCMonth(end.getUTCMonth() + 1);
    expect(sub.currentPeriodEnd?.toISOString()).toBe(end.toISOString());
    const grants = await db().select().from(benefitGrant).where(and(eq(benefitGrant.subscriptionId, sub.id), eq(benefitGrant.benefitId, perk)));
    expect(grants.map((g) => g.grantedAt !== null)).toEqual([true]);
    expect(await eventTypes(sub.id)).toEqual(["subscription.created", "subscription.active", "benefit_grant.created"]);
    const state = await seller.sdk.customers.getState({ id: customer.id });
    expect(state.activeSubscriptions.map((s) => s.id)).toEqual([sub.id]);
    expect(state.grantedBenefits.map((g) => g.benefitId)).toEqual([perk]);
    // no order: nothing was billed
    expect((await seller.sdk.orders.list({ subscriptionId: sub.id })).result.items).toEqual([]);
    expect(await seller.sdk.subscriptions.get({ id: sub.id })).toEqual(sub);
  });

  it("creates a trialing subscription on a trial product by external customer id (0.49.0), charging nothing", async () => {
    const externalId = `ext-${Date.now()}`;
    const customer = await newCustomer(seller, externalId);
    const sub = await seller.sdk049.subscriptions.create({ productId: trial.id, externalCustomerId: externalId });
    expect(sub).toMatchObject({ status: "trialing", amount: 1200, customerId: customer.id, productId: trial.id, metadata: {} });
    expect(sub.trialStart).not.toBeNull();
    // 14 days of trial: the period ends with it
    expect(sub.trialEnd!.getTime() - sub.trialStart!.getTime()).toBe(14 * 86_400_000);
    expect(sub.currentPeriodEnd?.getTime()).toBe(sub.trialEnd!.getTime());
    expect(await eventTypes(sub.id)).toEqual(["subscription.created"]);
  });

  it("creates an active subscription on a fixed price of 0 (0.49.0's free price) through 0.49.0", async () => {
    const customer = await newCustomer();
    const zero = await seller.sdk049.products.create({ name: "Zero base", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 0, priceCurrency: "usd" }] });
    const sub = await seller.sdk049.subscriptions.create({ productId: zero.id, customerId: customer.id });
    expect(sub).toMatchObject({ status: "active", amount: 0, trialStart: null, productId: zero.id });
    expect(sub.prices.map((p) => p.amountType)).toEqual(["fixed"]);
  });

  it("answers 422 in Polar's shape for bad input, products that need a checkout and unknown customers", async () => {
    const customer = await newCustomer();
    const paid = await createProduct(seller, "monthly");
    const oneTime = await createProduct(seller, "free");
    const archived = await createProduct(seller, "free", { recurringInterval: "month" });
    await seller.sdk.products.update({ id: archived.id, productUpdate: { isArchived: true } });
    const foreignProduct = await createProduct(other, "free", { recurringInterval: "month" });
    const foreignCustomer = await newCustomer(other);
    const cases: Array<[unknown, Array<{ loc: unknown; msg: string; type: string }> | string[]]> = [
      [
        { product_id: paid.id, customer_id: customer.id },
        [{ loc: ["body", "product_id"], msg: "Product is not free and has no trial: the customer subscribes through a checkout.", type: "value_error" }],
      ],
      [{ product_id: oneTime.id, customer_id: customer.id }, [{ loc: ["body", "product_id"], msg: "Product is not a subscription product.", type: "value_error" }]],
      [{ product_id: archived.id, customer_id: customer.id }, [{ loc: ["body", "product_id"], msg: "Product does not exist.", type: "value_error" }]],
      [{ product_id: foreignProduct.id, customer_id: customer.id }, [{ loc: ["body", "product_id"], msg: "Product does not exist.", type: "value_error" }]],
      [{ product_id: free.id, customer_id: foreignCustomer.id }, [{ loc: ["body", "customer_id"], msg: "Customer does not exist.", type: "value_error" }]],
      [{ product_id: free.id, external_customer_id: "nobody" }, [{ loc: ["body", "external_customer_id"], msg: "Customer does not exist.", type: "value_error" }]],
      [{ product_id: free.id }, ["body,customer_id"]],
      [{ customer_id: customer.id }, ["body,product_id"]],
      [{ product_id: "nope", customer_id: customer.id }, ["body,product_id"]],
      [{ product_id: free.id, customer_id: customer.id, metadata: { ["k".repeat(41)]: 1 } }, ["body,metadata"]],
      [[], ["body"]],
    ];
    for (const [body, want] of cases) {
      const res = await raw("POST", "/v1/subscriptions/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      if (typeof want[0] === "string") expect((res.body.detail as Array<{ loc: string[] }>).map((d) => d.loc.slice(0, 2).join(",")), JSON.stringify(body)).toEqual(want);
      else expect(issues(res.body), JSON.stringify(body)).toEqual(want);
    }
    // the SDK raises its HTTPValidationError
    await expect(seller.sdk.subscriptions.create({ productId: paid.id, customerId: customer.id })).rejects.toMatchObject({ name: "HTTPValidationError" });
    await expect(seller.sdk049.subscriptions.create({ productId: paid.id, customerId: customer.id })).rejects.toMatchObject({ name: "HTTPValidationError" });
    expect((await seller.sdk.subscriptions.list({ customerId: customer.id })).result.items).toEqual([]);
  });

  it("needs the subscriptions:write scope", async () => {
    const customer = await newCustomer();
    const token = await seller.createKey({ subscriptions: ["read"] });
    const res = await rawRequest(server.url, token, "POST", "/v1/subscriptions/", { product_id: free.id, customer_id: customer.id });
    expect(res.status).toBe(403);
  });

  it("records subscription.created and subscription.active webhooks valid for the SDKs", async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      const s = await createSeller(server, "subcreate-hooks");
      const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/c`, format: "raw", events: ["subscription.created", "subscription.active"] });
      const freeProduct = await createProduct(s, "free", { recurringInterval: "month" });
      const trialProduct = await createProduct(s, "trial");
      await server.worker.start();
      const active = await s.sdk.subscriptions.create({ productId: freeProduct.id, customerId: (await newCustomer(s)).id });
      const trialing = await s.sdk049.subscriptions.create({ productId: trialProduct.id, customerId: (await newCustomer(s)).id });
      const hits = await receiver.until((all) => (all.length >= 3 ? all : undefined));
      const seen = hits.map((h) => {
        const body = JSON.parse(h.body) as { type: string; data: { id: string; prices: Array<{ amount_type: string }> } };
        validateEvent(h.body, h.headers, endpoint.secret);
        // 0.49.0 has no free price type: the free product's price comes as a fixed price of 0, which it reads
        expect(body.data.prices.map((p) => p.amount_type)).toEqual(["fixed"]);
        expect(validateEvent049(h.body, h.headers, endpoint.secret).type).toBe(body.type);
        return [body.type, body.data.id];
      });
      expect(seen).toEqual(
        expect.arrayContaining([
          ["subscription.created", active.id],
          ["subscription.active", active.id],
          ["subscription.created", trialing.id],
        ]),
      );
      expect(seen).toHaveLength(3);
    } finally {
      await server.worker.stop();
      await receiver.stop();
    }
  });
});
