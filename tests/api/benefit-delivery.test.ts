// Issue 15: github_repository and discord grants delivered by the jobs worker against loopback peers of GitHub's
// and Discord's REST APIs and OAuth servers (tests/helpers/delivery-peers.ts): grant, revoke on each cause,
// benefit update with previous_properties, rate limits, transient retry, permanent error and heal, regrant, a
// GitHub App installation, and the grant webhooks through validateEvent of SDK 0.47.1 and 0.49.0.
import { generateKeyPairSync } from "node:crypto";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { deliveryFlow, type Grant } from "../helpers/delivery-flow.js";
import { DiscordPeer, GithubPeer, peerEnv } from "../helpers/delivery-peers.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
const github = new GithubPeer();
const discord = new DiscordPeer();
const receiver = new Receiver();
const { api, until, grantsOf, grantOf, buy, connect, githubBenefit, productWith, sqlRows } = deliveryFlow(() => server, () => seller);

beforeAll(async () => {
  await Promise.all([github.start(), discord.start(), receiver.start()]);
  server = await startServer({ ...peerEnv(github, discord), TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "deliver");
  github.sellerTokens.add("ghp_seller");
  github.repositories.add("acme/private");
  github.repositories.add("acme/other");
  const connected = await api("PUT", "/v1/benefit-integrations/github", { token: "ghp_seller", client_id: "gh-client", client_secret: "gh-secret" });
  expect(connected.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([github.stop(), discord.stop(), receiver.stop()]);
});

describe("github_repository", () => {
  it("waits for the account, invites it once connected, follows benefit updates (previous_properties) and revokes on refund", async () => {
    const path = "/grants";
    const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({
      url: `${receiver.url}${path}`,
      format: "raw",
      events: ["benefit_grant.created", "benefit_grant.updated", "benefit_grant.revoked"],
    });
    const benefit = await githubBenefit("acme/private", "pull");
    const product = await productWith(benefit.id);
    const email = uniqueBuyer("gh");
    const { customerId } = await buy(product.id, email);

    // the order confirmation invites the customer to connect the account the benefit needs
    const mail = await server.mailbox.waitFor(email, /receipt/, 15_000);
    expect(mail.text).toMatch(/Connect your GitHub account/);
    // its button is a link to the seller's customer portal (where the customer signs in and connects), which answers
    const button = /<a[^>]*href="([^"]+)"[^>]*>(?:(?!<\/a>)[\s\S])*Connect your GitHub account/.exec(mail.html ?? "");
    expect(button?.[1]).toBe(`${server.url}/portal?organization=${encodeURIComponent(seller.slug)}`);
    const portal = await fetch(button![1]!.replaceAll("&amp;", "&"));
    expect(portal.status).toBe(200);
    expect(portal.headers.get("content-type")).toMatch(/text\/html/);

    // no account yet: a permanent error that says what it waits for
    const waiting = await until("the grant's error", async () => (await grantOf(benefit.id, customerId))?.error);
    expect(waiting).toMatchObject({ type: "account_not_connected" });
    expect(waiting.message).toMatch(/connect a GitHub account/);
    expect((await grantOf(benefit.id, customerId))!.properties).toMatchObject({ account_id: null });
    // not delivered: not granted (as Polar), and not in the customer state's granted benefits
    expect(await grantOf(benefit.id, customerId)).toMatchObject({ is_granted: false, granted_at: null, is_revoked: false });
    expect((await seller.sdk.customers.getState({ id: customerId })).grantedBenefits.map((g) => g.benefitId)).not.toContain(benefit.id);

    github.oauth.user = "ada";
    github.addUser({ id: 4242, login: "ada" });
    const token = await connect(customerId, "github");
    const me = await fetch(`${server.url}/v1/customer-portal/customers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { oauth_accounts: unknown }).oauth_accounts).toEqual({ github: { account_id: "4242", account_username: "ada" } });
    // both SDKs read it (CustomerPortalCustomer.oauth_accounts)
    for (const portal of [new Polar({ serverURL: server.url }), new Polar049({ serverURL: server.url })]) {
      const customer = await portal.customerPortal.customers.get({ customerSession: token });
      expect(customer.oauthAccounts).toEqual({ github: { accountId: "4242", accountUsername: "ada" } });
    }

    // connecting healed the grant: invited with the benefit's permission, recorded on the grant
    const granted = await until("the invitation", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.properties.granted_account_id === "4242" && g.error === null && g;
    });
    const invitation = github.invitationOf("acme/private", "ada");
    expect(invitation?.[1].permission).toBe("pull");
    // delivered: granted from now on
    expect(granted.is_granted).toBe(true);
    expect(typeof granted.granted_at).toBe("string");
    expect((await seller.sdk.customers.getState({ id: customerId })).grantedBenefits.map((g) => g.benefitId)).toContain(benefit.id);
    expect(granted.properties).toMatchObject({
      repository_owner: "acme",
      repository_name: "private",
      permission: "pull",
      account_id: "4242",
      granted_account_id: "4242",
      invitation_id: invitation![0],
    });
    // the seller's token, never the customer's, does the inviting
    expect(github.seen.filter((s) => s.method === "PUT").every((s) => s.authorization === "token ghp_seller")).toBe(true);

    // a permission change re-grants; previous_properties keeps what it was
    await seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "private", permission: "push" } },
    });
    const updated = await until("the new permission", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.properties.permission === "push" && github.invitationOf("acme/private", "ada")?.[1].permission === "push" && g;
    });
    expect(updated.previous_properties).toMatchObject({ permission: "pull" });

    // the invitee accepts; a repository change removes them from the old one and invites them to the new
    github.accept(github.invitationOf("acme/private", "ada")![0]);
    await seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "other", permission: "push" } },
    });
    await until("the move to acme/other", async () => Boolean(github.invitationOf("acme/other", "ada")));
    expect(github.collaborators.get("acme/private")?.has("ada")).toBe(false);
    const moved = await until("the grant naming acme/other", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.properties.granted_repository === "acme/other" && g;
    });
    expect(moved.previous_properties).toMatchObject({ repository_name: "private" });

    // a refund with revoke_benefits cancels the pending invitation
    const [order] = (await seller.sdk.orders.list({ productId: product.id })).result.items;
    await seller.sdk.refunds.create({ orderId: order!.id, reason: "customer_request", amount: order!.totalAmount, revokeBenefits: true });
    await until("the invitation cancelled", async () => !github.invitationOf("acme/other", "ada"));

    // the grant webhooks pass both SDKs' validateEvent
    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      const types = new Set(mine.map((h) => (JSON.parse(h.body) as { type: string }).type));
      return types.has("benefit_grant.revoked") && types.has("benefit_grant.updated") && mine;
    }, 15_000);
    for (const hit of hits) {
      const event = validateEvent(hit.body, hit.headers, endpoint.secret);
      validateEvent049(hit.body, hit.headers, endpoint.secret);
      expect(event.type.startsWith("benefit_grant.")).toBe(true);
    }
    const errored = hits.map((h) => JSON.parse(h.body) as { type: string; data: Grant }).find((e) => e.type === "benefit_grant.updated" && e.data.error);
    expect(errored?.data.error?.type).toBe("account_not_connected");
  }, 60_000);

  it("revokes when the subscription is revoked, when a cancel at period end is reached, and when the customer is deleted", async () => {
    const benefit = await githubBenefit("acme/private", "pull");
    const product = await productWith(benefit.id, "monthly");
    github.addUser({ id: 5151, login: "bob" });
    github.oauth.user = "bob";
    const email = uniqueBuyer("bob");
    const first = await buy(product.id, email);
    await connect(first.customerId, "github");
    await until("bob's invitation", async () => Boolean(github.invitationOf("acme/private", "bob")));
    github.accept(github.invitationOf("acme/private", "bob")![0]);

    // the seller revokes the subscription: bob is removed
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id, customerId: first.customerId })).result.items;
    await seller.sdk.subscriptions.revoke({ id: sub!.id });
    await until("bob removed", async () => github.collaborators.get("acme/private")?.has("bob") === false);

    // buys again (the same customer, already connected: invited at once), cancels at period end, the period ends
    await buy(product.id, email);
    await until("bob invited again", async () => Boolean(github.invitationOf("acme/private", "bob")));
    const live = (await seller.sdk.subscriptions.list({ productId: product.id, customerId: first.customerId, active: true })).result.items[0]!;
    await seller.sdk.subscriptions.update({ id: live.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const renewed = await api("POST", `/v1/subscriptions/${live.id}/renew`, { current_period_start: live.currentPeriodStart.toISOString() });
    expect(renewed.status).toBe(200);
    await until("the invitation cancelled at period end", async () => !github.invitationOf("acme/private", "bob"));

    // once more, then the customer is deleted
    await buy(product.id, email);
    await until("bob invited a third time", async () => Boolean(github.invitationOf("acme/private", "bob")));
    await seller.sdk.customers.delete({ id: first.customerId });
    await until("the invitation cancelled on deletion", async () => !github.invitationOf("acme/private", "bob"));
  }, 60_000);

  it("disconnecting the account keeps the access it was given (as Polar, which has no disconnect); the grant's revoke still removes it", async () => {
    github.addUser({ id: 8181, login: "fay" });
    github.oauth.user = "fay";
    const benefit = await githubBenefit("acme/private", "pull");
    const product = await productWith(benefit.id);
    const { customerId } = await buy(product.id, uniqueBuyer("fay"));
    const token = await connect(customerId, "github");
    await until("fay's invitation", async () => Boolean(github.invitationOf("acme/private", "fay")));
    const granted = await until("fay's grant", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.properties.granted_account_id === "8181" && g;
    });

    // connecting may have queued a second delivery of the grant (the heal) beside the purchase's: let both settle
    const pendingOf = async () =>
      sqlRows<{ id: string }>(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${granted.id} AND status = 'pending'`);
    await until("fay's deliveries settled", async () => (await pendingOf()).length === 0);

    const calls = github.seen.length;
    const gone = await fetch(`${server.url}/v1/customer-portal/customers/me/oauth-accounts/github`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
    expect(gone.status).toBe(204);
    const me = await fetch(`${server.url}/v1/customer-portal/customers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { oauth_accounts: Record<string, unknown> }).oauth_accounts).toEqual({});
    // nothing is delivered: the invitation stands, the grant is unchanged
    server.worker.wake();
    expect(await pendingOf()).toHaveLength(0);
    expect(github.seen.slice(calls).filter((s) => s.path.startsWith("/repos/"))).toEqual([]);
    expect(github.invitationOf("acme/private", "fay")).toBeTruthy();
    expect(await grantOf(benefit.id, customerId)).toMatchObject({ is_revoked: false, error: null, properties: { granted_account_id: "8181", account_username: "fay" } });

    // the refund's revoke needs no connected account: it cancels what the grant made
    const [order] = (await seller.sdk.orders.list({ productId: product.id })).result.items;
    await seller.sdk.refunds.create({ orderId: order!.id, reason: "customer_request", amount: order!.totalAmount, revokeBenefits: true });
    await until("the invitation cancelled after the disconnect", async () => !github.invitationOf("acme/private", "fay"));
    expect((await grantOf(benefit.id, customerId))?.is_revoked).toBe(true);
  }, 60_000);

  it("customerPortal.benefitGrants.update with the connected account delivers the grant again (both SDKs); another account is a 422", async () => {
    github.addUser({ id: 5151, login: "gus" });
    github.oauth.user = "gus";
    const benefit = await githubBenefit("acme/other", "push");
    const product = await productWith(benefit.id);
    const { customerId } = await buy(product.id, uniqueBuyer("gus"));
    const token = await connect(customerId, "github");
    const first = await until("gus's invitation", async () => github.invitationOf("acme/other", "gus"));
    const granted = await until("gus's grant", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.properties.granted_account_id === "5151" && g;
    });
    const pendingOf = async () => sqlRows<{ id: string }>(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${granted.id} AND status = 'pending'`);
    await until("gus's deliveries settled", async () => (await pendingOf()).length === 0);
    // the invitation was declined on GitHub's side: the customer asks for the access again from the portal
    github.invitations.delete(first[0]);

    const portal = new Polar({ serverURL: server.url });
    const portal049 = new Polar049({ serverURL: server.url });
    const update = (accountId: string) => ({ id: granted.id, customerBenefitGrantUpdate: { benefitType: "github_repository" as const, properties: { accountId } } });
    const refused = await portal.customerPortal.benefitGrants.update({ customerSession: token }, update("999")).catch((e: unknown) => e);
    expect((refused as { detail?: Array<{ loc: unknown }> }).detail?.[0]?.loc).toEqual(["body", "properties", "account_id"]);
    expect(await pendingOf()).toHaveLength(0);

    const answered = await portal049.customerPortal.benefitGrants.update({ customerSession: token }, update("5151"));
    expect(answered).toMatchObject({ id: granted.id, customerId, isRevoked: false });
    const again = await until("gus's new invitation", async () => github.invitationOf("acme/other", "gus"));
    expect(again[0]).not.toBe(first[0]);
    expect(again[1].permission).toBe("push");
    await until("the grant recording it", async () => (await grantOf(benefit.id, customerId))?.properties.invitation_id === again[0]);
    const via047 = await portal.customerPortal.benefitGrants.update({ customerSession: token }, update("5151"));
    expect(via047.id).toBe(granted.id);
  }, 60_000);

  it("waits out a rate limit, retries a 5xx later, and heals a permanent error when the benefit or the repository is fixed", async () => {
    github.addUser({ id: 6161, login: "cy" });
    github.oauth.user = "cy";
    const benefit = await githubBenefit("acme/private", "pull");
    const product = await productWith(benefit.id);
    const email = uniqueBuyer("cy");
    const { customerId } = await buy(product.id, email);
    await connect(customerId, "github");
    await until("cy's grant", async () => (await grantOf(benefit.id, customerId))?.properties.granted_account_id === "6161");
    github.invitations.delete(github.invitationOf("acme/private", "cy")![0]);

    // a primary rate limit (x-ratelimit-remaining: 0, reset in a second): waited out within the delivery
    const reset = String(Math.ceil(Date.now() / 1000) + 1);
    github.fail("PUT", "/repos/acme/private/collaborators/cy", 403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }, { message: "API rate limit exceeded" });
    const regrant = await api("POST", `/v1/benefit-grants/${(await grantOf(benefit.id, customerId))!.id}/regrant`);
    expect(regrant.status).toBe(202);
    await until("the invitation after the rate limit", async () => Boolean(github.invitationOf("acme/private", "cy")), 20_000);
    expect((await grantOf(benefit.id, customerId))!.error).toBeNull();

    // 502 twice (the client's own retry too): a transient failure, tried again later without an error on the grant
    github.invitations.delete(github.invitationOf("acme/private", "cy")![0]);
    github.fail("PUT", "/repos/acme/private/collaborators/cy", 502);
    github.fail("PUT", "/repos/acme/private/collaborators/cy", 502);
    const grantId = (await grantOf(benefit.id, customerId))!.id;
    await api("POST", `/v1/benefit-grants/${grantId}/regrant`);
    const pending = await until("a delivery waiting to retry", async () => {
      const [row] = await sqlRows<{ attempts: number; last_error: string }>(sql`SELECT attempts, last_error FROM benefit_delivery WHERE grant_id = ${grantId} AND status = 'pending' AND attempts > 0`);
      return row;
    }, 20_000);
    expect(pending.last_error).toMatch(/502|failure/);
    expect((await grantOf(benefit.id, customerId))!.error).toBeNull();
    await sqlRows(sql`UPDATE benefit_delivery SET next_attempt_at = now() WHERE grant_id = ${grantId} AND status = 'pending'`);
    await until("the invitation after the retry", async () => Boolean(github.invitationOf("acme/private", "cy")));

    // a repository that does not exist: a permanent error, healed when the benefit names one that does
    await seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "missing", permission: "pull" } },
    });
    const failed = await until("the not_found error", async () => (await grantOf(benefit.id, customerId))?.error);
    expect(failed).toMatchObject({ type: "not_found" });
    expect(Date.parse(failed.timestamp)).not.toBeNaN();
    // the seller fixes the benefit: the errored grant is delivered again, to the repository that exists
    await seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "other", permission: "pull" } },
    });
    const fixed = await until("healed by the benefit update", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.error === null && g.properties.granted_repository === "acme/other" && g;
    });
    expect(fixed.properties).toMatchObject({ repository_name: "other", granted_account_id: "6161" });
    expect(github.invitationOf("acme/other", "cy")?.[1].permission).toBe("pull");
    // back to the missing repository: not_found again
    await seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "missing", permission: "pull" } },
    });
    await until("the not_found error again", async () => (await grantOf(benefit.id, customerId))?.error?.type === "not_found");
    // `till benefits regrant` after the seller creates the repository heals it too
    github.repositories.add("acme/missing");
    await api("POST", `/v1/benefit-grants/${grantId}/regrant`);
    await until("healed", async () => {
      const g = await grantOf(benefit.id, customerId);
      return g?.error === null && g.properties.granted_repository === "acme/missing";
    });
    // another organization's grant is a 404
    const other = await createSeller(server, "other");
    const foreign = await rawRequest(server.url, other.token, "POST", `/v1/benefit-grants/${grantId}/regrant`);
    expect(foreign.status).toBe(404);
  }, 60_000);

  it("a benefit created before GitHub is connected warns the seller (a till-only field the SDKs drop); its grants stay not granted, and the portal tells the customer access will follow, never the seller's command", async () => {
    const fresh = await createSeller(server, "unconnected");
    const body = { type: "github_repository", description: "Early access", properties: { repository_owner: "acme", repository_name: "private", permission: "pull" } };
    const created = await rawRequest(server.url, fresh.token, "POST", "/v1/benefits/", body);
    expect(created.status).toBe(201);
    const warnings = (created.body as { warnings?: string[] }).warnings;
    expect(warnings).toHaveLength(1);
    expect(warnings![0]).toMatch(/GitHub is not connected.*till benefits github connect/);
    // both SDKs still parse the answer (the extra field dropped)
    const viaSdk = await fresh.sdk.benefits.create({ type: "github_repository", description: "Early access 2", properties: { repositoryOwner: "acme", repositoryName: "private", permission: "pull" } });
    expect(viaSdk.type).toBe("github_repository");
    expect("warnings" in viaSdk).toBe(false);
    const via049 = await new Polar049({ serverURL: server.url, accessToken: fresh.token }).benefits.create({
      type: "github_repository",
      description: "Early access 3",
      properties: { repositoryOwner: "acme", repositoryName: "private", permission: "pull" },
    });
    expect(via049.type).toBe("github_repository");
    // types till gives itself, and an organization that connected GitHub, get no warning
    const custom = await rawRequest(server.url, fresh.token, "POST", "/v1/benefits/", { type: "custom", description: "Note", properties: { note: "hi" } });
    expect((custom.body as { warnings?: unknown }).warnings).toBeUndefined();
    const connectedSeller = await rawRequest(server.url, seller.token, "POST", "/v1/benefits/", { ...body, description: "Connected" });
    expect((connectedSeller.body as { warnings?: unknown }).warnings).toBeUndefined();

    const benefitId = (created.body as { id: string }).id;
    const product = await createProduct(fresh, "fixed");
    await fresh.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefitId] } });
    const confirmed = await pay(server, await fresh.sdk.checkouts.create({ products: [product.id] }));
    const customerId = confirmed.customerId!;
    const grantsOfFresh = async () => ((await rawRequest(server.url, fresh.token, "GET", `/v1/benefits/${benefitId}/grants`)).body as { items: Grant[] }).items;
    const waiting = await until("the integration_missing error", async () => {
      const [g] = await grantsOfFresh();
      return g?.error?.type === "integration_missing" && g;
    });
    expect(waiting).toMatchObject({ is_granted: false, granted_at: null, is_revoked: false });
    expect(waiting.error?.message).toMatch(/till benefits github connect/);
    // the customer's portal shows the grant not granted, with a message for the customer (no seller command)
    const session = await fresh.sdk.customerSessions.create({ customerId });
    const portal = await fetch(`${server.url}/v1/customer-portal/benefit-grants/`, { headers: { authorization: `Bearer ${session.token}` } });
    const portalGrant = ((await portal.json()) as { items: Grant[] }).items.find((g) => g.id === waiting.id)!;
    expect(portalGrant).toMatchObject({ is_granted: false, error: { type: "integration_missing" } });
    expect(portalGrant.error!.message).not.toMatch(/till /);
    expect(portalGrant.error!.message).toMatch(/Access will follow/);
    for (const sdk of [new Polar({ serverURL: server.url }), new Polar049({ serverURL: server.url })]) {
      const listed = await sdk.customerPortal.benefitGrants.list({ customerSession: session.token }, {});
      expect(listed.result.items.find((g) => g.id === waiting.id)?.isGranted).toBe(false);
    }
  }, 60_000);

  it("authenticates as a GitHub App installation (installation tokens from the app's private key)", async () => {
    const app = await createSeller(server, "app");
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    github.app = { id: "777", publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(), installationId: "888" };
    const put = await rawRequest(server.url, app.token, "PUT", "/v1/benefit-integrations/github", {
      app_id: "777",
      private_key: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
      installation_id: "888",
      client_id: "gh-client",
      client_secret: "gh-secret",
    });
    expect(put.status).toBe(200);
    const benefit = await app.sdk.benefits.create({
      type: "github_repository",
      description: "App access",
      properties: { repositoryOwner: "acme", repositoryName: "private", permission: "triage" },
    });
    const product = await createProduct(app, "fixed");
    await app.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    github.addUser({ id: 7171, login: "dee" });
    github.oauth.user = "dee";
    const checkout = await app.sdk.checkouts.create({ products: [product.id] });
    const confirmed = await pay(server, checkout);
    const session = await app.sdk.customerSessions.create({ customerId: confirmed.customerId! });
    const start = await fetch(`${server.url}/v1/customer-portal/customers/me/oauth-accounts/authorize?platform=github`, { headers: { authorization: `Bearer ${session.token}` } });
    const { url } = (await start.json()) as { url: string };
    const approved = await fetch(url, { redirect: "manual" });
    await fetch(approved.headers.get("location")!, { redirect: "manual" });
    await until("dee's invitation", async () => github.invitationOf("acme/private", "dee")?.[1].permission === "triage");
    expect(github.seen.some((s) => s.path === "/app/installations/888/access_tokens")).toBe(true);
  }, 60_000);
});

