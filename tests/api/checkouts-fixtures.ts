// The set-up the /v1/checkouts tests share (checkouts*.test.ts): a server of the file's own, the seller and an
// intruder, a meter and a product of each price kind, and reads of the seller's rows.
import { asc, eq } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll } from "vitest";
import { checkout, customer, order, outbox, subscription } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export interface CheckoutFixture {
  server: TestServer;
  seller: Seller;
  other: Seller;
  fixed: Product;
  custom: Product;
  free: Product;
  seats: Product;
  monthly: Product;
  trial: Product;
  metered: Product;
  db(): TestServer["database"]["db"];
  raw(token: string, method: string, path: string, body?: unknown): ReturnType<typeof rawRequest>;
  outboxOf(organizationId: string): Promise<Array<typeof outbox.$inferSelect>>;
  countRows(organizationId: string): Promise<{ checkouts: number; orders: number; subscriptions: number; customers: number }>;
}

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function checkoutFixture(): CheckoutFixture {
  const db = () => fx.server.database.db;
  const fx = {
    db,
    raw: (token, method, path, body) => rawRequest(fx.server.url, token, method, path, body),
    outboxOf: async (organizationId) =>
      db().select().from(outbox).where(eq(outbox.organizationId, organizationId)).orderBy(asc(outbox.createdAt)),
    countRows: async (organizationId) => {
      const [c, o, s, cu] = await Promise.all([
        db().select().from(checkout).where(eq(checkout.organizationId, organizationId)),
        db().select().from(order).where(eq(order.organizationId, organizationId)),
        db().select().from(subscription).where(eq(subscription.organizationId, organizationId)),
        db().select().from(customer).where(eq(customer.organizationId, organizationId)),
      ]);
      return { checkouts: c.length, orders: o.length, subscriptions: s.length, customers: cu.length };
    },
  } as CheckoutFixture;

  beforeAll(async () => {
    fx.server = await startServer();
    fx.seller = await createSeller(fx.server, "checkouts");
    fx.other = await createSeller(fx.server, "intruder");
    const meter = await fx.seller.sdk.meters.create({
      name: "API calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
      aggregation: { func: "count" },
    });
    [fx.fixed, fx.custom, fx.free, fx.seats, fx.monthly, fx.trial, fx.metered] = await Promise.all([
      createProduct(fx.seller, "fixed"),
      createProduct(fx.seller, "custom"),
      createProduct(fx.seller, "free"),
      createProduct(fx.seller, "seats"),
      createProduct(fx.seller, "monthly"),
      createProduct(fx.seller, "trial"),
      createProduct(fx.seller, "metered", {}, meter.id),
    ]);
  });
  afterAll(async () => fx.server?.close());
  return fx;
}
