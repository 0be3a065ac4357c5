// The set-up the /v1/products tests share (products*.test.ts), and the checkout tests build on: a server of the
// file's own, the seller and another organization, a meter for metered prices, raw requests, a fixed price.
import { afterAll, beforeAll } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createApiCallsMeter } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export interface ProductFixture {
  server: TestServer;
  seller: Seller;
  other: Seller;
  meterId: string;
  raw(token: string, method: string, path: string, body?: unknown): ReturnType<typeof rawRequest>;
}

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function productFixture(tag = "products", otherTag = "other"): ProductFixture {
  const fx = {
    raw: (token, method, path, body) => rawRequest(fx.server.url, token, method, path, body),
  } as ProductFixture;
  beforeAll(async () => {
    fx.server = await startServer();
    fx.seller = await createSeller(fx.server, tag);
    fx.other = await createSeller(fx.server, otherTag);
    const meter = await createApiCallsMeter(fx.seller);
    fx.meterId = meter.id;
  });
  afterAll(async () => fx.server?.close());
  return fx;
}

export const fixed = (amount: number) => ({ amount_type: "fixed", price_amount: amount });
