// The set-up the github_repository and discord delivery tests share (benefit-delivery*.test.ts): loopback peers
// of GitHub and Discord and a webhook receiver, a server of the file's own with its worker, a seller whose GitHub
// integration is connected, and the steps of tests/helpers/delivery-flow.ts.
import { afterAll, beforeAll, expect } from "vitest";
import { deliveryFlow } from "../helpers/delivery-flow.js";
import { DiscordPeer, GithubPeer, peerEnv } from "../helpers/delivery-peers.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export type DeliveryFixture = ReturnType<typeof deliveryFlow> & {
  server: TestServer;
  seller: Seller;
  github: GithubPeer;
  discord: DiscordPeer;
  receiver: Receiver;
};

/** Starts the peers and the file's server in beforeAll (stopped in afterAll); the fields are there after. */
export function deliveryFixture(): DeliveryFixture {
  const fx = {
    github: new GithubPeer(),
    discord: new DiscordPeer(),
    receiver: new Receiver(),
    ...deliveryFlow(
      () => fx.server,
      () => fx.seller,
    ),
  } as DeliveryFixture;
  beforeAll(async () => {
    await Promise.all([fx.github.start(), fx.discord.start(), fx.receiver.start()]);
    fx.server = await startServer({ ...peerEnv(fx.github, fx.discord), TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
    await fx.server.worker.start();
    fx.seller = await createSeller(fx.server, "deliver");
    fx.github.sellerTokens.add("ghp_seller");
    fx.github.repositories.add("acme/private");
    fx.github.repositories.add("acme/other");
    const connected = await fx.api("PUT", "/v1/benefit-integrations/github", { token: "ghp_seller", client_id: "gh-client", client_secret: "gh-secret" });
    expect(connected.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await fx.server?.close();
    await Promise.all([fx.github.stop(), fx.discord.stop(), fx.receiver.stop()]);
  });
  return fx;
}
