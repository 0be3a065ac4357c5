// The set-up the dunning tests share (dunning*.test.ts): a server of the file's own (webhooks to loopback
// allowed), the seller with a perk and another organization, the customer portal through both SDKs, and the steps
// of a failed renewal: subscribe with a card, renew now, read the pending order, its dunning row and events.
import { and, asc, eq, sql } from "drizzle-orm";
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, expect } from "vitest";
import { runDunning } from "../../server/billing/dunning/service.js";
import { benefitGrant, orderDunning, outbox } from "../../server/db/schema/index.js";
import { createPaymentProcessor } from "../../server/payments/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export const DAY = 86_400_000;

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function dunningFixture() {
  const fx = {} as { server: TestServer; seller: Seller; other: Seller; perk: string; portal: Polar; portal049: Polar049 };
  const db = () => fx.server.database.db;
  const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(fx.server.url, token, method, path, body);
  const dunningAt = (now: Date) => runDunning({ db: db(), processor: createPaymentProcessor(), baseURL: fx.server.url, now });

  async function trialProduct(s: Seller): Promise<Product> {
    const product = await createProduct(s, "trial");
    if (s === fx.seller) await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [fx.perk] } });
    return product;
  }

  async function subscribe(s: Seller, product: Product, card: string): Promise<{ sub: Subscription; email: string; session: string }> {
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const email = uniqueBuyer("dunning");
    await pay(fx.server, checkout, { customerEmail: email }, card);
    const [sub] = (await s.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
    if (!sub) throw new Error("no subscription");
    const session = await s.sdk.customerSessions.create({ customerId: sub.customerId });
    return { sub, email, session: session.token };
  }

  /** Renews the current period now (a failing card: past_due). */
  async function renew(s: Seller, id: string) {
    const { currentPeriodStart } = await s.sdk.subscriptions.get({ id });
    const res = await raw(s.token, "POST", `/v1/subscriptions/${id}/renew`, { current_period_start: currentPeriodStart.toISOString() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  async function pendingOrder(s: Seller, subscriptionId: string) {
    const orders = (await s.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 100 })).result.items;
    const last = orders.at(-1);
    if (!last) throw new Error("no order");
    return last;
  }

  async function dunningRow(orderId: string) {
    const [row] = await db().select().from(orderDunning).where(eq(orderDunning.orderId, orderId));
    return row;
  }

  async function eventTypes(subscriptionId: string) {
    const rows = await db()
      .select()
      .from(outbox)
      .where(sql`${outbox.payload} ->> 'id' = ${subscriptionId} OR ${outbox.payload} ->> 'subscription_id' = ${subscriptionId}`)
      .orderBy(asc(outbox.createdAt));
    return rows.map((r) => r.type);
  }

  async function setDunning(s: Seller, settings: unknown) {
    const res = await raw(s.token, "PATCH", `/v1/organizations/${s.organizationId}`, { dunning_settings: settings });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.dunning_settings;
  }

  async function grantedCount(subscriptionId: string) {
    const rows = await db()
      .select()
      .from(benefitGrant)
      .where(and(eq(benefitGrant.subscriptionId, subscriptionId), sql`${benefitGrant.revokedAt} IS NULL`));
    return rows.length;
  }

  beforeAll(async () => {
    fx.server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
    fx.seller = await createSeller(fx.server, "dunning");
    fx.other = await createSeller(fx.server, "dunning-other");
    fx.perk = (await fx.seller.sdk.benefits.create({ type: "custom", description: "Dunning perk", properties: {} })).id;
    fx.portal = new Polar({ serverURL: fx.server.url });
    fx.portal049 = new Polar049({ serverURL: fx.server.url });
  }, 120_000);
  afterAll(async () => fx.server?.close());

  /** Tokenizes a card with the test processor's portal endpoint. */
  async function portalCard(session: string, number: string): Promise<string> {
    const res = await raw(session, "POST", "/v1/customer-portal/customers/me/payment-methods/test-card", {
      number,
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      cvc: "123",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.confirmation_token_id as string;
  }

  return Object.assign(fx, { db, raw, dunningAt, trialProduct, subscribe, renew, pendingOrder, dunningRow, eventTypes, setDunning, grantedCount, portalCard });
}
