// The set-up the hostile-input tests of the newer /v1 routes share (robustness-new-routes*.test.ts): a server of
// the file's own, the seller and another organization with one-time, monthly, yearly and free products, purchases,
// and the check that a refusal is a 4xx in Polar's shapes that changes nothing.
import { randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import type { Order } from "@polar-sh/sdk/models/components/order.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, expect } from "vitest";
import { outbox } from "../../server/db/schema/index.js";
import { rawRequest, type RawResponse } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function robustnessFixture() {
  const fx = {} as { server: TestServer; seller: Seller; other: Seller; oneTime: Product; monthly: Product; yearly: Product; free: Product };
  const db = () => fx.server.database.db;
  const raw = (method: string, path: string, body?: unknown, token = fx.seller.token) => rawRequest(fx.server.url, token, method, path, body);

  beforeAll(async () => {
    fx.server = await startServer();
    fx.seller = await createSeller(fx.server, "robust");
    fx.other = await createSeller(fx.server, "robust-other");
    [fx.oneTime, fx.monthly, fx.yearly, fx.free] = await Promise.all([
      createProduct(fx.seller, "fixed"),
      createProduct(fx.seller, "monthly"),
      fx.seller.sdk.products.create({ name: "Yearly", recurringInterval: "year", prices: [{ amountType: "fixed", priceAmount: 9900, priceCurrency: "usd" }] }),
      createProduct(fx.seller, "free"),
    ]);
  });
  afterAll(async () => {
    await fx.server?.close();
  });

  async function buy(product: Product, s: Seller = fx.seller): Promise<Order> {
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    await pay(fx.server, checkout, {}, product.prices.some((p) => "priceAmount" in p && p.priceAmount === 0) ? null : undefined);
    const [o] = (await s.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!o) throw new Error("no order");
    return o;
  }

  async function subscribe(product: Product = fx.monthly): Promise<Subscription> {
    const o = await buy(product);
    if (!o.subscriptionId) throw new Error("no subscription");
    return fx.seller.sdk.subscriptions.get({ id: o.subscriptionId });
  }

  const outboxRows = async (organizationId = fx.seller.organizationId) =>
    (await db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, organizationId)))[0]!.n;

  /** Sends each request, expects each refused, and that `read` and the organization's outbox are unchanged. */
  async function refusesAll(cases: Array<[string, () => Promise<RawResponse>]>, read: () => Promise<unknown>): Promise<void> {
    const before = await read();
    const rows = await outboxRows();
    for (const [what, send] of cases) expectRefused(await send(), what);
    expect(await read()).toEqual(before);
    expect(await outboxRows()).toBe(rows);
  }

  return Object.assign(fx, { db, raw, buy, subscribe, outboxRows, refusesAll });
}

/** A refusal in one of Polar's shapes: 4xx, `{error, detail}` or 422 `{detail: [{loc, msg, type}]}`. */
export function expectRefused(res: RawResponse, what: string): void {
  const context = `${what} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
  expect(res.status, context).toBeGreaterThanOrEqual(400);
  expect(res.status, context).toBeLessThan(500);
  if (res.status === 422) {
    const detail = res.body.detail as unknown;
    expect(Array.isArray(detail), context).toBe(true);
    for (const issue of detail as Array<Record<string, unknown>>) {
      expect(Array.isArray(issue.loc), context).toBe(true);
      expect(typeof issue.msg, context).toBe("string");
      expect(typeof issue.type, context).toBe("string");
    }
  } else {
    expect(typeof res.body.error, context).toBe("string");
    expect(typeof res.body.detail, context).toBe("string");
  }
}

export const HUGE = "x".repeat(1_100_000);
export const NUL = "a\u0000b";
export const mangledIds = (id: string): Array<[string, string]> => [
  ["not a uuid", "not-a-uuid"],
  ["a NUL in the id", encodeURIComponent(`${id.slice(0, 8)}\u0000${id.slice(9)}`)],
  ["an encoded NUL", "%00"],
  ["a uuid with a NUL after it", encodeURIComponent(`${id}\u0000`)],
  ["a very long id", "a".repeat(5000)],
  ["an unknown uuid", randomUUID()],
  ["a uuid with braces", `%7B${id}%7D`],
  ["a malformed percent-encoding", "%E0%A4%A"],
];
