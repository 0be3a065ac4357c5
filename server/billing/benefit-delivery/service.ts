// Benefit delivery: github_repository and discord grants made real by the jobs worker, never in a
// request. The worker's fan-out hands each batch of outbox events to requestFromOutbox, which turns
// benefit_grant.created / benefit_grant.revoked (and benefit.updated: a re-grant of its granted grants) into
// delivery rows in the same transaction; the worker's delivery loop leases due rows and runs them (run()).
// A transient failure is tried again with backoff for up to a day; a permanent one (of a grant or a revoke)
// sets the grant's `error` and emits benefit_grant.updated. Connecting the account, fixing the integration,
// updating the benefit or `till benefits regrant` makes new deliveries: grants heal.
import type { BenefitServicesConfig } from "../../config.js";
import type { Db, Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue, type OutboxSubscriber } from "../../db/outbox.js";
import { invalid, notFound } from "../errors.js";
import { toBenefitGrantWire, wireProperties, type BenefitGrantWire } from "../benefits/wire.js";
import { botCanManageRole, discordClient, grantDiscord, revokeDiscord } from "./discord.js";
import { DeliveryError, permanent } from "./errors.js";
import { githubClient, grantGithub, revokeGithub } from "./github.js";
import { parseIntegration } from "./integrations.js";
import { freshAccessToken } from "./oauth.js";
import * as repo from "./repository.js";
import { unseal } from "../../seal.js";

export interface DeliveryDeps {
  secret: string;
  services: BenefitServicesConfig;
}

/** Waits after each failed attempt; from then on every 8 hours, until a day has passed since the delivery began. */
export const RETRY_DELAYS_MS = [30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 3600_000, 2 * 3600_000, 4 * 3600_000, 8 * 3600_000];
export const GIVE_UP_AFTER_MS = 24 * 3600_000;

/**
 * The wait before trying again after the delivery's `attempts`-th failure, or null: the next try would be past a day.
 */
export function retryDelay(attempts: number, createdAt: Date, now: number): number | null {
  const delay = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length - 1)]!;
  return now + delay - createdAt.getTime() < GIVE_UP_AFTER_MS ? delay : null;
}

interface OutboxRowView {
  id: string;
  organizationId: string;
  type: string;
  payload: Record<string, unknown>;
}

const deliveredType = (t: unknown) => typeof t === "string" && t in repo.PLATFORM_OF;

/** The fan-out's subscriber: the deliveries the batch's events call for, in the fan-out's transaction. */
export async function requestFromOutbox(tx: Queryable, rows: OutboxRowView[]): Promise<number> {
  const wanted: Array<{ organizationId: string; grantId: string; action: repo.DeliveryAction; outboxId: string }> = [];
  const updatedBenefits: OutboxRowView[] = [];
  for (const row of rows) {
    const p = row.payload;
    if (row.type === "benefit_grant.created" || row.type === "benefit_grant.revoked") {
      const b = p.benefit as { type?: unknown } | undefined;
      if (typeof p.id === "string" && deliveredType(b?.type)) {
        wanted.push({ organizationId: row.organizationId, grantId: p.id, action: row.type === "benefit_grant.created" ? "grant" : "revoke", outboxId: row.id });
      }
    } else if (row.type === "benefit.updated" && typeof p.id === "string" && deliveredType(p.type)) {
      updatedBenefits.push(row);
    }
  }
  for (const row of updatedBenefits) {
    for (const g of await repo.grantedGrantIdsOfBenefits(tx, [row.payload.id as string])) {
      if (g.organizationId === row.organizationId) wanted.push({ organizationId: g.organizationId, grantId: g.id, action: "grant", outboxId: row.id });
    }
  }
  return repo.insertDeliveries(tx, wanted);
}

/** The worker runs requestFromOutbox on every fanned-out batch (db/outbox.ts). */
export const outboxSubscriber: OutboxSubscriber<OutboxRowView> = { name: "benefit-delivery", receive: (tx, rows) => requestFromOutbox(tx, rows) };

export const claimDue = (db: Db, limit: number, leaseMs: number, token: string) => repo.claimDue(db, limit, leaseMs, token);
export const release = (db: Db, token: string, ids: string[]) => repo.release(db, token, ids);

type GrantContext = NonNullable<Awaited<ReturnType<typeof repo.grantOf>>>;

/**
 * Does what the delivery asks against GitHub or Discord; returns the grant's new properties, or throws DeliveryError.
 */
