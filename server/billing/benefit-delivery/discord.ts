// discord delivery through Discord's REST API with @discordjs/rest, which honours Discord's rate-limit headers
// (it waits out a 429's retry_after and the per-route buckets itself). The bot's token does the work; the
// customer's OAuth token (scope guilds.join) only lets the bot add them to the guild.
import { REST } from "@discordjs/rest";
import { DeliveryError, fromStatus, permanent } from "./errors.js";
import type { DiscordIntegration } from "./integrations.js";
import { withoutGrantedAccount } from "./properties.js";

export function discordClient(integration: Pick<DiscordIntegration, "bot_token">, api: string): REST {
  return new REST({ api, version: "10", retries: 1, timeout: 15_000, handlerSweepInterval: 0, hashSweepInterval: 0 }).setToken(integration.bot_token);
}

export interface DiscordAccount {
  accountId: string;
  accessToken: string;
}

export interface DiscordBenefitProperties {
  guild_id: string;
  role_id: string;
  kick_member: boolean;
}

const MANAGE_ROLES = 1n << 28n;
const ADMINISTRATOR = 1n << 3n;

function statusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === "number" ? s : undefined;
}

function failure(err: unknown, what: string): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const e = fromStatus(statusOf(err), `${what}: ${message}`);
  if (e.type === "forbidden") return permanent("forbidden", `${what}: the bot lacks the permission (Manage Roles, a role above the benefit's)`);
  return e;
}

const ignoreNotFound = (err: unknown) => {
  if (statusOf(err) !== 404) throw err;
};

/**
 * The guild the grant's role was given in. `guild_id` follows the benefit (a benefit update merges the new guild
 * into the grant before its re-grant runs), so it names the old guild only for grants made before
 * `granted_guild_id` was recorded.
 */
const grantedGuildOf = (current: Record<string, unknown>): unknown => current.granted_guild_id ?? current.guild_id;

/** Adds the customer to the guild if needed (with the role), then gives the role. Returns the grant's properties. */
export async function grantDiscord(
  rest: REST,
  benefit: DiscordBenefitProperties,
  account: DiscordAccount,
  current: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (typeof current.granted_account_id === "string" && typeof current.granted_role_id === "string") {
    const moved = current.granted_role_id !== benefit.role_id || grantedGuildOf(current) !== benefit.guild_id || current.granted_account_id !== account.accountId;
    if (moved) await revokeDiscord(rest, { ...benefit, kick_member: false }, current);
  }
  const member = `/guilds/${benefit.guild_id}/members/${account.accountId}` as const;
  try {
    // 201: joined (with the role); 204: already a member (roles unchanged, so the role is added next)
    await rest.put(member, { body: { access_token: account.accessToken, roles: [benefit.role_id] } });
    await rest.put(`${member}/roles/${benefit.role_id}`);
  } catch (err) {
    throw failure(err, `Giving role ${benefit.role_id} in guild ${benefit.guild_id}`);
  }
  return {
    guild_id: benefit.guild_id,
    role_id: benefit.role_id,
    account_id: account.accountId,
    granted_account_id: account.accountId,
    granted_guild_id: benefit.guild_id,
    granted_role_id: benefit.role_id,
  };
}

/** Removes the role the grant gave, or the member from the guild when the benefit kicks. */
export async function revokeDiscord(
  rest: REST,
  benefit: Pick<DiscordBenefitProperties, "kick_member">,
  current: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const user = current.granted_account_id;
  const role = current.granted_role_id;
  const guild = grantedGuildOf(current);
  if (typeof user !== "string" || typeof role !== "string" || typeof guild !== "string") return current;
  const member = `/guilds/${guild}/members/${user}` as const;
  try {
    if (benefit.kick_member) await rest.delete(member).catch(ignoreNotFound);
    else await rest.delete(`${member}/roles/${role}`).catch(ignoreNotFound);
  } catch (err) {
    throw failure(err, `Removing role ${role} in guild ${guild}`);
  }
  return { ...withoutGrantedAccount(current), granted_guild_id: null, granted_role_id: null };
}

interface DiscordRole {
  id: string;
  position: number;
  permissions: string;
}

/**
 * Whether the bot can give `roleId` in `guildId`: the role exists, and the bot has Manage Roles (or is an
 * administrator) through a role placed above it. Returns null when it can, else what is wrong.
 */
export async function botCanManageRole(rest: REST, guildId: string, roleId: string): Promise<string | null> {
  try {
    const me = (await rest.get("/users/@me")) as { id: string };
    const roles = (await rest.get(`/guilds/${guildId}/roles`)) as DiscordRole[];
    const bot = (await rest.get(`/guilds/${guildId}/members/${me.id}`)) as { roles: string[] };
    const target = roles.find((r) => r.id === roleId);
    if (!target) return `Role ${roleId} does not exist in guild ${guildId}.`;
    const held = roles.filter((r) => r.id === guildId || bot.roles.includes(r.id));
    const perms = held.reduce((acc, r) => acc | BigInt(r.permissions), 0n);
    if ((perms & (MANAGE_ROLES | ADMINISTRATOR)) === 0n) return "The bot lacks the Manage Roles permission in the guild.";
    const top = Math.max(0, ...held.map((r) => r.position));
    if (top <= target.position) return `The bot's highest role must be above role ${roleId} to give it.`;
    return null;
  } catch (err) {
    const status = statusOf(err);
    if (status === 404) return `The bot is not in guild ${guildId}.`;
    if (status === 401 || status === 403) return "The bot's token was refused by Discord.";
    return `Discord could not be reached to check the bot: ${err instanceof Error ? err.message : String(err)}`;
  }
}
