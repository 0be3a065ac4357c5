// The set-up the /v1/checkouts tests share (checkouts*.test.ts): the products tests' server, seller, intruder
// and meter (products-fixtures.ts), a product of each price kind, and reads of the seller's rows.
import { asc, eq } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { beforeAll } from "vitest";
import { checkout, customer, order, outbox, subscription } from "../../server/db/schema/index.js";
import { createProduct } from "../helpers/checkout.js";
import type { TestServer } from "../helpers/server.js";
import { productFixture, type ProductFixture } from "./products-fixtures.js";

export interface CheckoutFixture extends ProductFixture {
  fixed: Product;
  custom: Product;
  free: Product;
  seats: Product;
  monthly: Product;
  trial: Product;
  metered: Product;
  db(): TestServer["database"]["db"];
  outboxOf(organizationId: string): Promise<Array<typeof outbox.$inferSelect>>;
  countRows(organizationId: string): Promise<{ checkouts: number; orders: number; subscriptions: number; customers: number }>;
}

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function checkoutFixture(): CheckoutFixture {
  const fx = productFixture("checkouts", "intruder") as CheckoutFixture;
  const db = () => fx.server.database.db;
  fx.db = db;
  fx.outboxOf = async (organizationId) =>
    db().select().from(outbox).where(eq(outbox.organizationId, organizationId)).orderBy(asc(outbox.createdAt));
  fx.countRows = async (organizationId) => {
    const [c, o, s, cu] = await Promise.all([
      db().select().from(checkout).where(eq(checkout.organizationId, organizationId)),
      db().select().from(order).where(eq(order.organizationId, organizationId)),
      db().select().from(subscription).where(eq(subscription.organizationId, organizationId)),
      db().select().from(customer).where(eq(customer.organizationId, organizationId)),
    ]);
    return { checkouts: c.length, orders: o.length, subscriptions: s.length, customers: cu.length };
  };

  // after productFixture's beforeAll, which starts the server and makes the meter
  beforeAll(async () => {
    [fx.fixed, fx.custom, fx.free, fx.seats, fx.monthly, fx.trial, fx.metered] = await Promise.all([
      createProduct(fx.seller, "fixed"),
      createProduct(fx.seller, "custom"),
      createProduct(fx.seller, "free"),
      createProduct(fx.seller, "seats"),
      createProduct(fx.seller, "monthly"),
      createProduct(fx.seller, "trial"),
      createProduct(fx.seller, "metered", {}, fx.meterId),
    ]);
  });
  return fx;
}
