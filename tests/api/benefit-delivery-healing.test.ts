// Grants healed by the seller fixing an integration (none connected yet; a token GitHub refuses), the
// one-day give-up of a delivery that keeps failing, and what is at rest: customer tokens, PKCE verifiers and
// seller credentials sealed (never the plain secrets). Against the loopback peers of tests/helpers/delivery-peers.ts.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unseal } from "../../server/seal.js";
import { uniqueBuyer } from "../helpers/checkout.js";
import { deliveryFlow } from "../helpers/delivery-flow.js";
import { DiscordPeer, GithubPeer, peerEnv } from "../helpers/delivery-peers.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, TEST_SECRET, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
const github = new GithubPeer();
const discord = new DiscordPeer();
const { api, until, grantOf, buy, connect, githubBenefit, productWith, sqlRows: rows } = deliveryFlow(() => server, () => seller);

const guild = "110000000000000001";
const role = "330000000000000003";
const githubCredentials = { token: "ghp_seller_refused", client_id: "gh-client", client_secret: "gh-secret" };
const discordCredentials = { bot_token: "heal-bot-token", client_id: "555", client_secret: "dc-secret" };

beforeAll(async () => {
  await Promise.all([github.start(), discord.start()]);
  server = await startServer(peerEnv(github, discord));
  await server.worker.start();
  seller = await createSeller(server, "heal");
  github.repositories.add("acme/private");
  discord.botToken = discordCredentials.bot_token;
  discord.addGuild(guild, [{ id: "220000000000000002", position: 5, permissions: String(1n << 28n) }, { id: role, position: 1, permissions: "0" }], ["220000000000000002"]);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([github.stop(), discord.stop()]);
});

describe("grants healed by the seller's integration", () => {
  it("a discord grant bought before the bot was connected waits with integration_missing; connecting the bot re-runs it, connecting the account delivers it", async () => {
    // no bot yet: the benefit is accepted (the role check needs the bot)
    const created = await api("POST", "/v1/benefits/", { type: "discord", description: "Healed role", properties: { guild_token: guild, guild_id: guild, role_id: role, kick_member: false } });
    expect(created.status).toBe(201);
    const benefitId = (created.body as { id: string }).id;
    const product = await productWith(benefitId);
    const { customerId } = await buy(product.id, uniqueBuyer("ivy"));
    const missing = await until("the integration_missing error", async () => (await grantOf(benefitId, customerId))?.error);
    expect(missing).toMatchObject({ type: "integration_missing" });
    expect(missing.message).toMatch(/till benefits discord connect/);

    const connected = await api("PUT", "/v1/benefit-integrations/discord", discordCredentials);
    expect(connected.status).toBe(200);
    expect((connected.body as { regranted: number }).regranted).toBeGreaterThanOrEqual(1);
    // the re-run got further: it now waits for the customer's account
    await until("the account_not_connected error", async () => (await grantOf(benefitId, customerId))?.error?.type === "account_not_connected");

    const user = "440000000000000004";
    discord.users.set(user, { id: user, username: "ivy" });
    discord.oauth.user = user;
    await connect(customerId, "discord");
    const granted = await until("the role", async () => {
      const g = await grantOf(benefitId, customerId);
      return g?.properties.granted_role_id === role && g;
    });
    expect(granted.error).toBeNull();
    expect(discord.rolesOf(guild, user)).toEqual([role]);
  }, 60_000);

  it("a github grant refused with the seller's token (forbidden) is delivered once the seller connects a token GitHub accepts", async () => {
    // a token GitHub does not (or no longer) accept
    expect((await api("PUT", "/v1/benefit-integrations/github", githubCredentials)).status).toBe(200);
    const benefit = await githubBenefit("acme/private", "pull");
    const product = await productWith(benefit.id);
    github.addUser({ id: 9191, login: "jo" });
    github.oauth.user = "jo";
    const { customerId } = await buy(product.id, uniqueBuyer("jo"));
    await connect(customerId, "github");
    const refused = await until("the forbidden error", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.error?.type === "forbidden" && g;
    });
    expect(github.invitationOf("acme/private", "jo")).toBeUndefined();

    github.sellerTokens.add("ghp_seller_good");
    const fixed = await api("PUT", "/v1/benefit-integrations/github", { ...githubCredentials, token: "ghp_seller_good" });
    expect(fixed.status).toBe(200);
    expect((fixed.body as { regranted: number }).regranted).toBeGreaterThanOrEqual(1);
    const healed = await until("the invitation", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.id === refused.id && g.error === null && g.properties.granted_repository === "acme/private" && g;
    });
    expect(healed.properties).toMatchObject({ granted_account_id: "9191", account_username: "jo" });
    expect(github.invitationOf("acme/private", "jo")?.[1].permission).toBe("pull");
  }, 60_000);
});

