// The set-up the /v1/discounts tests share (discounts*.test.ts): a server of the file's own, the seller and an
// intruder, two products of the seller's and one of the intruder's (rows inserted directly), and a discount body.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import { discount, product } from "../../server/db/schema/index.js";
import { rawOn } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function discountFixture() {
  const fx = {} as { server: TestServer; seller: Seller; other: Seller; productA: string; productB: string; foreignProduct: string };
  const db = () => fx.server.database.db;
  const raw = rawOn(() => fx.server);

  async function insertProduct(organizationId: string, name: string): Promise<string> {
    const [row] = await db().insert(product).values({ organizationId, name, description: `${name} description` }).returning();
    return row!.id;
  }

  async function discountCount(organizationId: string): Promise<number> {
    return (await db().select().from(discount).where(eq(discount.organizationId, organizationId))).length;
  }

  beforeAll(async () => {
    fx.server = await startServer();
    fx.seller = await createSeller(fx.server, "discounts");
    fx.other = await createSeller(fx.server, "intruder");
    fx.productA = await insertProduct(fx.seller.organizationId, "Product A");
    fx.productB = await insertProduct(fx.seller.organizationId, "Product B");
    fx.foreignProduct = await insertProduct(fx.other.organizationId, "Foreign product");
  });
  afterAll(async () => fx.server?.close());
  return Object.assign(fx, { db, raw, discountCount });
}

export const percentOnce = (name: string, extra: Record<string, unknown> = {}) => ({
  type: "percentage" as const,
  duration: "once" as const,
  basisPoints: 1000,
  name,
  ...extra,
});
