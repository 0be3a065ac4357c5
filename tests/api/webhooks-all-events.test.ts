// The spec's 27 payment webhook events, each caused for real by the domain that emits it — catalog,
// customers, organization, a purchase, a renewal, the seller's cancel / uncancel / revoke, a refund — and each
// delivered to a receiver on loopback that checks it with `validateEvent` of SDK 0.47.1 and of SDK 0.49.0
// (signature, timestamp and the payload's model, `data` included).
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAYMENT_EVENT_TYPES } from "../../shared/webhook-events.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { Receiver, type Hit } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** The spec's list, in its order (the list the server and CLI use). */
const SPEC_TYPES = PAYMENT_EVENT_TYPES;

let server: TestServer;
let seller: Seller;
let receiver: Receiver;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "all-events");
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

const typeOf = (h: Hit) => (JSON.parse(h.body) as { type: string }).type;

async function call(method: string, path: string, body?: unknown) {
  const res = await rawRequest(server.url, seller.token, method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body as Record<string, unknown>;
}

describe("every payment webhook event of the spec", () => {
  it("lists 27 types", () => {
    expect(SPEC_TYPES).toHaveLength(27);
    expect(new Set(SPEC_TYPES).size).toBe(27);
  });

  it("is emitted by its cause and accepted by validateEvent of SDK 0.47.1 and 0.49.0", async () => {
    const path = "/all";
    const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({
      url: `${receiver.url}${path}`,
      format: "raw",
      events: [...SPEC_TYPES] as Parameters<Seller["sdk"]["webhooks"]["createWebhookEndpoint"]>[0]["events"],
    });

    // catalog, organization, customers
    const benefit = await seller.sdk.benefits.create({ type: "custom", description: "Every event", properties: { note: "v1" } });
    const product = await createProduct(seller, "monthly");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    await seller.sdk.organizations.update({ id: seller.organizationId, organizationUpdate: { name: "Every event org" } });
    const customer = await seller.sdk.customers.create({ email: `every-${Date.now()}@example.com`, name: "Every" });
    await seller.sdk.customers.update({ id: customer.id, customerUpdate: { name: "Every again" } });
    await seller.sdk.customers.delete({ id: customer.id });

    // a subscription bought through a checkout, its benefit changed, renewed, canceled, uncanceled, revoked
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout);
    const [subscription] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
    expect(subscription).toBeDefined();
    await seller.sdk.benefits.update({ id: benefit.id, requestBody: { type: "custom", description: "Every event", properties: { note: "v2" } } });
    await call("POST", `/v1/subscriptions/${subscription!.id}/renew`, { current_period_start: subscription!.currentPeriodStart.toISOString() });
    await seller.sdk.subscriptions.update({ id: subscription!.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    await seller.sdk.subscriptions.update({ id: subscription!.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    await seller.sdk.subscriptions.revoke({ id: subscription!.id });

    // a one-time purchase refunded
    const oneTime = await createProduct(seller, "fixed");
    const purchase = await seller.sdk.checkouts.create({ products: [oneTime.id] });
    await pay(server, purchase);
    const [order] = (await seller.sdk.orders.list({ productId: oneTime.id })).result.items;
    expect(order).toBeDefined();
    await seller.sdk.refunds.create({ orderId: order!.id, reason: "customer_request", amount: order!.totalAmount });

    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      const seen = new Set(mine.map(typeOf));
      return SPEC_TYPES.every((t) => seen.has(t)) && mine;
    }, 30_000);

    const byType = new Map<string, unknown>();
    for (const hit of hits) {
      const event = validateEvent(hit.body, hit.headers, endpoint.secret);
      validateEvent049(hit.body, hit.headers, endpoint.secret);
      byType.set(event.type, event);
    }
    expect([...byType.keys()].sort()).toEqual([...SPEC_TYPES].sort());
    expect(byType.get("benefit_grant.cycled")).toMatchObject({ data: { benefitId: benefit.id, subscriptionId: subscription!.id } });
    expect(byType.get("subscription.revoked")).toMatchObject({ data: { id: subscription!.id, status: "canceled" } });
    expect(byType.get("order.refunded")).toMatchObject({ data: { id: order!.id, status: "refunded" } });
    expect(byType.get("refund.updated")).toMatchObject({ data: { orderId: order!.id, status: "succeeded" } });
  });
});
