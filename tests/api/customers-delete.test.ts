// Deleting a customer (DELETE /v1/customers/{id} and /v1/customers/external/{external_id}) through @polar-sh/sdk
// 0.47.1 and 0.49.0, as Polar: its subscriptions that have not ended are revoked and all its benefit grants
// revoked in the same transaction — subscription.updated/canceled/revoked and benefit_grant.revoked before
// customer.deleted, delivered to a loopback endpoint and accepted by validateEvent of both SDKs.
import { asc, eq, sql } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benefitGrant, outbox } from "../../server/db/schema/index.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver, type Hit } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let receiver: Receiver;
let monthly: Product;
let oneTime: Product;
let planBenefit: string;
let perkBenefit: string;
const hookPath = "/customer-delete";
let secret = "";

const db = () => server.database.db;
const TYPES = ["subscription.updated", "subscription.canceled", "subscription.revoked", "benefit_grant.revoked", "customer.deleted"] as const;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "customer-delete");
  // a customer with two subscriptions
  await seller.sdk.organizations.update({
    id: seller.organizationId,
    organizationUpdate: {
      subscriptionSettings: { allowMultipleSubscriptions: true, allowCustomerUpdates: true, prorationBehavior: "invoice", benefitRevocationGracePeriod: 0, preventTrialAbuse: false },
    },
  });
  secret = (await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${hookPath}`, format: "raw", events: [...TYPES] })).secret;
  [monthly, oneTime] = await Promise.all([createProduct(seller, "monthly"), createProduct(seller, "fixed")]);
  planBenefit = (await seller.sdk.benefits.create({ type: "custom", description: "Plan access", properties: {} })).id;
  perkBenefit = (await seller.sdk.benefits.create({ type: "custom", description: "Bonus perk", properties: {} })).id;
  await seller.sdk.products.updateBenefits({ id: monthly.id, productBenefitsUpdate: { benefits: [planBenefit] } });
  await seller.sdk.products.updateBenefits({ id: oneTime.id, productBenefitsUpdate: { benefits: [perkBenefit] } });
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

/** Buys `product` as the customer with this email (the first purchase creates it); the order's subscription id. */
async function buy(product: Product, email: string, externalCustomerId?: string): Promise<{ customerId: string; subscriptionId: string | null }> {
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], ...(externalCustomerId ? { externalCustomerId } : {}) });
  await pay(server, checkout, { customerEmail: email });
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  return { customerId: order.customerId, subscriptionId: order.subscriptionId ?? null };
}

const grantsOf = (customerId: string) => db().select().from(benefitGrant).where(eq(benefitGrant.customerId, customerId));

/** Outbox event types recorded after `since` that concern the customer, oldest first. */
async function eventsSince(since: Date, customerId: string) {
  const rows = await db()
    .select({ type: outbox.type, payload: outbox.payload })
    .from(outbox)
    .where(
      sql`${outbox.createdAt} >= ${since.toISOString()}::timestamptz AND (${outbox.payload} ->> 'customer_id' = ${customerId} OR ${outbox.payload} ->> 'id' = ${customerId})`,
    )
    .orderBy(asc(outbox.createdAt));
  return rows;
}

describe("DELETE /v1/customers/{id}", () => {
  it("revokes the customer's subscriptions (canceled ones: updated + revoked) and every grant, before customer.deleted", async () => {
    const email = uniqueBuyer("deleted");
    const first = await buy(monthly, email);
    const second = await buy(monthly, email);
    await buy(oneTime, email);
    const customerId = first.customerId;
    expect(second.customerId).toBe(customerId);
    if (!first.subscriptionId || !second.subscriptionId) throw new Error("no subscriptions");
    // one is already set to cancel at the period end: it is revoked without a second subscription.canceled
    await seller.sdk.subscriptions.update({ id: second.subscriptionId, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    expect((await grantsOf(customerId)).filter((g) => g.revokedAt === null)).toHaveLength(3);

    const before = new Date();
    await seller.sdk.customers.delete({ id: customerId });

    for (const id of [first.subscriptionId, second.subscriptionId]) {
      const sub = await seller.sdk.subscriptions.get({ id });
      expect(sub).toMatchObject({ status: "canceled" });
      expect(sub.endedAt).toBeInstanceOf(Date);
      expect(sub.canceledAt).toBeInstanceOf(Date);
    }
    const grants = await grantsOf(customerId);
    expect(grants).toHaveLength(3);
    expect(grants.every((g) => g.revokedAt !== null && g.grantedAt === null)).toBe(true);

    const events = await eventsSince(before, customerId);
    const types = events.map((e) => e.type);
    expect(types.at(-1)).toBe("customer.deleted");
    const about = (id: string) => events.filter((e) => (e.payload as { id?: string }).id === id).map((e) => e.type);
    expect(about(first.subscriptionId)).toEqual(["subscription.updated", "subscription.canceled", "subscription.revoked"]);
    expect(about(second.subscriptionId)).toEqual(["subscription.updated", "subscription.revoked"]);
    expect(types.filter((t) => t === "benefit_grant.revoked")).toHaveLength(3);
    expect(types).not.toContain("customer.state_changed");
    // the deleted customer is gone; deleting again is a 404 and changes nothing
    await expect(seller.sdk.customers.get({ id: customerId })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(seller.sdk.customers.delete({ id: customerId })).rejects.toBeInstanceOf(ResourceNotFound);
    expect(await eventsSince(before, customerId)).toHaveLength(events.length);

    // delivered, valid for both SDKs
    const typeOf = (h: Hit) => (JSON.parse(h.body) as { type: string }).type;
    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === hookPath && h.body.includes(customerId));
      const count = (t: string) => mine.filter((h) => typeOf(h) === t).length;
      return count("customer.deleted") === 1 && count("subscription.revoked") === 2 && count("benefit_grant.revoked") === 3 && mine;
    });
    for (const hit of hits) validateEvent049(hit.body, hit.headers, secret);
    const parsed = hits.map((h) => validateEvent(h.body, h.headers, secret));
    expect(new Set(hits.map(typeOf))).toEqual(new Set(TYPES));
    expect(parsed.find((e) => e.type === "subscription.revoked")).toMatchObject({ data: { status: "canceled", customerId } });
    expect(parsed.find((e) => e.type === "benefit_grant.revoked")).toMatchObject({ data: { customerId, isRevoked: true } });
    expect(parsed.find((e) => e.type === "customer.deleted")).toMatchObject({ data: { id: customerId } });
  });

  it("by external id through SDK 0.49.0: the subscription revoked, its grant revoked", async () => {
    const external = `ext-${Date.now().toString(36)}`;
    const bought = await buy(monthly, uniqueBuyer("deleted-ext"), external);
    if (!bought.subscriptionId) throw new Error("no subscription");
    await seller.sdk049.customers.deleteExternal({ externalId: external });
    expect(await seller.sdk049.subscriptions.get({ id: bought.subscriptionId })).toMatchObject({ status: "canceled" });
    expect((await grantsOf(bought.customerId)).every((g) => g.revokedAt !== null)).toBe(true);
  });

  it("an unknown customer is a 404 and touches no subscription", async () => {
    const bought = await buy(monthly, uniqueBuyer("kept"));
    await expect(seller.sdk.customers.delete({ id: "00000000-0000-4000-8000-000000000000" })).rejects.toBeInstanceOf(ResourceNotFound);
    expect(await seller.sdk.subscriptions.get({ id: bought.subscriptionId ?? "" })).toMatchObject({ status: "active", endedAt: null });
  });
});
