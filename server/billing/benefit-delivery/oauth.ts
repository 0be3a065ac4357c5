// A customer's GitHub or Discord account, connected by OAuth 2.0 authorization code with PKCE (S256) through the
// seller's OAuth app (benefit_integration). The state parameter names a pending row (its hash is kept, with the
// sealed verifier), used once, 10 minutes. Tokens are sealed at rest and refreshed before they expire.
import { createHash, randomBytes } from "node:crypto";
import type { BenefitServicesConfig } from "../../config.js";
import type { Queryable } from "../../db/client.js";
import { DiscordIntegration, GithubIntegration, parseIntegration } from "./integrations.js";
import * as repo from "./repository.js";
import { seal, unseal } from "../../seal.js";

const STATE_TTL_MS = 10 * 60_000;
/** A token this close to its expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 5 * 60_000;

export const SCOPES: Record<repo.Platform, string> = { github: "read:user", discord: "identify guilds.join" };

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const b64url = (b: Buffer) => b.toString("base64url");

export interface OauthEndpoints {
  authorize: string;
  token: string;
  user: string;
}

export function endpointsOf(platform: repo.Platform, services: BenefitServicesConfig): OauthEndpoints {
  return platform === "github"
    ? { authorize: `${services.githubOauthUrl}/login/oauth/authorize`, token: `${services.githubOauthUrl}/login/oauth/access_token`, user: `${services.githubApiUrl}/user` }
    : { authorize: `${services.discordOauthUrl}/oauth2/authorize`, token: `${services.discordApiUrl}/oauth2/token`, user: `${services.discordApiUrl}/v10/users/@me` };
}

export const callbackUrl = (baseURL: string) => `${baseURL}/v1/customer-portal/customers/oauth-accounts/callback`;

/** The seller's OAuth client for the platform, or null when the seller has not connected it. */
export async function clientOf(db: Queryable, secret: string, organizationId: string, platform: repo.Platform) {
  const sealed = await repo.integrationOf(db, organizationId, platform);
  const json = sealed ? unseal(secret, "integration", sealed) : null;
  const integration = platform === "github" ? parseIntegration("github", json) : parseIntegration("discord", json);
  return integration as (GithubIntegration | DiscordIntegration | null);
}

/** Starts an authorization: the URL the customer's browser goes to. */
export async function authorizeUrl(
  db: Queryable,
  deps: { secret: string; services: BenefitServicesConfig; baseURL: string },
  c: { organizationId: string; customerId: string; platform: repo.Platform; returnTo: string | null; clientId: string },
): Promise<string> {
  const state = b64url(randomBytes(24));
  const verifier = b64url(randomBytes(32));
  await repo.insertState(db, {
    stateHash: sha256(state),
    organizationId: c.organizationId,
    customerId: c.customerId,
    platform: c.platform,
    codeVerifier: seal(deps.secret, "pkce", verifier),
    returnTo: c.returnTo,
    expiresAt: new Date(Date.now() + STATE_TTL_MS),
  });
  const url = new URL(endpointsOf(c.platform, deps.services).authorize);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", c.clientId);
  url.searchParams.set("redirect_uri", callbackUrl(deps.baseURL));
  url.searchParams.set("scope", SCOPES[c.platform]);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", b64url(createHash("sha256").update(verifier).digest()));
  url.searchParams.set("code_challenge_method", "S256");
  if (c.platform === "discord") url.searchParams.set("prompt", "consent");
  return url.toString();
}

interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

async function tokenRequest(endpoint: string, form: Record<string, string>): Promise<TokenAnswer> {
  const res = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json().catch(() => ({}))) as Partial<TokenAnswer> & { error?: string };
  if (!res.ok || typeof body.access_token !== "string") {
    const err = new Error(`token endpoint answered ${res.status}${body.error ? ` (${body.error})` : ""}`);
    (err as Error & { status: number }).status = res.ok ? 400 : res.status;
    throw err;
  }
  return body as TokenAnswer;
}