describe("discord", () => {
  const guild = "100000000000000001";
  const member = "300000000000000003";
  const tooHigh = "300000000000000009";

  const manageRoles = String(1n << 28n);

  beforeAll(async () => {
    discord.botToken = "bot-token";
    discord.addGuild(guild, [
      { id: "200000000000000002", position: 5, permissions: manageRoles },
      { id: member, position: 2, permissions: "0" },
      { id: tooHigh, position: 9, permissions: "0" },
    ], ["200000000000000002"]);
    const ok = await api("PUT", "/v1/benefit-integrations/discord", { bot_token: "bot-token", client_id: "555", client_secret: "dc-secret" });
    expect(ok.status).toBe(200);
  });

  /** A discord benefit on `guildId`/`roleId` through the API (the 422 of the bot check comes back as is). */
  const discordBenefit = (guildId: string, roleId: string, kick = false) =>
    api("POST", "/v1/benefits/", { type: "discord", description: `Role ${roleId}`, properties: { guild_token: guildId, guild_id: guildId, role_id: roleId, kick_member: kick } });

  /** A customer who bought `productId` and connected Discord as `userId`, once the role is given. */
  async function discordCustomer(productId: string, userId: string, guildId: string, roleId: string) {
    discord.users.set(userId, { id: userId, username: `u${userId.slice(-2)}` });
    discord.oauth.user = userId;
    const { customerId } = await buy(productId, uniqueBuyer(`dc${userId.slice(-2)}`));
    await connect(customerId, "discord");
    await until(`${userId}'s role`, async () => discord.rolesOf(guildId, userId)?.includes(roleId));
    return customerId;
  }

  it("checks the bot can give the role, refreshes the customer token before expiry, joins the customer with the role, honours a 429, removes the role or kicks on revoke, waits for a reconnect when the refresh is refused", async () => {
    // a bot token Discord refuses is not stored (the one connected before stays)
    const refused = await api("PUT", "/v1/benefit-integrations/discord", { bot_token: "wrong", client_id: "555", client_secret: "dc-secret" });
    expect(refused.status).toBe(422);

    const above = await api("POST", "/v1/benefits/", {
      type: "discord",
      description: "Too high",
      properties: { guild_token: guild, guild_id: guild, role_id: tooHigh, kick_member: false },
    });
    expect(above.status).toBe(422);
    expect(JSON.stringify(above.body)).toMatch(/above role/);

    const created = await api("POST", "/v1/benefits/", {
      type: "discord",
      description: "Members role",
      properties: { guild_token: guild, guild_id: guild, role_id: member, kick_member: false },
    });
    expect(created.status).toBe(201);
    const benefitId = (created.body as { id: string }).id;
    const product = await productWith(benefitId, "monthly");
    discord.users.set("400000000000000004", { id: "400000000000000004", username: "eve" });
    discord.oauth.user = "400000000000000004";
    discord.expiresIn = 60; // within the refresh margin: refreshed before use
    const email = uniqueBuyer("eve");
    const { customerId } = await buy(product.id, email);
    await until("the discord error", async () => (await grantOf(benefitId, customerId))?.error?.type === "account_not_connected");

    discord.fail("PUT", `/api/v10/guilds/${guild}/members/400000000000000004/roles/`, 429, { "retry-after": "1", "x-ratelimit-scope": "user" }, { message: "You are being rate limited.", retry_after: 0.5, global: false });
    await connect(customerId, "discord");
    const granted = await until("the role", async () => {
      const g = await grantOf(benefitId, customerId);
      return g?.properties.granted_account_id === "400000000000000004" && g;
    }, 20_000);
    expect(discord.rolesOf(guild, "400000000000000004")).toEqual([member]);
    expect(granted.properties).toMatchObject({ guild_id: guild, role_id: member, account_id: "400000000000000004" });
    expect(granted.error).toBeNull();
    // the token was refreshed before the join
    expect(discord.seen.some((s) => s.path === "/api/oauth2/token" && (s.body as { grant_type?: string }).grant_type === "refresh_token")).toBe(true);

    // revoke removes the role (kick_member false)
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id, customerId })).result.items;
    await seller.sdk.subscriptions.revoke({ id: sub!.id });
    await until("the role removed", async () => discord.rolesOf(guild, "400000000000000004")?.length === 0);

    // with kick_member the member leaves the guild
    await api("PATCH", `/v1/benefits/${benefitId}`, { type: "discord", properties: { guild_token: guild, guild_id: guild, role_id: member, kick_member: true } });
    await buy(product.id, email);
    await until("the role again", async () => discord.rolesOf(guild, "400000000000000004")?.includes(member));
    const [again] = (await seller.sdk.subscriptions.list({ productId: product.id, customerId, active: true })).result.items;
    await seller.sdk.subscriptions.revoke({ id: again!.id });
    await until("kicked", async () => discord.rolesOf(guild, "400000000000000004") === undefined);

    // the stored token is due for a refresh again, and Discord refuses it (the customer deauthorized the app):
    // the grant waits for the account; connecting it again heals the grant
    discord.deauthorize();
    const refreshes = () => discord.seen.filter((s) => s.path === "/api/oauth2/token" && (s.body as { grant_type?: string }).grant_type === "refresh_token").length;
    const before = refreshes();
    await buy(product.id, email);
    const expired = await until("the expired connection's error", async () => {
      const g = (await grantsOf(benefitId)).find((x) => x.customer_id === customerId && !x.is_revoked);
      return g?.error?.type === "account_not_connected" && g;
    });
    expect(expired.error?.message).toMatch(/expired/);
    expect(refreshes()).toBeGreaterThan(before);
    expect(discord.rolesOf(guild, "400000000000000004")).toBeUndefined();
    await connect(customerId, "discord");
    await until("the role after connecting again", async () => discord.rolesOf(guild, "400000000000000004")?.includes(member));
  }, 60_000);
  it("moves the role when the benefit changes guild (the old guild's role removed, previous_properties naming it); a revoke after a guild change removes the role where it was given", async () => {
    const guildB = "100000000000000011";
    const roleB = "300000000000000013";
    discord.addGuild(guildB, [{ id: "200000000000000012", position: 5, permissions: manageRoles }, { id: roleB, position: 2, permissions: "0" }], ["200000000000000012"]);
    const created = await discordBenefit(guild, member);
    expect(created.status).toBe(201);
    const benefitId = (created.body as { id: string }).id;
    const product = await productWith(benefitId, "monthly");
    const user = "400000000000000014";
    const customerId = await discordCustomer(product.id, user, guild, member);
    const granted = await until("the grant recording the role", async () => {
      const g = await grantOf(benefitId, customerId);
      return g?.properties.granted_role_id === member && g;
    });
    const pendingOf = async () =>
      sqlRows<{ id: string }>(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${granted.id} AND status = 'pending'`);
    await until("the deliveries settled", async () => (await pendingOf()).length === 0);

    const patched = await api("PATCH", `/v1/benefits/${benefitId}`, { type: "discord", properties: { guild_token: guildB, guild_id: guildB, role_id: roleB, kick_member: false } });
    expect(patched.status).toBe(200);
    const moved = await until("the role given in the second guild", async () => {
      const g = await grantOf(benefitId, customerId);
      return g?.properties.granted_role_id === roleB && g;
    });
    expect(discord.rolesOf(guildB, user)).toEqual([roleB]);
    expect(discord.rolesOf(guild, user)).toEqual([]);
    expect(moved.error).toBeNull();
    expect(moved.properties).toMatchObject({ guild_id: guildB, role_id: roleB, granted_guild_id: guildB, granted_role_id: roleB });
    expect(moved.previous_properties).toMatchObject({ guild_id: guild, role_id: member });

    // the benefit goes back to the first guild and the subscription is revoked before any delivery runs: the
    // revoke removes the role from the guild it was given in (the grant's guild_id already names the other)
    await server.worker.stop();
    try {
      await api("PATCH", `/v1/benefits/${benefitId}`, { type: "discord", properties: { guild_token: guild, guild_id: guild, role_id: member, kick_member: false } });
      const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id, customerId })).result.items;
      await seller.sdk.subscriptions.revoke({ id: sub!.id });
    } finally {
      await server.worker.start();
    }
    // the revoke's delivery is made by the worker's fan-out: wait for it to exist and finish
    await until("the revoke delivered", async () => {
      const revokes = await sqlRows<{ status: string }>(sql`SELECT status FROM benefit_delivery WHERE grant_id = ${granted.id} AND action = 'revoke'`);
      return revokes.length > 0 && revokes.every((r) => r.status !== "pending");
    });
    const revoked = (await grantOf(benefitId, customerId))!;
    expect(revoked.is_revoked).toBe(true);
    expect(discord.rolesOf(guildB, user)).toEqual([]);
    expect(discord.rolesOf(guild, user)).toEqual([]);
    expect(revoked.error).toBeNull();
    expect(revoked.properties).toMatchObject({ granted_role_id: null });
    // no account holds the role: granted_account_id is absent (Polar's schema: a string or absent, never null)
    expect(revoked.properties).not.toHaveProperty("granted_account_id");
    for (const sdk of [seller.sdk, seller.sdk049]) {
      const page = await sdk.benefits.grants({ id: benefitId });
      expect(page.result.items.find((g) => g.id === revoked.id)?.isRevoked).toBe(true);
    }
  }, 60_000);

  it("refuses a benefit the bot cannot give (422); a bot lowered later fails the grant and the revoke as forbidden, both told by benefit_grant.updated; connecting the bot again re-runs the revoke", async () => {
    const guildC = "100000000000000021";
    const botRole = "200000000000000022";
    const roleC = "300000000000000023";
    discord.addGuild(guildC, [{ id: botRole, position: 5, permissions: manageRoles }, { id: roleC, position: 2, permissions: "0" }], [botRole]);

    const missingRole = await discordBenefit(guildC, "300000000000000099");
    expect(missingRole.status).toBe(422);
    expect(JSON.stringify(missingRole.body)).toMatch(/does not exist/);
    discord.setBotRoles(guildC, []);
    const noManage = await discordBenefit(guildC, roleC);
    expect(noManage.status).toBe(422);
    expect(JSON.stringify(noManage.body)).toMatch(/lacks the Manage Roles/);
    discord.members.get(guildC)!.delete(discord.botId);
    const notIn = await discordBenefit(guildC, roleC);
    expect(notIn.status).toBe(422);
    expect(JSON.stringify(notIn.body)).toMatch(/not in guild/);
    discord.setBotRoles(guildC, [botRole]);

    const path = "/discord-forbidden";
    const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events: ["benefit_grant.updated"] });
    const created = await discordBenefit(guildC, roleC);
    expect(created.status).toBe(201);
    const benefitId = (created.body as { id: string }).id;
    const product = await productWith(benefitId, "monthly");

    // the guild's owner moves the bot's role below the benefit's after the benefit was made
    discord.setBotRoles(guildC, []);
    const user = "400000000000000024";
    discord.users.set(user, { id: user, username: "hal" });
    discord.oauth.user = user;
    const { customerId } = await buy(product.id, uniqueBuyer("hal"));
    await until("the purchase's delivery", async () => (await grantOf(benefitId, customerId))?.error?.type === "account_not_connected");
    await connect(customerId, "discord");
    const forbidden = await until("the forbidden error", async () => {
      const g = await grantOf(benefitId, customerId);
      return g?.error?.type === "forbidden" && g;
    });
    expect(forbidden.error?.message).toMatch(/lacks the permission/);
    expect(discord.rolesOf(guildC, user)).toBeUndefined();

    // given back its role, a regrant delivers; lowered again, the revoke cannot take the role away
    discord.setBotRoles(guildC, [botRole]);
    expect((await api("POST", `/v1/benefit-grants/${forbidden.id}/regrant`)).status).toBe(202);
    await until("the role after the regrant", async () => discord.rolesOf(guildC, user)?.includes(roleC));
    await until("the healed grant", async () => (await grantOf(benefitId, customerId))?.error === null);
    await until("the deliveries settled", async () => (await sqlRows(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${forbidden.id} AND status = 'pending'`)).length === 0);
    discord.setBotRoles(guildC, []);
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id, customerId })).result.items;
    await seller.sdk.subscriptions.revoke({ id: sub!.id });
    const failedRevoke = await until("the failed revoke's error", async () => {
      const g = await grantOf(benefitId, customerId);
      return g?.is_revoked && g.error?.message.startsWith("Removing role") && g;
    });
    expect(failedRevoke.error?.type).toBe("forbidden");
    expect(discord.rolesOf(guildC, user)).toEqual([roleC]);

    // the seller gives the bot its role back and connects it again: the failed revoke runs again and works
    discord.setBotRoles(guildC, [botRole]);
    const again = await api("PUT", "/v1/benefit-integrations/discord", { bot_token: "bot-token", client_id: "555", client_secret: "dc-secret" });
    expect((again.body as { regranted: number }).regranted).toBeGreaterThanOrEqual(1);
    await until("the role removed by the healed revoke", async () => discord.rolesOf(guildC, user)?.length === 0);
    await until("the revoked grant without error", async () => (await grantOf(benefitId, customerId))?.error === null);

    // the seller heard of all three through benefit_grant.updated, which both SDKs validate
    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path).map((h) => ({ hit: h, event: JSON.parse(h.body) as { type: string; data: Grant } }));
      const grantFailed = mine.some((m) => !m.event.data.is_revoked && m.event.data.error?.type === "forbidden");
      const revokeFailed = mine.some((m) => m.event.data.is_revoked && m.event.data.error?.type === "forbidden");
      const revokeHealed = mine.some((m) => m.event.data.is_revoked && m.event.data.error === null);
      return grantFailed && revokeFailed && revokeHealed && mine;
    }, 15_000);
    for (const { hit, event } of hits) {
      expect(validateEvent(hit.body, hit.headers, endpoint.secret).type).toBe("benefit_grant.updated");
      validateEvent049(hit.body, hit.headers, endpoint.secret);
      expect(event.data.customer_id).toBe(customerId);
    }
  }, 60_000);
});
