// The set-up the proration tests share (proration*.test.ts): a server of the file's own (webhooks to loopback
// allowed), the seller with a Basic and a Pro monthly product, and the steps of a change mid-period: subscribe,
// move the period, renew, read orders, the customer's balance and the subscription's events.
import { asc, eq, sql } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, expect } from "vitest";
import { customerBalanceEntry, outbox, subscription } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export const DAY = 86_400_000;

/** `amount × left / whole` of the period at the order's time, half away from zero: what the test expects. */
export function expected(amount: number, period: { start: Date; end: Date }, at: Date) {
  const whole = Math.floor((period.end.getTime() - period.start.getTime()) / 1000);
  const left = Math.floor((period.end.getTime() - at.getTime()) / 1000);
  return Math.round((amount * left) / whole);
}

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function prorationFixture() {
  const fx = {} as { server: TestServer; seller: Seller; basic: Product; pro: Product };
  const db = () => fx.server.database.db;
  const raw = (method: string, path: string, body?: unknown, s: Seller = fx.seller) => rawRequest(fx.server.url, s.token, method, path, body);

  async function subscribe(product: Product, s: Seller = fx.seller, extra: Record<string, unknown> = {}): Promise<Subscription> {
    const checkout = await s.sdk.checkouts.create({ products: [product.id], ...extra });
    await pay(fx.server, checkout, { customerEmail: uniqueBuyer("proration") });
    const [sub] = (await s.sdk.subscriptions.list({ productId: product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
    if (!sub) throw new Error("no subscription");
    return sub;
  }

  /** Puts the change `doneDays` into a period of `days` days: the period started that long ago. */
  async function midPeriod(id: string, doneDays: number, days = 30) {
    const now = Date.now();
    const start = new Date(now - doneDays * DAY);
    const end = new Date(start.getTime() + days * DAY);
    await db().update(subscription).set({ currentPeriodStart: start, currentPeriodEnd: end, startedAt: start }).where(eq(subscription.id, id));
    return { start, end };
  }

  const ordersOf = async (subscriptionId: string, s: Seller = fx.seller) =>
    (await s.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 100 })).result.items;

  /** The customer's balance in the ledger (sum of its movements). */
  async function balanceOf(customerId: string): Promise<number> {
    const [row] = await db()
      .select({ total: sql<string | null>`sum(${customerBalanceEntry.amount})` })
      .from(customerBalanceEntry)
      .where(eq(customerBalanceEntry.customerId, customerId));
    return Number(row?.total ?? 0);
  }

  /** The outbox's event types about the subscription (its own events and its orders' and grants'), oldest first. */
  async function eventTypesOf(subscriptionId: string): Promise<string[]> {
    const rows = await db()
      .select({ type: outbox.type })
      .from(outbox)
      .where(sql`${outbox.payload} ->> 'id' = ${subscriptionId} OR ${outbox.payload} ->> 'subscription_id' = ${subscriptionId}`)
      .orderBy(asc(outbox.createdAt));
    return rows.map((r) => r.type);
  }

  async function renew(id: string, s: Seller = fx.seller) {
    const current = await raw("GET", `/v1/subscriptions/${id}`, undefined, s);
    const res = await raw("POST", `/v1/subscriptions/${id}/renew`, { current_period_start: current.body.current_period_start }, s);
    expect(res.status).toBe(200);
    return res.body;
  }


  beforeAll(async () => {
    fx.server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
    fx.seller = await createSeller(fx.server, "proration");
    fx.basic = await fx.seller.sdk.products.create({ name: "Basic", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    fx.pro = await fx.seller.sdk.products.create({ name: "Pro", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "usd" }] });
  });
  afterAll(async () => fx.server?.close());

  return Object.assign(fx, { db, raw, subscribe, midPeriod, ordersOf, balanceOf, eventTypesOf, renew });
}
