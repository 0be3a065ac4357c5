// Benefit delivery's routes (till extensions; Polar's dashboard does these through its own integrations):
// - POST /v1/benefit-grants/{id}/regrant (benefits:write): deliver a grant again (`till benefits regrant`).
// - GET /v1/benefit-integrations/ and PUT /v1/benefit-integrations/{github|discord} (benefits:*): the seller's
//   credentials, sealed at rest, never read back (`till benefits github connect`, `till benefits discord connect`).
// - the customer portal's connected accounts (Polar's routes): GET …/customers/me/oauth-accounts/authorize,
//   GET …/customers/oauth-accounts/callback (the provider's redirect), DELETE …/customers/me/oauth-accounts/{platform}.
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { pathId } from "../http.js";
import { invalid, notFound, unauthorized, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { portalAuth, portalOf } from "../customer-portal/routes.js";
import { portalUrl } from "../customer-emails/service.js";
import { DiscordIntegrationInput, GithubIntegrationInput } from "./integrations.js";
import { authorizeUrl, clientOf, completeAuthorization, OauthCallbackError } from "./oauth.js";
import * as repo from "./repository.js";
import * as service from "./service.js";
import { discordClient } from "./discord.js";
import { seal } from "../../seal.js";
import { route, type V1App } from "../contract.js";

/** A connected integration (no secret comes back). */
const Integration = z.object({ platform: z.enum(["github", "discord"]), connected_at: z.iso.datetime() });

const PlatformParam = z.enum(["github", "discord"]);
const AuthorizeQuery = z.object({ platform: PlatformParam, return_to: z.string().max(2000).nullish(), customer_id: z.string().nullish() });
const CallbackQuery = z.object({ code: z.string().max(2000).optional(), state: z.string().max(200).optional(), error: z.string().max(200).optional() });

/** A return address on this server only (no open redirect). */
function sameOrigin(baseURL: string, target: string | null | undefined): string | null {
  if (!target) return null;
  try {
    const url = new URL(target, baseURL);
    return url.origin === new URL(baseURL).origin ? url.toString() : null;
  } catch {
    return null;
  }
}

function withParams(target: string, params: Record<string, string>): string {
  const url = new URL(target);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

export function benefitDeliveryRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const deps = { secret, services: config.benefits, baseURL: config.baseURL };

  app.post("/benefit-grants/:id/regrant", route({
    scope: "benefits:write", operationId: "till:benefit_grants:regrant",
    responses: { 202: "BenefitGrant", 404: notFound, 422: validationError },
  }), async (req, reply) => {
    const grant = await service.regrant(db, scopeOf(req).organizationId, pathId(req));
    return reply.code(202).send(grant);
  });

  app.get("/benefit-integrations/", route({ scope: "benefits:read", operationId: "till:benefit_integrations:list", responses: { 200: z.array(Integration) } }), async (req) => {
    const rows = await repo.integrationsOf(db, scopeOf(req).organizationId);
    return rows.map((r) => ({ platform: r.platform, connected_at: (r.modifiedAt ?? r.createdAt).toISOString() }));
  });

  // one route per platform (no path parameter: the platform is not a row of anyone's)
  for (const platform of PlatformParam.options) {
    const body = platform === "github" ? GithubIntegrationInput : DiscordIntegrationInput;
    const connected = Integration.extend({ regranted: z.int() });
    const contract = route({ scope: "benefits:write", operationId: `till:benefit_integrations:put_${platform}`, body, responses: { 200: connected, 422: validationError } });
    app.put(`/benefit-integrations/${platform}`, contract, async (req) => {
      const { organizationId } = scopeOf(req);
      const input = req.body;
      if (platform === "discord") {
        const problem = await service.checkBotToken(discordClient(input as z.output<typeof DiscordIntegrationInput>, config.benefits.discordApiUrl));
        if (problem) throw invalid(["body", "bot_token"], problem);
      }
      const healed = await db.transaction(async (tx) => {
        await repo.upsertIntegration(tx, organizationId, platform, seal(secret, "integration", JSON.stringify(input)));
        return service.healOrganization(tx, organizationId, platform);
      });
      return { platform, connected_at: new Date().toISOString(), regranted: healed };
    });
  }

  // ---- the customer's connected accounts ----------------------------------------------------------

  const portal = { caller: "customer_session" as const, preHandler: portalAuth(db) };

  app.get("/customer-portal/customers/me/oauth-accounts/authorize", route({
    ...portal, operationId: "till:customer_portal:oauth_accounts:authorize", query: AuthorizeQuery,
    responses: { 200: z.object({ url: z.url() }), 401: unauthorized, 422: validationError },
  }), async (req) => {
    const q = req.query;
    const me = portalOf(req);
    const client = await clientOf(db, secret, me.organizationId, q.platform);
    if (!client) throw invalid(["query", "platform"], `The seller has not set up ${q.platform} connections.`);
    const url = await authorizeUrl(db, deps, {
      organizationId: me.organizationId,
      customerId: me.customer.id,
      platform: q.platform,
      returnTo: sameOrigin(config.baseURL, q.return_to),
      clientId: client.client_id,
    });
    return { url };
  });

  app.delete("/customer-portal/customers/me/oauth-accounts/:platform", route({
    ...portal, operationId: "till:customer_portal:oauth_accounts:delete",
    responses: { 204: null, 401: unauthorized, 422: validationError },
  }), async (req, reply) => {
    const platform = PlatformParam.safeParse((req.params as { platform?: unknown }).platform);
    if (!platform.success) throw invalid(["path", "platform"], "Input should be 'github' or 'discord'", "enum");
    const me = portalOf(req);
    await repo.deleteAccount(db, me.organizationId, me.customer.id, platform.data);
    return reply.code(204).send();
  });

  app.get("/customer-portal/customers/oauth-accounts/callback", route({
    caller: "none", operationId: "till:customer_portal:oauth_accounts:callback", query: CallbackQuery,
    responses: { 302: null, 400: "text/plain" },
  }), async (req, reply) => {
    const q = req.query;
    const fallback = `${config.baseURL}/portal`;
    if (!q.state || !q.code) {
      return reply.code(400).type("text/plain").send(`The authorization was not completed${q.error ? ` (${q.error})` : ""}. Start again from the portal.`);
    }
    try {
      const done = await db.transaction(async (tx) => {
        const connected = await completeAuthorization(tx, deps, { state: q.state!, code: q.code! });
        await service.healCustomer(tx, connected.organizationId, connected.customerId, connected.platform);
        return connected;
      });
      const slug = await service.organizationSlug(db, done.organizationId);
      const target = done.returnTo ?? (slug ? portalUrl(config.baseURL, slug) : fallback);
      return reply.redirect(withParams(target, { oauth_connected: done.platform }), 302);
    } catch (err) {
      if (err instanceof OauthCallbackError) return reply.code(400).type("text/plain").send(err.message);
      req.log.warn(`benefits: an account connection failed: ${err instanceof Error ? err.message : String(err)}`);
      return reply.code(502).type("text/plain").send("The account could not be connected: the provider did not complete the authorization. Try again.");
    }
  });
}