async function perform(db: Db, deps: DeliveryDeps, d: repo.DeliveryRow, ctx: GrantContext): Promise<Record<string, unknown>> {
  const platform = repo.PLATFORM_OF[ctx.benefit.type];
  if (!platform) throw permanent("invalid", `Benefits of type ${ctx.benefit.type} are not delivered outside till.`);
  const sealed = await repo.integrationOf(db, d.organizationId, platform);
  const json = sealed ? unseal(deps.secret, "integration", sealed) : null;
  const current = ctx.grant.properties;
  const props = wireProperties(ctx.benefit.type, ctx.benefit.properties);
  const connectHint = platform === "github" ? "till benefits github connect" : "till benefits discord connect";
  if (platform === "github") {
    const integration = parseIntegration("github", json);
    if (!integration) throw permanent("integration_missing", `The seller has not connected GitHub (${connectHint}).`);
    const client = githubClient(integration, deps.services.githubApiUrl, d.organizationId, deps.services.githubWriteIntervalMs);
    if (d.action === "revoke") return revokeGithub(client, current);
    const account = await repo.accountOf(db, d.organizationId, ctx.customer.id, "github");
    if (!account?.accountUsername) throw permanent("account_not_connected", "Waiting for the customer to connect a GitHub account in the customer portal.");
    return grantGithub(
      client,
      { repository_owner: String(props.repository_owner), repository_name: String(props.repository_name), permission: String(props.permission) },
      { accountId: account.accountId, username: account.accountUsername },
      current,
    );
  }
  const integration = parseIntegration("discord", json);
  if (!integration) throw permanent("integration_missing", `The seller has not connected the Discord bot (${connectHint}).`);
  const rest = discordClient(integration, deps.services.discordApiUrl);
  const benefit = { guild_id: String(props.guild_id), role_id: String(props.role_id), kick_member: props.kick_member === true };
  if (d.action === "revoke") return revokeDiscord(rest, benefit, current);
  const account = await repo.accountOf(db, d.organizationId, ctx.customer.id, "discord");
  if (!account) throw permanent("account_not_connected", "Waiting for the customer to connect a Discord account in the customer portal.");
  let token: string | null;
  try {
    token = await freshAccessToken(db, deps, account);
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (typeof status === "number" && status >= 500) throw new DeliveryError("transient", "unavailable", `Refreshing the Discord token: ${(err as Error).message}`);
    token = null;
  }
  if (!token) throw permanent("account_not_connected", "The customer's Discord connection expired: waiting for them to connect it again in the customer portal.");
  return grantDiscord(rest, benefit, { accountId: account.accountId, accessToken: token }, current);
}

/** Runs one leased delivery and records its outcome (if `token` still holds it). */
export async function run(db: Db, deps: DeliveryDeps, leased: repo.DeliveryRow, token: string): Promise<void> {
  const ctx = await repo.grantOf(db, leased.organizationId, leased.grantId);
  if (!ctx) {
    await repo.finishDelivery(db, leased.id, token, "done", null);
    return;
  }
  // The grant as it is now decides: a grant delivery of a grant revoked since carries out the revoke. Its revoke's
  // own delivery may have been superseded by this one (a heal asked for before the revoke, inserted after it), and
  // finishing it without a word left the access in place.
  const d = leased.action === "grant" && ctx.grant.revokedAt !== null ? { ...leased, action: "revoke" as const } : leased;
  let properties: Record<string, unknown> | undefined;
  let failure: DeliveryError | undefined;
  try {
    properties = await perform(db, deps, d, ctx);
  } catch (err) {
    failure = err instanceof DeliveryError ? err : new DeliveryError("transient", "unavailable", err instanceof Error ? err.message : String(err));
  }
  if (failure?.kind === "transient") {
    const delay = retryDelay(d.attempts, d.createdAt, Date.now());
    if (delay !== null) {
      await repo.retryDelivery(db, d.id, token, failure.message, delay);
      return;
    }
    failure = permanent(failure.type, `Gave up after a day of failures: ${failure.message}`);
  }
  await db.transaction(async (tx) => {
    const mine = await repo.finishDelivery(tx, d.id, token, failure ? "failed" : "done", failure?.message ?? null);
    if (!mine) return;
    const error = failure ? { message: failure.message, type: failure.type, timestamp: new Date().toISOString() } : null;
    // a revoked grant keeps what it was; a failed grant keeps its properties, with the account it waits for
    const next = failure
      ? d.action === "grant" && failure.type === "account_not_connected"
        ? { ...ctx.grant.properties, account_id: null }
        : undefined
      : properties;
    // a grant delivered is granted from now on (is_granted stays false until then, as Polar's)
    const delivered = !failure && d.action === "grant" && ctx.grant.revokedAt === null;
    const row = await repo.updateGrantOutcome(tx, d.organizationId, d.grantId, { ...(next ? { properties: next } : {}), error, delivered });
    // a revoke that worked is news only when it clears an error (benefit_grant.revoked told the rest); one that
    // failed for good must reach the seller: the access they meant to take away stays
    if (!row || (d.action === "revoke" && !failure && ctx.grant.error === null)) return;
    await enqueue(tx, [
      { type: "benefit_grant.updated", organizationId: d.organizationId, data: { ...toBenefitGrantWire(row, ctx.benefit, ctx.customer, ctx.member) } },
      customerStateChanged(d.organizationId, ctx.customer.id),
    ]);
  });
}

