// github_repository grants delivered by the jobs worker against loopback peers of GitHub's REST API and
// OAuth server (tests/helpers/delivery-peers.ts): grant, revoke on each cause, benefit update with
// previous_properties, rate limits, transient retry, permanent error and heal, regrant, a GitHub App installation,
// and the grant webhooks through validateEvent of SDK 0.47.1 and 0.49.0. Discord: benefit-delivery-discord.test.ts.
import { generateKeyPairSync } from "node:crypto";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { type Grant } from "../helpers/delivery-flow.js";
import { createSeller } from "../helpers/seller.js";
import { deliveryFixture } from "./delivery-fixtures.js";

const fx = deliveryFixture();

describe("github_repository", () => {
  it("waits for the account, invites it once connected, follows benefit updates (previous_properties) and revokes on refund", async () => {
    const path = "/grants";
    const endpoint = await fx.seller.sdk.webhooks.createWebhookEndpoint({
      url: `${fx.receiver.url}${path}`,
      format: "raw",
      events: ["benefit_grant.created", "benefit_grant.updated", "benefit_grant.revoked"],
    });
    const benefit = await fx.githubBenefit("acme/private", "pull");
    const product = await fx.productWith(benefit.id);
    const email = uniqueBuyer("gh");
    const { customerId } = await fx.buy(product.id, email);

    // the order confirmation invites the customer to connect the account the benefit needs
    const mail = await fx.server.mailbox.waitFor(email, /receipt/, 15_000);
    expect(mail.text).toMatch(/Connect your GitHub account/);
    // its button is a link to the seller's customer portal (where the customer signs in and connects), which answers
    const button = /<a[^>]*href="([^"]+)"[^>]*>(?:(?!<\/a>)[\s\S])*Connect your GitHub account/.exec(mail.html ?? "");
    expect(button?.[1]).toBe(`${fx.server.url}/portal?organization=${encodeURIComponent(fx.seller.slug)}`);
    const portal = await fetch(button![1]!.replaceAll("&amp;", "&"));
    expect(portal.status).toBe(200);
    expect(portal.headers.get("content-type")).toMatch(/text\/html/);

    // no account yet: a permanent error that says what it waits for
    const waiting = await fx.until("the grant's error", async () => (await fx.grantOf(benefit.id, customerId))?.error);
    expect(waiting).toMatchObject({ type: "account_not_connected" });
    expect(waiting.message).toMatch(/connect a GitHub account/);
    expect((await fx.grantOf(benefit.id, customerId))!.properties).toMatchObject({ account_id: null });
    // not delivered: not granted (as Polar), and not in the customer state's granted benefits
    expect(await fx.grantOf(benefit.id, customerId)).toMatchObject({ is_granted: false, granted_at: null, is_revoked: false });
    expect((await fx.seller.sdk.customers.getState({ id: customerId })).grantedBenefits.map((g) => g.benefitId)).not.toContain(benefit.id);

    fx.github.oauth.user = "ada";
    fx.github.addUser({ id: 4242, login: "ada" });
    const token = await fx.connect(customerId, "github");
    const me = await fetch(`${fx.server.url}/v1/customer-portal/customers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { oauth_accounts: unknown }).oauth_accounts).toEqual({ github: { account_id: "4242", account_username: "ada" } });
    // both SDKs read it (CustomerPortalCustomer.oauth_accounts)
    for (const portal of [new Polar({ serverURL: fx.server.url }), new Polar049({ serverURL: fx.server.url })]) {
      const customer = await portal.customerPortal.customers.get({ customerSession: token });
      expect(customer.oauthAccounts).toEqual({ github: { accountId: "4242", accountUsername: "ada" } });
    }

    // connecting healed the grant: invited with the benefit's permission, recorded on the grant
    const granted = await fx.until("the invitation", async () => {
      const g = await fx.grantOf(benefit.id, customerId);
      return g?.properties.granted_account_id === "4242" && g.error === null && g;
    });
    const invitation = fx.github.invitationOf("acme/private", "ada");
    expect(invitation?.[1].permission).toBe("pull");
    // delivered: granted from now on
    expect(granted.is_granted).toBe(true);
    expect(typeof granted.granted_at).toBe("string");
    expect((await fx.seller.sdk.customers.getState({ id: customerId })).grantedBenefits.map((g) => g.benefitId)).toContain(benefit.id);
    expect(granted.properties).toMatchObject({
      repository_owner: "acme",
      repository_name: "private",
      permission: "pull",
      account_id: "4242",
      granted_account_id: "4242",
      invitation_id: invitation![0],
    });
    // the seller's token, never the customer's, does the inviting
    expect(fx.github.seen.filter((s) => s.method === "PUT").every((s) => s.authorization === "token ghp_seller")).toBe(true);

    // a permission change re-grants; previous_properties keeps what it was
    await fx.seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "private", permission: "push" } },
    });
    const updated = await fx.until("the new permission", async () => {
      const g = await fx.grantOf(benefit.id, customerId);
      return g?.properties.permission === "push" && fx.github.invitationOf("acme/private", "ada")?.[1].permission === "push" && g;
    });
    expect(updated.previous_properties).toMatchObject({ permission: "pull" });

    // the invitee accepts; a repository change removes them from the old one and invites them to the new
    fx.github.accept(fx.github.invitationOf("acme/private", "ada")![0]);
    await fx.seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "other", permission: "push" } },
    });
    await fx.until("the move to acme/other", async () => Boolean(fx.github.invitationOf("acme/other", "ada")));
    expect(fx.github.collaborators.get("acme/private")?.has("ada")).toBe(false);
    const moved = await fx.until("the grant naming acme/other", async () => {
      const g = await fx.grantOf(benefit.id, customerId);
      return g?.properties.granted_repository === "acme/other" && g;
    });
    expect(moved.previous_properties).toMatchObject({ repository_name: "private" });

    // a refund with revoke_benefits cancels the pending invitation
    const [order] = (await fx.seller.sdk.orders.list({ productId: product.id })).result.items;
    await fx.seller.sdk.refunds.create({ orderId: order!.id, reason: "customer_request", amount: order!.totalAmount, revokeBenefits: true });
    await fx.until("the invitation cancelled", async () => !fx.github.invitationOf("acme/other", "ada"));

    // the grant webhooks pass both SDKs' validateEvent
    const hits = await fx.receiver.until((all) => {
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
    const benefit = await fx.githubBenefit("acme/private", "pull");
    const product = await fx.productWith(benefit.id, "monthly");
    fx.github.addUser({ id: 5151, login: "bob" });
    fx.github.oauth.user = "bob";
    const email = uniqueBuyer("bob");
    const first = await fx.buy(product.id, email);
    await fx.connect(first.customerId, "github");
    await fx.until("bob's invitation", async () => Boolean(fx.github.invitationOf("acme/private", "bob")));
    fx.github.accept(fx.github.invitationOf("acme/private", "bob")![0]);
    // connecting may have queued a second delivery of the grant (the heal) beside the purchase's: both settle before
    // the revoke, which is what this test is about (a heal requested before a revoke and delivered after it is not)
    const grant = await fx.until("bob's grant", () => fx.grantOf(benefit.id, first.customerId));
    await fx.until("bob's deliveries settled", async () =>
      (await fx.sqlRows<{ id: string }>(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${grant.id} AND status = 'pending'`)).length === 0);

    // the seller revokes the subscription: bob is removed
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: product.id, customerId: first.customerId })).result.items;
    await fx.seller.sdk.subscriptions.revoke({ id: sub!.id });
    await fx.until("bob removed", async () => fx.github.collaborators.get("acme/private")?.has("bob") === false);

    // buys again (the same customer, already connected: invited at once), cancels at period end, the period ends
    await fx.buy(product.id, email);
    await fx.until("bob invited again", async () => Boolean(fx.github.invitationOf("acme/private", "bob")));
    const live = (await fx.seller.sdk.subscriptions.list({ productId: product.id, customerId: first.customerId, active: true })).result.items[0]!;
    await fx.seller.sdk.subscriptions.update({ id: live.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const renewed = await fx.api("POST", `/v1/subscriptions/${live.id}/renew`, { current_period_start: live.currentPeriodStart.toISOString() });
    expect(renewed.status).toBe(200);
    await fx.until("the invitation cancelled at period end", async () => !fx.github.invitationOf("acme/private", "bob"));

    // once more, then the customer is deleted
    await fx.buy(product.id, email);
    await fx.until("bob invited a third time", async () => Boolean(fx.github.invitationOf("acme/private", "bob")));
    await fx.seller.sdk.customers.delete({ id: first.customerId });
    await fx.until("the invitation cancelled on deletion", async () => !fx.github.invitationOf("acme/private", "bob"));
  }, 150_000);

  it("disconnecting the account keeps the access it was given (as Polar, which has no disconnect); the grant's revoke still removes it", async () => {
    // connecting may have queued a second delivery of the grant (the heal) beside the purchase's: both settle first
    const { benefitId, productId, customerId, token, grant: granted } = await fx.githubGrant("fay", 8181);
    const pendingOf = async () =>
      fx.sqlRows<{ id: string }>(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${granted.id} AND status = 'pending'`);

    const calls = fx.github.seen.length;
    const gone = await fetch(`${fx.server.url}/v1/customer-portal/customers/me/oauth-accounts/github`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
    expect(gone.status).toBe(204);
    const me = await fetch(`${fx.server.url}/v1/customer-portal/customers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { oauth_accounts: Record<string, unknown> }).oauth_accounts).toEqual({});
    // nothing is delivered: the invitation stands, the grant is unchanged
    fx.server.worker.wake();
    expect(await pendingOf()).toHaveLength(0);
    expect(fx.github.seen.slice(calls).filter((s) => s.path.startsWith("/repos/"))).toEqual([]);
    expect(fx.github.invitationOf("acme/private", "fay")).toBeTruthy();
    expect(await fx.grantOf(benefitId, customerId)).toMatchObject({ is_revoked: false, error: null, properties: { granted_account_id: "8181", account_username: "fay" } });

    // the refund's revoke needs no connected account: it cancels what the grant made
    const [order] = (await fx.seller.sdk.orders.list({ productId })).result.items;
    await fx.seller.sdk.refunds.create({ orderId: order!.id, reason: "customer_request", amount: order!.totalAmount, revokeBenefits: true });
    await fx.until("the invitation cancelled after the disconnect", async () => !fx.github.invitationOf("acme/private", "fay"));
    expect((await fx.grantOf(benefitId, customerId))?.is_revoked).toBe(true);
  }, 60_000);

  it("customerPortal.benefitGrants.update with the connected account delivers the grant again (both SDKs); another account is a 422", async () => {
    const { benefitId, customerId, token, invitation: first, grant: granted } = await fx.githubGrant("gus", 5151, "acme/other", "push");
    const pendingOf = async () => fx.sqlRows<{ id: string }>(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${granted.id} AND status = 'pending'`);
    // the invitation was declined on GitHub's side: the customer asks for the access again from the portal
    fx.github.invitations.delete(first[0]);

    const portal = new Polar({ serverURL: fx.server.url });
    const portal049 = new Polar049({ serverURL: fx.server.url });
    const update = (accountId: string) => ({ id: granted.id, customerBenefitGrantUpdate: { benefitType: "github_repository" as const, properties: { accountId } } });
    const refused = await portal.customerPortal.benefitGrants.update({ customerSession: token }, update("999")).catch((e: unknown) => e);
    expect((refused as { detail?: Array<{ loc: unknown }> }).detail?.[0]?.loc).toEqual(["body", "properties", "account_id"]);
    expect(await pendingOf()).toHaveLength(0);

    const answered = await portal049.customerPortal.benefitGrants.update({ customerSession: token }, update("5151"));
    expect(answered).toMatchObject({ id: granted.id, customerId, isRevoked: false });
    const again = await fx.until("gus's new invitation", async () => fx.github.invitationOf("acme/other", "gus"));
    expect(again[0]).not.toBe(first[0]);
    expect(again[1].permission).toBe("push");
    await fx.until("the grant recording it", async () => (await fx.grantOf(benefitId, customerId))?.properties.invitation_id === again[0]);
    const via047 = await portal.customerPortal.benefitGrants.update({ customerSession: token }, update("5151"));
    expect(via047.id).toBe(granted.id);
  }, 60_000);

  it("waits out a rate limit, retries a 5xx later, and heals a permanent error when the benefit or the repository is fixed", async () => {
    fx.github.addUser({ id: 6161, login: "cy" });
    fx.github.oauth.user = "cy";
    const benefit = await fx.githubBenefit("acme/private", "pull");
    const product = await fx.productWith(benefit.id);
    const email = uniqueBuyer("cy");
    const { customerId } = await fx.buy(product.id, email);
    await fx.connect(customerId, "github");
    await fx.until("cy's grant", async () => (await fx.grantOf(benefit.id, customerId))?.properties.granted_account_id === "6161");
    fx.github.invitations.delete(fx.github.invitationOf("acme/private", "cy")![0]);

    // a primary rate limit (x-ratelimit-remaining: 0, reset in a second): waited out within the delivery
    const reset = String(Math.ceil(Date.now() / 1000) + 1);
    fx.github.fail("PUT", "/repos/acme/private/collaborators/cy", 403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }, { message: "API rate limit exceeded" });
    const regrant = await fx.api("POST", `/v1/benefit-grants/${(await fx.grantOf(benefit.id, customerId))!.id}/regrant`);
    expect(regrant.status).toBe(202);
    await fx.until("the invitation after the rate limit", async () => Boolean(fx.github.invitationOf("acme/private", "cy")), 20_000);
    expect((await fx.grantOf(benefit.id, customerId))!.error).toBeNull();

    // 502 twice (the client's own retry too): a transient failure, tried again later without an error on the grant
    fx.github.invitations.delete(fx.github.invitationOf("acme/private", "cy")![0]);
    fx.github.fail("PUT", "/repos/acme/private/collaborators/cy", 502);
    fx.github.fail("PUT", "/repos/acme/private/collaborators/cy", 502);
    const grantId = (await fx.grantOf(benefit.id, customerId))!.id;
    await fx.api("POST", `/v1/benefit-grants/${grantId}/regrant`);
    const pending = await fx.until("a delivery waiting to retry", async () => {
      const [row] = await fx.sqlRows<{ attempts: number; last_error: string }>(
        sql`SELECT attempts, last_error FROM benefit_delivery WHERE grant_id = ${grantId} AND status = 'pending' AND attempts > 0`,
      );
      return row;
    }, 20_000);
    expect(pending.last_error).toMatch(/502|failure/);
    expect((await fx.grantOf(benefit.id, customerId))!.error).toBeNull();
    await fx.sqlRows(sql`UPDATE benefit_delivery SET next_attempt_at = now() WHERE grant_id = ${grantId} AND status = 'pending'`);
    await fx.until("the invitation after the retry", async () => Boolean(fx.github.invitationOf("acme/private", "cy")));

    // a repository that does not exist: a permanent error, healed when the benefit names one that does
    await fx.seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "missing", permission: "pull" } },
    });
    const failed = await fx.until("the not_found error", async () => (await fx.grantOf(benefit.id, customerId))?.error);
    expect(failed).toMatchObject({ type: "not_found" });
    expect(Date.parse(failed.timestamp)).not.toBeNaN();
    // the seller fixes the benefit: the errored grant is delivered again, to the repository that exists
    await fx.seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "other", permission: "pull" } },
    });
    const fixed = await fx.until("healed by the benefit update", async () => {
      const g = await fx.grantOf(benefit.id, customerId);
      return g?.error === null && g.properties.granted_repository === "acme/other" && g;
    });
    expect(fixed.properties).toMatchObject({ repository_name: "other", granted_account_id: "6161" });
    expect(fx.github.invitationOf("acme/other", "cy")?.[1].permission).toBe("pull");
    // back to the missing repository: not_found again
    await fx.seller.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "acme", repositoryName: "missing", permission: "pull" } },
    });
    await fx.until("the not_found error again", async () => (await fx.grantOf(benefit.id, customerId))?.error?.type === "not_found");
    // `till benefits regrant` after the seller creates the repository heals it too
    fx.github.repositories.add("acme/missing");
    await fx.api("POST", `/v1/benefit-grants/${grantId}/regrant`);
    await fx.until("healed", async () => {
      const g = await fx.grantOf(benefit.id, customerId);
      return g?.error === null && g.properties.granted_repository === "acme/missing";
    });
    // another organization's grant is a 404
    const other = await createSeller(fx.server, "other");
    const foreign = await rawRequest(fx.server.url, other.token, "POST", `/v1/benefit-grants/${grantId}/regrant`);
    expect(foreign.status).toBe(404);
  }, 60_000);

  it("a benefit created before GitHub is connected warns the seller (a till-only field the SDKs drop); its grants stay not granted, " +
    "and the portal tells the customer access will follow, never the seller's command", async () => {
    const fresh = await createSeller(fx.server, "unconnected");
    const body = { type: "github_repository", description: "Early access", properties: { repository_owner: "acme", repository_name: "private", permission: "pull" } };
    const created = await rawRequest(fx.server.url, fresh.token, "POST", "/v1/benefits/", body);
    expect(created.status).toBe(201);
    const warnings = (created.body as { warnings?: string[] }).warnings;
    expect(warnings).toHaveLength(1);
    expect(warnings![0]).toMatch(/GitHub is not connected.*till benefits github connect/);
    // both SDKs still parse the answer (the extra field dropped)
    const viaSdk = await fresh.sdk.benefits.create({
      type: "github_repository", description: "Early access 2",
      properties: { repositoryOwner: "acme", repositoryName: "private", permission: "pull" },
    });
    expect(viaSdk.type).toBe("github_repository");
    expect("warnings" in viaSdk).toBe(false);
    const via049 = await new Polar049({ serverURL: fx.server.url, accessToken: fresh.token }).benefits.create({
      type: "github_repository",
      description: "Early access 3",
      properties: { repositoryOwner: "acme", repositoryName: "private", permission: "pull" },
    });
    expect(via049.type).toBe("github_repository");
    // types till gives itself, and an organization that connected GitHub, get no warning
    const custom = await rawRequest(fx.server.url, fresh.token, "POST", "/v1/benefits/", { type: "custom", description: "Note", properties: { note: "hi" } });
    expect((custom.body as { warnings?: unknown }).warnings).toBeUndefined();
    const connectedSeller = await rawRequest(fx.server.url, fx.seller.token, "POST", "/v1/benefits/", { ...body, description: "Connected" });
    expect((connectedSeller.body as { warnings?: unknown }).warnings).toBeUndefined();

    const benefitId = (created.body as { id: string }).id;
    const product = await createProduct(fresh, "fixed");
    await fresh.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefitId] } });
    const confirmed = await pay(fx.server, await fresh.sdk.checkouts.create({ products: [product.id] }));
    const customerId = confirmed.customerId!;
    const grantsOfFresh = async () => ((await rawRequest(fx.server.url, fresh.token, "GET", `/v1/benefits/${benefitId}/grants`)).body as { items: Grant[] }).items;
    const waiting = await fx.until("the integration_missing error", async () => {
      const [g] = await grantsOfFresh();
      return g?.error?.type === "integration_missing" && g;
    });
    expect(waiting).toMatchObject({ is_granted: false, granted_at: null, is_revoked: false });
    expect(waiting.error?.message).toMatch(/till benefits github connect/);
    // the customer's portal shows the grant not granted, with a message for the customer (no seller command)
    const session = await fresh.sdk.customerSessions.create({ customerId });
    const portal = await fetch(`${fx.server.url}/v1/customer-portal/benefit-grants/`, { headers: { authorization: `Bearer ${session.token}` } });
    const portalGrant = ((await portal.json()) as { items: Grant[] }).items.find((g) => g.id === waiting.id)!;
    expect(portalGrant).toMatchObject({ is_granted: false, error: { type: "integration_missing" } });
    expect(portalGrant.error!.message).not.toMatch(/till /);
    expect(portalGrant.error!.message).toMatch(/Access will follow/);
    for (const sdk of [new Polar({ serverURL: fx.server.url }), new Polar049({ serverURL: fx.server.url })]) {
      const listed = await sdk.customerPortal.benefitGrants.list({ customerSession: session.token }, {});
      expect(listed.result.items.find((g) => g.id === waiting.id)?.isGranted).toBe(false);
    }
  }, 60_000);

  it("authenticates as a GitHub App installation (installation tokens from the app's private key)", async () => {
    const app = await createSeller(fx.server, "app");
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    fx.github.app = { id: "777", publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(), installationId: "888" };
    const put = await rawRequest(fx.server.url, app.token, "PUT", "/v1/benefit-integrations/github", {
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
    fx.github.addUser({ id: 7171, login: "dee" });
    fx.github.oauth.user = "dee";
    const checkout = await app.sdk.checkouts.create({ products: [product.id] });
    const confirmed = await pay(fx.server, checkout);
    const session = await app.sdk.customerSessions.create({ customerId: confirmed.customerId! });
    const start = await fetch(`${fx.server.url}/v1/customer-portal/customers/me/oauth-accounts/authorize?platform=github`, { headers: { authorization: `Bearer ${session.token}` } });
    const { url } = (await start.json()) as { url: string };
    const approved = await fetch(url, { redirect: "manual" });
    await fetch(approved.headers.get("location")!, { redirect: "manual" });
    await fx.until("dee's invitation", async () => fx.github.invitationOf("acme/private", "dee")?.[1].permission === "triage");
    expect(fx.github.seen.some((s) => s.path === "/app/installations/888/access_tokens")).toBe(true);
  }, 60_000);
});
