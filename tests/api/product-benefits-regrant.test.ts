// A benefit added to a product reaches its current subscribers, and a removed one is revoked
// from them (as Polar's update_product_benefits_grants), through the outbox and the jobs worker: the grants,
// their webhooks (validated by both SDKs) and the customer state; a subscription that ended, another product's
// subscribers and a second run change nothing.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { regrantSubscribersOfProduct } from "../../server/billing/subscriptions/product-benefits.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { eventually, Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
const receiver = new Receiver();

beforeAll(async () => {
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "regrant");
}, 60_000);

afterAll(async () => {
  await server?.close();
  await receiver.stop();
});

async function subscribe(productId: string): Promise<{ customerId: string; subscriptionId: string }> {
  const checkout = await seller.sdk.checkouts.create({ products: [productId] });
  const confirmed = await pay(server, checkout, { customerEmail: uniqueBuyer("sub") });
  const subs = await seller.sdk.subscriptions.list({ customerId: confirmed.customerId!, limit: 10 });
  return { customerId: confirmed.customerId!, subscriptionId: subs.result.items[0]!.id };
}

async function liveGrants(benefitId: string) {
  const page = await seller.sdk.benefits.grants({ id: benefitId, limit: 100 });
  return page.result.items.filter((g) => !g.isRevoked);
}

describe("a product's benefits changed", () => {
  it("grants an added benefit to the current subscribers and revokes a removed one, with webhooks; ended subscriptions and other products are left alone", async () => {
    const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({
      url: `${receiver.url}/regrant`,
      format: "raw",
      events: ["benefit_grant.created", "benefit_grant.revoked", "customer.state_changed"],
    });
    const first = await seller.sdk.benefits.create({ type: "custom", description: "Welcome note", properties: { note: "Hello" } });
    const added = await seller.sdk.benefits.create({
      type: "license_keys",
      description: "A license key",
      properties: { prefix: "TILL", activations: { limit: 2, enableCustomerAdmin: true } },
    });
    const product = await createProduct(seller, "monthly");
    const otherProduct = await createProduct(seller, "monthly");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [first.id] } });
    const a = await subscribe(product.id);
    const b = await subscribe(product.id);
    const ended = await subscribe(product.id);
    const elsewhere = await subscribe(otherProduct.id);
    await seller.sdk.subscriptions.revoke({ id: ended.subscriptionId });
    expect((await liveGrants(first.id)).map((g) => g.customerId).sort()).toEqual([a.customerId, b.customerId].sort());

    // the benefit added reaches both current subscribers (a license key issued for each), not the ended one
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [first.id, added.id] } });
    const grants = await eventually(async () => {
      const live = await liveGrants(added.id);
      return live.length === 2 && live;
    }, 15_000);
    expect(grants.map((g) => g.customerId).sort()).toEqual([a.customerId, b.customerId].sort());
    for (const g of grants) {
      expect(g.isGranted).toBe(true);
      expect(g.subscriptionId).toBe(g.customerId === a.customerId ? a.subscriptionId : b.subscriptionId);
      expect(g.orderId).toBeNull();
    }
    const keys = await seller.sdk.licenseKeys.list({ benefitId: added.id, limit: 10 });
    expect(keys.result.items.map((k) => k.customerId).sort()).toEqual([a.customerId, b.customerId].sort());
    // the customer state shows it
    const state = await seller.sdk.customers.getState({ id: a.customerId });
    expect(state.grantedBenefits.map((g) => g.benefitId).sort()).toEqual([first.id, added.id].sort());

    // the benefit removed is revoked from them (its key with it); the other product's subscriber keeps nothing new
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [added.id] } });
    await eventually(async () => (await liveGrants(first.id)).length === 0, 15_000);
    expect((await liveGrants(added.id)).length).toBe(2);
    const elsewhereState = await seller.sdk.customers.getState({ id: elsewhere.customerId });
    expect(elsewhereState.grantedBenefits).toEqual([]);

    // once more (the worker ran it; a second run finds nothing to do): no grant twice
    expect(await regrantSubscribersOfProduct(server.database.db, seller.organizationId, product.id, new Date())).toBe(0);
    await seller.sdk.products.update({ id: product.id, productUpdate: { name: "Renamed" } });
    await new Promise((r) => setTimeout(r, 500));
    const all = (await seller.sdk.benefits.grants({ id: added.id, limit: 100 })).result.items;
    expect(all.length).toBe(2);

    // the webhooks say so, and both SDKs accept them
    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === "/regrant").map((h) => ({ h, e: JSON.parse(h.body) as { type: string; data: { benefit_id?: string; customer_id?: string } } }));
      const created = mine.filter((m) => m.e.type === "benefit_grant.created" && m.e.data.benefit_id === added.id);
      const revoked = mine.filter((m) => m.e.type === "benefit_grant.revoked" && m.e.data.benefit_id === first.id && m.e.data.customer_id !== ended.customerId);
      return created.length === 2 && revoked.length === 2 && mine;
    }, 15_000);
    for (const { h } of hits) {
      validateEvent(h.body, h.headers, endpoint.secret);
      validateEvent049(h.body, h.headers, endpoint.secret);
    }
    expect(hits.some((m) => m.e.type === "benefit_grant.revoked" && m.e.data.customer_id === ended.customerId && m.e.data.benefit_id === added.id)).toBe(false);
  }, 90_000);
});
