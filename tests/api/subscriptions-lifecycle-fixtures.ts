// The set-up the tests of the seller's subscription changes share (subscriptions-lifecycle*.test.ts): a webhook
// receiver and a server of the file's own, the seller and another organization, monthly, yearly premium and
// one-time products with their benefits, a paid subscription, and reads of its events, grants and row.
import { asc, eq, sql } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll } from "vitest";
import { benefitGrant, outbox, subscription as subscriptionTable } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

interface Fields {
  server: TestServer;
  seller: Seller;
  other: Seller;
  receiver: Receiver;
  monthly: Product;
  premium: Product;
  oneTime: Product;
  benefitId: string;
  premiumBenefitId: string;
}

/** Starts the receiver and the file's server in beforeAll (stopped in afterAll); the fields are there after. */
export function lifecycleFixture() {
  const fx = {} as Fields;
  const db = () => fx.server.database.db;
  const raw = (method: string, path: string, body?: unknown, token = fx.seller.token) => rawRequest(fx.server.url, token, method, path, body);

  beforeAll(async () => {
    fx.receiver = new Receiver();
    await fx.receiver.start();
    fx.server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
    fx.seller = await createSeller(fx.server, "lifecycle");
    fx.other = await createSeller(fx.server, "lifecycle-other");
    [fx.monthly, fx.premium, fx.oneTime] = await Promise.all([
      createProduct(fx.seller, "monthly"),
      fx.seller.sdk.products.create({ name: "Premium yearly", recurringInterval: "year", prices: [{ amountType: "fixed", priceAmount: 19_900, priceCurrency: "usd" }] }),
      createProduct(fx.seller, "fixed"),
    ]);
    fx.benefitId = (await fx.seller.sdk.benefits.create({ type: "custom", description: "Plan access", properties: { note: "v1" } })).id;
    fx.premiumBenefitId = (await fx.seller.sdk.benefits.create({ type: "custom", description: "Premium access", properties: {} })).id;
    await fx.seller.sdk.products.updateBenefits({ id: fx.monthly.id, productBenefitsUpdate: { benefits: [fx.benefitId] } });
    await fx.seller.sdk.products.updateBenefits({ id: fx.premium.id, productBenefitsUpdate: { benefits: [fx.premiumBenefitId] } });
  });
  afterAll(async () => {
    await fx.server?.close();
    await fx.receiver?.stop();
  });

  /** A new customer subscribes to `product` through a paid checkout. */
  async function subscribe(s: Seller = fx.seller, product: Product = fx.monthly, extra: { seats?: number } = {}): Promise<Subscription> {
    const checkout = await s.sdk.checkouts.create({ products: [product.id], ...extra });
    await pay(fx.server, checkout);
    const [order] = (await s.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order?.subscriptionId) throw new Error("no subscription");
    return s.sdk.subscriptions.get({ id: order.subscriptionId });
  }

  /** The outbox events about this subscription (data.id), oldest first. */
  async function eventsOf(subscriptionId: string): Promise<string[]> {
    const rows = await db()
      .select({ type: outbox.type })
      .from(outbox)
      .where(sql`${outbox.payload} ->> 'id' = ${subscriptionId}`)
      .orderBy(asc(outbox.createdAt));
    return rows.map((r) => r.type);
  }

  /** Its events after the purchase's (subscription.created, subscription.active). */
  const changeEvents = async (id: string) => (await eventsOf(id)).filter((t) => t !== "subscription.created" && t !== "subscription.active");

  async function grantsOf(subscriptionId: string) {
    return db().select().from(benefitGrant).where(eq(benefitGrant.subscriptionId, subscriptionId)).orderBy(asc(benefitGrant.createdAt));
  }

  async function rowOf(id: string) {
    const [row] = await db().select().from(subscriptionTable).where(eq(subscriptionTable.id, id));
    if (!row) throw new Error("no row");
    return row;
  }

  return Object.assign(fx, { db, raw, subscribe, eventsOf, changeEvents, grantsOf, rowOf });
}
