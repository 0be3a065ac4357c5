// Discord grants delivered by the jobs worker against loopback peers of Discord's REST API and OAuth
// server (tests/helpers/delivery-peers.ts): the bot's role checks, token refresh, joining with the role, rate
// limits, guild changes with previous_properties, a bot lowered later, and the grant webhooks.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { uniqueBuyer } from "../helpers/checkout.js";
import { type Grant } from "../helpers/delivery-flow.js";
import { deliveryFixture } from "./delivery-fixtures.js";

const fx = deliveryFixture();

describe("discord", () => {
  const guild = "100000000000000001";
  const member = "300000000000000003";
  const tooHigh = "300000000000000009";

  const manageRoles = String(1n << 28n);

  beforeAll(async () => {
    fx.discord.botToken = "bot-token";
    fx.discord.addGuild(guild, [
      { id: "200000000000000002", position: 5, permissions: manageRoles },
      { id: member, position: 2, permissions: "0" },
      { id: tooHigh, position: 9, permissions: "0" },
    ], ["200000000000000002"]);
    const ok = await fx.api("PUT", "/v1/benefit-integrations/discord", { bot_token: "bot-token", client_id: "555", client_secret: "dc-secret" });
    expect(ok.status).toBe(200);
  });

  /** A discord benefit on `guildId`/`roleId` through the API (the 422 of the bot check comes back as is). */
  const discordBenefit = (guildId: string, roleId: string, kick = false) =>
    fx.api("POST", "/v1/benefits/", { type: "discord", description: `Role ${roleId}`, properties: { guild_token: guildId, guild_id: guildId, role_id: roleId, kick_member: kick } });

  /** A customer who bought `productId` and connected Discord as `userId`, once the role is given. */
  async function discordCustomer(productId: string, userId: string, guildId: string, roleId: string) {
    fx.discord.users.set(userId, { id: userId, username: `u${userId.slice(-2)}` });
    fx.discord.oauth.user = userId;
    const { customerId } = await fx.buy(productId, uniqueBuyer(`dc${userId.slice(-2)}`));
    await fx.connect(customerId, "discord");
    await fx.until(`${userId}'s role`, async () => fx.discord.rolesOf(guildId, userId)?.includes(roleId));
    return customerId;
  }

  it("checks the bot can give the role, refreshes the customer token before expiry, joins the customer with the role, honours a 429, " +
    "removes the role or kicks on revoke, waits for a reconnect when the refresh is refused", async () => {
    // a bot token Discord refuses is not stored (the one connected before stays)
    const refused = await fx.api("PUT", "/v1/benefit-integrations/discord", { bot_token: "wrong", client_id: "555", client_secret: "dc-secret" });
    expect(refused.status).toBe(422);

    const above = await fx.api("POST", "/v1/benefits/", {
      type: "discord",
      description: "Too high",
      properties: { guild_token: guild, guild_id: guild, role_id: tooHigh, kick_member: false },
    });
    expect(above.status).toBe(422);
    expect(JSON.stringify(above.body)).toMatch(/above role/);

    const created = await fx.api("POST", "/v1/benefits/", {
      type: "discord",
      description: "Members role",
      properties: { guild_token: guild, guild_id: guild, role_id: member, kick_member: false },
    });
    expect(created.status).toBe(201);
    const benefitId = (created.body as { id: string }).id;
    const product = await fx.productWith(benefitId, "monthly");
    fx.discord.users.set("400000000000000004", { id: "400000000000000004", username: "eve" });
    fx.discord.oauth.user = "400000000000000004";
    fx.discord.expiresIn = 60; // within the refresh margin: refreshed before use
    const email = uniqueBuyer("eve");
    const { customerId } = await fx.buy(product.id, email);
    await fx.until("the discord error", async () => (await fx.grantOf(benefitId, customerId))?.error?.type === "account_not_connected");

    fx.discord.fail(
      "PUT", `/api/v10/guilds/${guild}/members/400000000000000004/roles/`, 429,
      { "retry-after": "1", "x-ratelimit-scope": "user" },
      { message: "You are being rate limited.", retry_after: 0.5, global: false },
    );
    await fx.connect(customerId, "discord");
    const granted = await fx.until("the role", async () => {
      const g = await fx.grantOf(benefitId, customerId);
      return g?.properties.granted_account_id === "400000000000000004" && g;
    }, 20_000);
    expect(fx.discord.rolesOf(guild, "400000000000000004")).toEqual([member]);
    expect(granted.properties).toMatchObject({ guild_id: guild, role_id: member, account_id: "400000000000000004" });
    expect(granted.error).toBeNull();
    // the token was refreshed before the join
    expect(fx.discord.seen.some((s) => s.path === "/api/oauth2/token" && (s.body as { grant_type?: string }).grant_type === "refresh_token")).toBe(true);

    // revoke removes the role (kick_member false)
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: product.id, customerId })).result.items;
    await fx.seller.sdk.subscriptions.revoke({ id: sub!.id });
    await fx.until("the role removed", async () => fx.discord.rolesOf(guild, "400000000000000004")?.length === 0);

    // with kick_member the member leaves the guild
    await fx.api("PATCH", `/v1/benefits/${benefitId}`, { type: "discord", properties: { guild_token: guild, guild_id: guild, role_id: member, kick_member: true } });
    await fx.buy(product.id, email);
    await fx.until("the role again", async () => fx.discord.rolesOf(guild, "400000000000000004")?.includes(member));
    const [again] = (await fx.seller.sdk.subscriptions.list({ productId: product.id, customerId, active: true })).result.items;
    await fx.seller.sdk.subscriptions.revoke({ id: again!.id });
    await fx.until("kicked", async () => fx.discord.rolesOf(guild, "400000000000000004") === undefined);

    // the stored token is due for a refresh again, and Discord refuses it (the customer deauthorized the app):
    // the grant waits for the account; connecting it again heals the grant
    fx.discord.deauthorize();
    const refreshes = () => fx.discord.seen.filter((s) => s.path === "/api/oauth2/token" && (s.body as { grant_type?: string }).grant_type === "refresh_token").length;
    const before = refreshes();
    await fx.buy(product.id, email);
    const expired = await fx.until("the expired connection's error", async () => {
      const g = (await fx.grantsOf(benefitId)).find((x) => x.customer_id === customerId && !x.is_revoked);
      return g?.error?.type === "account_not_connected" && g;
    });
    expect(expired.error?.message).toMatch(/expired/);
    expect(refreshes()).toBeGreaterThan(before);
    expect(fx.discord.rolesOf(guild, "400000000000000004")).toBeUndefined();
    await fx.connect(customerId, "discord");
    await fx.until("the role after connecting again", async () => fx.discord.rolesOf(guild, "400000000000000004")?.includes(member));
  }, 60_000);
  it("moves the role when the benefit changes guild (the old guild's role removed, previous_properties naming it); a revoke after a guild change removes the role where it was given", async () => {
    const guildB = "100000000000000011";
    const roleB = "300000000000000013";
    fx.discord.addGuild(guildB, [{ id: "200000000000000012", position: 5, permissions: manageRoles }, { id: roleB, position: 2, permissions: "0" }], ["200000000000000012"]);
    const created = await discordBenefit(guild, member);
    expect(created.status).toBe(201);
    const benefitId = (created.body as { id: string }).id;
    const product = await fx.productWith(benefitId, "monthly");
    const user = "400000000000000014";
    const customerId = await discordCustomer(product.id, user, guild, member);
    const granted = await fx.until("the grant recording the role", async () => {
      const g = await fx.grantOf(benefitId, customerId);
      return g?.properties.granted_role_id === member && g;
    });
    const pendingOf = async () =>
      fx.sqlRows<{ id: string }>(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${granted.id} AND status = 'pending'`);
    await fx.until("the deliveries settled", async () => (await pendingOf()).length === 0);

    const patched = await fx.api("PATCH", `/v1/benefits/${benefitId}`, { type: "discord", properties: { guild_token: guildB, guild_id: guildB, role_id: roleB, kick_member: false } });
    expect(patched.status).toBe(200);
    const moved = await fx.until("the role given in the second guild", async () => {
      const g = await fx.grantOf(benefitId, customerId);
      return g?.properties.granted_role_id === roleB && g;
    });
    expect(fx.discord.rolesOf(guildB, user)).toEqual([roleB]);
    expect(fx.discord.rolesOf(guild, user)).toEqual([]);
    expect(moved.error).toBeNull();
    expect(moved.properties).toMatchObject({ guild_id: guildB, role_id: roleB, granted_guild_id: guildB, granted_role_id: roleB });
    expect(moved.previous_properties).toMatchObject({ guild_id: guild, role_id: member });

    // the benefit goes back to the first guild and the subscription is revoked before any delivery runs: the
    // revoke removes the role from the guild it was given in (the grant's guild_id already names the other)
    await fx.server.worker.stop();
    try {
      await fx.api("PATCH", `/v1/benefits/${benefitId}`, { type: "discord", properties: { guild_token: guild, guild_id: guild, role_id: member, kick_member: false } });
      const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: product.id, customerId })).result.items;
      await fx.seller.sdk.subscriptions.revoke({ id: sub!.id });
    } finally {
      await fx.server.worker.start();
    }
    // the revoke's delivery is made by the worker's fan-out: wait for it to exist and finish
    await fx.until("the revoke delivered", async () => {
      const revokes = await fx.sqlRows<{ status: string }>(sql`SELECT status FROM benefit_delivery WHERE grant_id = ${granted.id} AND action = 'revoke'`);
      return revokes.length > 0 && revokes.every((r) => r.status !== "pending");
    });
    const revoked = (await fx.grantOf(benefitId, customerId))!;
    expect(revoked.is_revoked).toBe(true);
    expect(fx.discord.rolesOf(guildB, user)).toEqual([]);
    expect(fx.discord.rolesOf(guild, user)).toEqual([]);
    expect(revoked.error).toBeNull();
    expect(revoked.properties).toMatchObject({ granted_role_id: null });
    // no account holds the role: granted_account_id is absent (Polar's schema: a string or absent, never null)
    expect(revoked.properties).not.toHaveProperty("granted_account_id");
    for (const sdk of [fx.seller.sdk, fx.seller.sdk049]) {
      const page = await sdk.benefits.grants({ id: benefitId });
      expect(page.result.items.find((g) => g.id === revoked.id)?.isRevoked).toBe(true);
    }
  }, 60_000);

  it("refuses a benefit the bot cannot give (422); a bot lowered later fails the grant and the revoke as forbidden, both told by benefit_grant.updated; " +
    "connecting the bot again re-runs the revoke", async () => {
    const guildC = "100000000000000021";
    const botRole = "200000000000000022";
    const roleC = "300000000000000023";
    fx.discord.addGuild(guildC, [{ id: botRole, position: 5, permissions: manageRoles }, { id: roleC, position: 2, permissions: "0" }], [botRole]);

    const missingRole = await discordBenefit(guildC, "300000000000000099");
    expect(missingRole.status).toBe(422);
    expect(JSON.stringify(missingRole.body)).toMatch(/does not exist/);
    fx.discord.setBotRoles(guildC, []);
    const noManage = await discordBenefit(guildC, roleC);
    expect(noManage.status).toBe(422);
    expect(JSON.stringify(noManage.body)).toMatch(/lacks the Manage Roles/);
    fx.discord.members.get(guildC)!.delete(fx.discord.botId);
    const notIn = await discordBenefit(guildC, roleC);
    expect(notIn.status).toBe(422);
    expect(JSON.stringify(notIn.body)).toMatch(/not in guild/);
    fx.discord.setBotRoles(guildC, [botRole]);

    // a path of this attempt's own: a retried test's first endpoint (another secret) still delivers to its path
    const path = `/discord-forbidden-${randomUUID()}`;
    const endpoint = await fx.seller.sdk.webhooks.createWebhookEndpoint({ url: `${fx.receiver.url}${path}`, format: "raw", events: ["benefit_grant.updated"] });
    const created = await discordBenefit(guildC, roleC);
    expect(created.status).toBe(201);
    const benefitId = (created.body as { id: string }).id;
    const product = await fx.productWith(benefitId, "monthly");

    // the guild's owner moves the bot's role below the benefit's after the benefit was made
    fx.discord.setBotRoles(guildC, []);
    const user = "400000000000000024";
    fx.discord.users.set(user, { id: user, username: "hal" });
    fx.discord.oauth.user = user;
    const { customerId } = await fx.buy(product.id, uniqueBuyer("hal"));
    await fx.until("the purchase's delivery", async () => (await fx.grantOf(benefitId, customerId))?.error?.type === "account_not_connected");
    await fx.connect(customerId, "discord");
    const forbidden = await fx.until("the forbidden error", async () => {
      const g = await fx.grantOf(benefitId, customerId);
      return g?.error?.type === "forbidden" && g;
    });
    expect(forbidden.error?.message).toMatch(/lacks the permission/);
    expect(fx.discord.rolesOf(guildC, user)).toBeUndefined();

    // given back its role, a regrant delivers; lowered again, the revoke cannot take the role away
    fx.discord.setBotRoles(guildC, [botRole]);
    expect((await fx.api("POST", `/v1/benefit-grants/${forbidden.id}/regrant`)).status).toBe(202);
    await fx.until("the role after the regrant", async () => fx.discord.rolesOf(guildC, user)?.includes(roleC));
    await fx.until("the healed grant", async () => (await fx.grantOf(benefitId, customerId))?.error === null);
    await fx.until("the deliveries settled", async () => (await fx.sqlRows(sql`SELECT id FROM benefit_delivery WHERE grant_id = ${forbidden.id} AND status = 'pending'`)).length === 0);
    fx.discord.setBotRoles(guildC, []);
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: product.id, customerId })).result.items;
    await fx.seller.sdk.subscriptions.revoke({ id: sub!.id });
    const failedRevoke = await fx.until("the failed revoke's error", async () => {
      const g = await fx.grantOf(benefitId, customerId);
      return g?.is_revoked && g.error?.message.startsWith("Removing role") && g;
    });
    expect(failedRevoke.error?.type).toBe("forbidden");
    expect(fx.discord.rolesOf(guildC, user)).toEqual([roleC]);

    // the seller gives the bot its role back and connects it again: the failed revoke runs again and works
    fx.discord.setBotRoles(guildC, [botRole]);
    const again = await fx.api("PUT", "/v1/benefit-integrations/discord", { bot_token: "bot-token", client_id: "555", client_secret: "dc-secret" });
    expect((again.body as { regranted: number }).regranted).toBeGreaterThanOrEqual(1);
    await fx.until("the role removed by the healed revoke", async () => fx.discord.rolesOf(guildC, user)?.length === 0);
    await fx.until("the revoked grant without error", async () => (await fx.grantOf(benefitId, customerId))?.error === null);

    // the seller heard of all three through benefit_grant.updated, which both SDKs validate
    const hits = await fx.receiver.until((all) => {
      // the endpoint hears every grant of the organization: the ones of this benefit are this test's
      const mine = all
        .filter((h) => h.path === path)
        .map((h) => ({ hit: h, event: JSON.parse(h.body) as { type: string; data: Grant & { benefit_id: string } } }))
        .filter((m) => m.event.data.benefit_id === benefitId);
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