/** `till benefits regrant`: delivers the grant again (or its revoke, when it is revoked). */
export async function regrant(db: Db, organizationId: string, grantId: string): Promise<BenefitGrantWire & { delivery: "pending" }> {
  return db.transaction(async (tx) => {
    const ctx = await repo.grantOf(tx, organizationId, grantId);
    if (!ctx) throw notFound("Benefit grant not found");
    if (!(ctx.benefit.type in repo.PLATFORM_OF)) {
      throw notFound(`Benefits of type ${ctx.benefit.type} are given by till itself; there is nothing to deliver again.`);
    }
    await repo.insertDeliveries(tx, [{ organizationId, grantId: ctx.grant.id, action: ctx.grant.revokedAt ? "revoke" : "grant", outboxId: null }]);
    return { ...toBenefitGrantWire(ctx.grant, ctx.benefit, ctx.customer, ctx.member), delivery: "pending" as const };
  });
}

const PLATFORM_NAMES: Record<repo.Platform, string> = { github: "GitHub", discord: "Discord" };

/**
 * The portal's `benefitGrants.update` of a GitHub or Discord grant (Polar's `account_id`): the grant is delivered
 * again to that account, which must be the customer's connected account of the platform (else a 422). A grant of
 * another customer is a 404; a grant of a type delivered by till itself has nothing to deliver.
 */
export async function deliverToAccount(db: Db, organizationId: string, customerId: string, grantId: string, accountId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const ctx = await repo.grantOf(tx, organizationId, grantId);
    if (!ctx || ctx.grant.customerId !== customerId) throw notFound("Benefit grant not found");
    const platform = repo.PLATFORM_OF[ctx.benefit.type];
    if (!platform) return;
    const accounts = await repo.accountsOfCustomer(tx, organizationId, customerId);
    if (!accounts.some((a) => a.platform === platform && a.accountId === accountId)) {
      throw invalid(["body", "properties", "account_id"], `This ${PLATFORM_NAMES[platform]} account is not connected: connect it in the customer portal first.`);
    }
    await repo.insertDeliveries(tx, [{ organizationId, grantId: ctx.grant.id, action: "grant", outboxId: null }]);
  });
}

/** A customer connected an account: their granted grants that need it are delivered again. */
export async function healCustomer(tx: Queryable, organizationId: string, customerId: string, platform: repo.Platform): Promise<number> {
  const ids = await repo.grantedGrantIdsOfCustomer(tx, organizationId, customerId, repo.TYPES_OF[platform]);
  return repo.insertDeliveries(tx, ids.map((grantId) => ({ organizationId, grantId, action: "grant" as const, outboxId: null })));
}

/**
 * The seller connected or fixed an integration: the organization's failed grants of that platform run again,
 * and so do its failed revokes.
 */
export async function healOrganization(tx: Queryable, organizationId: string, platform: repo.Platform): Promise<number> {
  const failed = await repo.failedGrantsOfOrganization(tx, organizationId, repo.TYPES_OF[platform]);
  return repo.insertDeliveries(tx, failed.map((g) => ({ organizationId, grantId: g.id, action: g.revoked ? ("revoke" as const) : ("grant" as const), outboxId: null })));
}

/** Whether Discord accepts the bot token; null when it does, else what is wrong. */
export async function checkBotToken(rest: ReturnType<typeof discordClient>): Promise<string | null> {
  try {
    await rest.get("/users/@me");
    return null;
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    return status === 401 || status === 403 ? "Discord refused the bot token." : `Discord could not be reached: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * Why the grants of a new benefit of `type` will wait: the organization has not connected the platform that
 * delivers it (they stay not granted until it does). Null when it has, or for the types till gives itself.
 */
export async function integrationWarning(db: Queryable, organizationId: string, type: string): Promise<string | null> {
  const platform = repo.PLATFORM_OF[type];
  if (!platform || (await repo.integrationOf(db, organizationId, platform))) return null;
  return platform === "github"
    ? "GitHub is not connected: grants of this benefit wait, not granted, until you connect it (till benefits github connect)."
    : "The Discord bot is not connected: grants of this benefit wait, not granted, until you connect it (till benefits discord connect).";
}

/** The organization's slug (where the portal lives). */
export const organizationSlug = (db: Queryable, organizationId: string) => repo.slugOf(db, organizationId);

/** CustomerPortalCustomer.oauth_accounts: platform → the connected account. */
export async function oauthAccountsWire(db: Queryable, organizationId: string, customerId: string) {
  const rows = await repo.accountsOfCustomer(db, organizationId, customerId);
  return Object.fromEntries(rows.map((r) => [r.platform, { account_id: r.accountId, account_username: r.accountUsername }]));
}

/**
 * A discord benefit's role must be one the seller's bot can give: checked when the bot is connected (without
 * it, grants wait with an integration_missing error until `till benefits discord connect`). Null when fine.
 */
export async function checkDiscordBenefit(
  db: Queryable,
  deps: DeliveryDeps,
  organizationId: string,
  properties: { guild_id?: unknown; guild_token?: unknown; role_id?: unknown },
): Promise<string | null> {
  const sealed = await repo.integrationOf(db, organizationId, "discord");
  const integration = parseIntegration("discord", sealed ? unseal(deps.secret, "integration", sealed) : null);
  if (!integration) return null;
  const guild = String(properties.guild_id ?? properties.guild_token ?? "");
  return botCanManageRole(discordClient(integration, deps.services.discordApiUrl), guild, String(properties.role_id ?? ""));
}