describe("a delivery that keeps failing", () => {
  it("retries a 502 later and gives up once a day has passed since the delivery was made", async () => {
    const benefit = await githubBenefit("acme/private", "push");
    const product = await productWith(benefit.id);
    github.addUser({ id: 9292, login: "kai" });
    github.oauth.user = "kai";
    const { customerId } = await buy(product.id, uniqueBuyer("kai"));
    await until("the purchase's delivery", async () => (await grantOf(benefit.id, customerId))?.error?.type === "account_not_connected");
    // GitHub answers 502 to every invitation (the client's own retry included) until the end of the test
    for (let i = 0; i < 20; i++) github.fail("PUT", "/repos/acme/private/collaborators/kai", 502);
    try {
      await connect(customerId, "github");
      const grantId = (await grantOf(benefit.id, customerId))!.id;
      const waiting = await until("a delivery waiting to retry", async () => {
        const [row] = await rows<{ id: string; attempts: number }>(sql`SELECT id, attempts FROM benefit_delivery WHERE grant_id = ${grantId} AND status = 'pending' AND attempts > 0`);
        return row;
      });
      // tried again later; meanwhile the grant's error is untouched (no webhook noise while retrying)
      expect((await grantOf(benefit.id, customerId))!.error?.type).toBe("account_not_connected");
      // the delivery was made a day ago and is due now
      await rows(sql`UPDATE benefit_delivery SET created_at = now() - interval '1 day', next_attempt_at = now() WHERE id = ${waiting.id}`);
      const gaveUp = await until("the give-up", async () => {
        const g = await grantOf(benefit.id, customerId);
        return g?.error?.message.startsWith("Gave up after a day") && g;
      });
      expect(gaveUp.error?.type).toBe("unavailable");
      expect(gaveUp.error?.message).toMatch(/502|failure/);
      const [row] = await rows<{ status: string; attempts: number }>(sql`SELECT status, attempts FROM benefit_delivery WHERE id = ${waiting.id}`);
      expect(row).toMatchObject({ status: "failed", attempts: waiting.attempts + 1 });
    } finally {
      github.clearFailures();
    }
  }, 60_000);
});

describe("the provider's token endpoint", () => {
  it("refuses a connection made with the wrong OAuth client secret: no account is stored", async () => {
    const other = await createSeller(server, "wrong-secret");
    const flow = deliveryFlow(() => server, () => other);
    const put = await flow.api("PUT", "/v1/benefit-integrations/github", { ...githubCredentials, token: "ghp_seller_good", client_secret: "not-the-secret" });
    expect(put.status).toBe(200);
    const benefit = await flow.githubBenefit("acme/private");
    const product = await flow.productWith(benefit.id);
    github.addUser({ id: 9393, login: "lu" });
    github.oauth.user = "lu";
    const { customerId } = await flow.buy(product.id, uniqueBuyer("lu"));
    const session = await other.sdk.customerSessions.create({ customerId });
    const headers = { authorization: `Bearer ${session.token}` };
    const start = await fetch(`${server.url}/v1/customer-portal/customers/me/oauth-accounts/authorize?platform=github`, { headers });
    const approved = await fetch(((await start.json()) as { url: string }).url, { redirect: "manual" });
    const back = await fetch(approved.headers.get("location")!, { redirect: "manual" });
    expect(back.status).toBe(502);
    const exchange = github.seen.filter((s) => s.path === "/login/oauth/access_token").at(-1);
    expect(exchange?.body).toMatchObject({ client_id: "gh-client", client_secret: "not-the-secret" });
    const me = await fetch(`${server.url}/v1/customer-portal/customers/me`, { headers });
    expect(((await me.json()) as { oauth_accounts: unknown }).oauth_accounts).toEqual({});
  }, 60_000);
});