async function userOf(platform: repo.Platform, endpoint: string, accessToken: string): Promise<{ id: string; username: string | null }> {
  const res = await fetch(endpoint, {
    headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", "user-agent": "till-benefits" },
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`the ${platform} user endpoint answered ${res.status}`);
  const body = (await res.json()) as { id?: number | string; login?: string; username?: string };
  if (body.id === undefined) throw new Error(`the ${platform} user endpoint named no user`);
  return { id: String(body.id), username: (platform === "github" ? body.login : body.username) ?? null };
}

export class OauthCallbackError extends Error {}

/**
 * Finishes an authorization: takes the state, exchanges the code (with the PKCE verifier), reads who the account
 * is and stores it (replacing the customer's earlier account on that platform). Returns what was connected.
 */
export async function completeAuthorization(
  db: Queryable,
  deps: { secret: string; services: BenefitServicesConfig; baseURL: string },
  q: { state: string; code: string },
) {
  const pending = await repo.takeState(db, sha256(q.state));
  if (!pending) throw new OauthCallbackError("This authorization expired or was already used. Start again from the portal.");
  const platform = pending.platform as repo.Platform;
  const verifier = unseal(deps.secret, "pkce", pending.codeVerifier);
  const client = await clientOf(db, deps.secret, pending.organizationId, platform);
  if (!verifier || !client) throw new OauthCallbackError(`The seller's ${platform} connection is not set up.`);
  const endpoints = endpointsOf(platform, deps.services);
  const tokens = await tokenRequest(endpoints.token, {
    grant_type: "authorization_code",
    code: q.code,
    redirect_uri: callbackUrl(deps.baseURL),
    client_id: client.client_id,
    client_secret: client.client_secret,
    code_verifier: verifier,
  });
  const user = await userOf(platform, endpoints.user, tokens.access_token);
  await repo.upsertAccount(db, {
    organizationId: pending.organizationId,
    customerId: pending.customerId,
    platform,
    accountId: user.id,
    accountUsername: user.username,
    accessToken: seal(deps.secret, "oauth-token", tokens.access_token),
    refreshToken: tokens.refresh_token ? seal(deps.secret, "oauth-token", tokens.refresh_token) : null,
    expiresAt: tokens.expires_in ? new Date(Date.now() + tokens.expires_in * 1000) : null,
    scope: tokens.scope ?? null,
  });
  return { organizationId: pending.organizationId, customerId: pending.customerId, platform, returnTo: pending.returnTo, accountId: user.id };
}

/**
 * The account's access token, refreshed first when it expires within five minutes (and it can be). Returns null
 * when the stored token cannot be read or refreshed (the customer must connect again).
 */
export async function freshAccessToken(
  db: Queryable,
  deps: { secret: string; services: BenefitServicesConfig },
  account: repo.OauthAccountRow,
): Promise<string | null> {
  const current = unseal(deps.secret, "oauth-token", account.accessToken);
  if (!current) return null;
  if (!account.expiresAt || account.expiresAt.getTime() - Date.now() > REFRESH_MARGIN_MS) return current;
  const refresh = account.refreshToken ? unseal(deps.secret, "oauth-token", account.refreshToken) : null;
  const client = await clientOf(db, deps.secret, account.organizationId, account.platform as repo.Platform);
  if (!refresh || !client) return account.expiresAt.getTime() > Date.now() ? current : null;
  const tokens = await tokenRequest(endpointsOf(account.platform as repo.Platform, deps.services).token, {
    grant_type: "refresh_token",
    refresh_token: refresh,
    client_id: client.client_id,
    client_secret: client.client_secret,
  });
  await repo.updateAccountTokens(db, account.id, {
    accessToken: seal(deps.secret, "oauth-token", tokens.access_token),
    refreshToken: seal(deps.secret, "oauth-token", tokens.refresh_token ?? refresh),
    expiresAt: tokens.expires_in ? new Date(Date.now() + tokens.expires_in * 1000) : null,
  });
  return tokens.access_token;
}
