// The set-up the webhook tests share (webhooks.test.ts, webhooks-delivery.test.ts): a receiver on loopback, a
// server of the file's own that may deliver to it (and takes Polar's inbound webhooks), with its worker, the
// seller and an intruder, and endpoints on the receiver.
import { afterAll, beforeAll } from "vitest";
import { PAYMENT_EVENT_TYPES } from "../../shared/webhook-events.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export const INBOUND_SECRET = "polar_whs_inbound-test-secret";

let pathN = 0;
export const freshPath = (tag: string) => `/${tag}-${pathN++}`;

type EndpointFormat = "raw" | "discord" | "slack";

export interface WebhookFixture {
  server: TestServer;
  seller: Seller;
  other: Seller;
  receiver: Receiver;
  db(): TestServer["database"]["db"];
  /** An endpoint of `s` on the receiver at `path`, for every payment event type unless told. */
  endpointFor(s: Seller, path: string, events?: readonly string[], format?: EndpointFormat): ReturnType<Seller["sdk"]["webhooks"]["createWebhookEndpoint"]>;
}

/** Starts the receiver and the file's server in beforeAll (stopped in afterAll); the fields are there after. */
export function webhookFixture(): WebhookFixture {
  const fx = {
    db: () => fx.server.database.db,
    endpointFor: async (s: Seller, path: string, events: readonly string[] = PAYMENT_EVENT_TYPES, format: EndpointFormat = "raw") =>
      s.sdk.webhooks.createWebhookEndpoint({
        url: `${fx.receiver.url}${path}`,
        format,
        events: [...events] as Parameters<Seller["sdk"]["webhooks"]["createWebhookEndpoint"]>[0]["events"],
      }),
  } as WebhookFixture;
  beforeAll(async () => {
    fx.receiver = new Receiver();
    await fx.receiver.start();
    fx.server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true", TILL_POLAR_WEBHOOK_SECRET: INBOUND_SECRET });
    await fx.server.worker.start();
    fx.seller = await createSeller(fx.server, "webhooks");
    fx.other = await createSeller(fx.server, "intruder");
  });
  afterAll(async () => {
    await fx.server?.close();
    await fx.receiver?.stop();
  });
  return fx;
}
