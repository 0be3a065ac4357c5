// The set-up the github_repository and discord delivery tests share (benefit-delivery*.test.ts): loopback peers
// of GitHub and Discord and a webhook receiver, a server of the file's own with its worker, a seller whose GitHub
// integration is connected, and the steps of tests/helpers/delivery-flow.ts.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { uniqueBuyer } from "../helpers/checkout.js";
import { deliveryFlow, type Grant } from "../helpers/delivery-flow.js";
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
  /**
   * GitHub user `login` (id `accountId`) buys a product with a github_repository benefit (a new customer) and connects
   * the account: waits for the invitation, the grant delivered to the account, and its deliveries settled (the
   * purchase's and the connect's heal).
   */
  githubGrant(login: string, accountId: number, repository?: string, permission?: "pull" | "push"): Promise<{
    benefitId: string;
    productId: string;
    customerId: string;
    /** The customer session the connect used. */
    token: string;
    invitation: [number, { repository: string; login: string; permission: string }];
    grant: Grant;
  }>;
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
    async githubGrant(login: string, accountId: number, repository = "acme/private", permission: "pull" | "push" = "pull") {
      fx.github.addUser({ id: accountId, login });
      fx.github.oauth.user = login;
      const benefit = await fx.githubBenefit(repository, permission);
      const product = await fx.productWith(benefit.id);
      const { customerId } = await fx.buy(product.id, uniqueBuyer(login));
      const token = await fx.connect(customerId, "github");
      const invitation = await fx.until(`${login}'s invitation`, async () => fx.github.invitationOf(repository, login));
      const grant = await fx.until(`${login}'s grant`, async () => {
        const g = await fx.grantOf(benefit.id, customerId);
        return g?.properties.granted_account_id === String(accountId) && g;
      });
      await fx.until(`${login}'s deliveries settled`, async () =>
        (await fx.sqlRows(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${grant.id} AND status = 'pending'`)).length === 0);
      return { benefitId: benefit.id, productId: product.id, customerId, token, invitation, grant };
    },
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
