// The set-up the metrics tests share (metrics*.test.ts): a server of the file's own with its jobs worker started
// (METRICS_LOG=1 prints its log), a seller's sandbox through both SDKs, the test clock, purchases and orders.
import type { Polar } from "@polar-sh/sdk";
import type { Polar as Polar049 } from "polar-sdk-049";
import type { Order } from "@polar-sh/sdk/models/components/order.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { pay } from "../helpers/checkout.js";
import { createSeller, sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function metricsFixture() {
  const fx = {} as { server: TestServer; seller: Seller; key: string; sdk: Polar; sdk049: Polar049 };
  const raw = (method: string, path: string, body?: unknown) => rawRequest(fx.server.url, fx.key, method, path, body);

  async function advanceTo(iso: string): Promise<void> {
    const res = await raw("POST", "/v1/test-clock/advance", { to: iso });
    if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
  }

  beforeAll(async () => {
    fx.server = await startServer({}, process.env.METRICS_LOG ? { logStream: process.stderr } : {});
    await fx.server.worker.start();
    fx.seller = await createSeller(fx.server, "metrics");
    fx.key = await fx.seller.createSandboxKey();
    fx.sdk = sdkFor(fx.server, fx.key);
    fx.sdk049 = sdk049For(fx.server, fx.key);
  });
  afterAll(async () => {
    await fx.server?.close();
  });

  async function buy(product: Product, email: string, extra: Record<string, unknown> = {}): Promise<Order> {
    const checkout = await fx.sdk.checkouts.create({ products: [product.id], ...extra });
    await pay(fx.server, checkout, { customerEmail: email });
    const [order] = (await fx.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order) throw new Error("no order");
    return order;
  }

  async function ordersOf(subscriptionId: string): Promise<Order[]> {
    return (await fx.sdk.orders.list({ subscriptionId, limit: 100 })).result.items;
  }

  return Object.assign(fx, { raw, advanceTo, buy, ordersOf });
}