// reads what the tests above stored (their connected accounts and the seller's integrations)
describe("at rest", () => {
  const sealed = (value: string | null) => typeof value === "string" && value.startsWith("v1.");

  it("customer tokens, PKCE verifiers and the seller's credentials are sealed, never stored plain", async () => {
    const accounts = await rows<{ platform: string; access_token: string; refresh_token: string | null }>(
      sql`SELECT platform, access_token, refresh_token FROM customer_oauth_account WHERE organization_id = ${seller.organizationId}`,
    );
    expect(accounts.map((a) => a.platform).sort()).toEqual(["discord", "github", "github"]);
    const plainTokens = ["gho_jo", "gho_kai", ...discord.issued];
    expect(discord.issued.length).toBeGreaterThan(0);
    for (const a of accounts) {
      expect(sealed(a.access_token)).toBe(true);
      if (a.platform === "discord") expect(sealed(a.refresh_token)).toBe(true);
      for (const plain of plainTokens) {
        expect(a.access_token).not.toContain(plain);
        expect(a.refresh_token ?? "").not.toContain(plain);
      }
    }
    // the sealed access tokens open, with the server's secret, to the tokens the providers issued
    const opened = accounts.map((a) => unseal(TEST_SECRET, "oauth-token", a.access_token));
    expect(opened.filter((t) => t?.startsWith("gho_")).sort()).toEqual(["gho_jo", "gho_kai"]);

    // a pending authorization: its PKCE verifier is sealed (its S256 is the challenge the provider was sent)
    const [customer] = await rows<{ customer_id: string }>(sql`SELECT customer_id FROM customer_oauth_account WHERE organization_id = ${seller.organizationId} LIMIT 1`);
    const session = await seller.sdk.customerSessions.create({ customerId: customer!.customer_id });
    const start = await fetch(`${server.url}/v1/customer-portal/customers/me/oauth-accounts/authorize?platform=github`, { headers: { authorization: `Bearer ${session.token}` } });
    const challenge = new URL(((await start.json()) as { url: string }).url).searchParams.get("code_challenge");
    const states = await rows<{ code_verifier: string }>(sql`SELECT code_verifier FROM customer_oauth_state WHERE organization_id = ${seller.organizationId}`);
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((s) => sealed(s.code_verifier))).toBe(true);
    const verifiers = states.map((s) => unseal(TEST_SECRET, "pkce", s.code_verifier));
    expect(verifiers.some((v) => v !== null && createHash("sha256").update(v).digest("base64url") === challenge)).toBe(true);
    for (const [i, s] of states.entries()) expect(s.code_verifier).not.toContain(verifiers[i]!);

    // the seller's credentials: the GitHub tokens and client secret, the bot token
    const integrations = await rows<{ platform: string; credentials: string }>(
      sql`SELECT platform, credentials FROM benefit_integration WHERE organization_id = ${seller.organizationId}`,
    );
    expect(integrations.map((r) => r.platform).sort()).toEqual(["discord", "github"]);
    for (const r of integrations) {
      expect(sealed(r.credentials)).toBe(true);
      for (const plain of ["ghp_seller_good", "ghp_seller_refused", "gh-secret", discordCredentials.bot_token, "dc-secret"]) expect(r.credentials).not.toContain(plain);
    }
    const stored = JSON.parse(unseal(TEST_SECRET, "integration", integrations.find((r) => r.platform === "github")!.credentials)!) as { token: string };
    expect(stored.token).toBe("ghp_seller_good");
  }, 60_000);
});
