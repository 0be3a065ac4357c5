// The set-up the renewal tests share (subscriptions-renewal*.test.ts): a server of the file's own (webhooks to
// loopback allowed), the seller and another organization, a monthly product with a perk, and the steps of a
// renewal: subscribe through a checkout, renew now, run the schedule, move a period, read orders and events.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { subscriptionFromJSON } from "@polar-sh/sdk/models/components/subscription.js";
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import { runRenewals } from "../../server/billing/renewal/run.js";
import { outbox, subscription } from "../../server/db/schema/index.js";
import { createPaymentProcessor } from "../../server/payments/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function renewalFixture() {
  const fx = {} as { server: TestServer; seller: Seller; other: Seller; monthly: Product; perk: string };
  const db = () => fx.server.database.db;
  const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(fx.server.url, token, method, path, body);
  const renewals = () => runRenewals({ db: db(), processor: createPaymentProcessor(), baseURL: fx.server.url });

  async function subscribe(product: Product, checkoutExtra: Record<string, unknown> = {}, card?: string): Promise<Subscription> {
    const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id], ...checkoutExtra });
    await pay(fx.server, checkout, { customerEmail: uniqueBuyer("renewal") }, card);
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((s) => s.checkoutId === checkout.id);
    if (!sub) throw new Error("no subscription");
    return sub;
  }

  /** Renews the current period now: names it (a bare renew renews only a period that has ended). */
  async function renew(id: string, token = fx.seller.token) {
    const current = await raw(token, "GET", `/v1/subscriptions/${id}`);
    const body = current.status === 200 ? { current_period_start: current.body.current_period_start } : {};
    const res = await raw(token, "POST", `/v1/subscriptions/${id}/renew`, body);
    if (res.status !== 200) return { status: res.status, body: res.body, sub: null };
    const parsed = subscriptionFromJSON(JSON.stringify(res.body));
    if (!parsed.ok) throw parsed.error;
    return { status: res.status, body: res.body, sub: parsed.value };
  }

  const ordersOf = async (subscriptionId: string) =>
    (await fx.seller.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 100 })).result.items;

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
    fx.server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
    fx.seller = await createSeller(fx.server, "renewal");
    fx.other = await createSeller(fx.server, "renewal-other");
    fx.perk = (await fx.seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: {} })).id;
    fx.monthly = await createProduct(fx.seller, "monthly");
    await fx.seller.sdk.products.updateBenefits({ id: fx.monthly.id, productBenefitsUpdate: { benefits: [fx.perk] } });
  });
  afterAll(async () => fx.server?.close());
  return Object.assign(fx, { db, raw, renewals, subscribe, renew, ordersOf, eventsOf, setPeriod });
}
