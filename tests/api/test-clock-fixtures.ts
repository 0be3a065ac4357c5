// The set-up the test clock's tests share (test-clock*.test.ts): a webhook receiver and a server of the file's own
// with its worker, a seller's sandbox key and both SDKs on it, the clock read and advanced, and a subscription
// bought through a checkout.
import type { Polar } from "@polar-sh/sdk";
import type { Polar as Polar049 } from "polar-sdk-049";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, expect } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { subscribeThroughCheckout } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export const DAY = 86_400_000;

export interface Clock {
  organization_id: string;
  now: string;
  offset_ms: number;
  renewals?: number;
}

/** Starts the receiver and the file's server in beforeAll (stopped in afterAll); the fields are there after. */
export function clockFixture() {
  const fx = {} as { server: TestServer; seller: Seller; receiver: Receiver; key: string; sdk: Polar; sdk049: Polar049 };
  const raw = (method: string, path: string, body?: unknown) => rawRequest(fx.server.url, fx.key, method, path, body);

  async function clock(): Promise<Clock> {
    const res = await raw("GET", "/v1/test-clock");
    expect(res.status).toBe(200);
    return res.body as unknown as Clock;
  }

  async function advance(body: Record<string, unknown>): Promise<Clock> {
    const res = await raw("POST", "/v1/test-clock/advance", body);
    if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as unknown as Clock;
  }

  const subscribe = (product: Product, externalId: string): Promise<Subscription> => subscribeThroughCheckout(fx.server, fx.sdk, product.id, externalId);

  beforeAll(async () => {
    fx.receiver = new Receiver();
    await fx.receiver.start();
    fx.server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
    await fx.server.worker.start();
    fx.seller = await createSeller(fx.server, "clock");
    fx.key = await fx.seller.createSandboxKey();
    fx.sdk = sdkFor(fx.server, fx.key);
    fx.sdk049 = sdk049For(fx.server, fx.key);
  });
  afterAll(async () => {
    await fx.server?.close();
    await fx.receiver?.stop();
  });
  return Object.assign(fx, { raw, clock, advance, subscribe });
}
