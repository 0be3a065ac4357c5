// Loopback protocol peers for benefit delivery: the few endpoints of GitHub's and Discord's REST APIs
// and OAuth servers that till calls, answering as the real services document them, with state a test can read
// and failures a test can queue. Point the server at them with peerEnv().
// GitHub's collaborator invite and removal are also tested against GitHub's recorded responses
// (tests/helpers/github-fixtures.ts, which says which scenarios use recordings and which this peer, and why).
// What the peers accept is the providers' published definitions, not a list written here: the REST routes, their
// path and query parameters and JSON bodies come from GitHub's OpenAPI description (github-definition.ts) and from
// discord-api-types (discord-definition.ts); a request they do not allow is refused as the provider refuses it
// (GitHub 422 "Invalid request.", Discord 400 "Invalid Form Body" 50035, an unknown route 404) before it is served.
// GitHub's OAuth web flow (github.com/login/oauth/*) is not in the REST description and stays as written below.
//
// GitHub peer (TILL_GITHUB_API_URL = TILL_GITHUB_OAUTH_URL = its url):
//   GET  /login/oauth/authorize        → 302 to redirect_uri?code&state (the user "approves" at once); keeps the
//                                         PKCE code_challenge (S256 only)
//   POST /login/oauth/access_token     → {access_token, token_type, scope} for a code whose code_verifier matches,
//                                         from the registered client (client_id and client_secret: oauth.client)
//   GET  /user                         → {id, login} of the user token
//   PUT  /repos/{o}/{r}/collaborators/{u}  {permission} → 201 invitation {id, permissions} | 204 collaborator;
//                                         404 for an unknown repository; 401 without the seller's token
//   DELETE /repos/{o}/{r}/collaborators/{u} → 204
//   DELETE /repos/{o}/{r}/invitations/{id}  → 204 | 404
//   POST /app/installations/{id}/access_tokens → {token, expires_at} for a JWT signed by the app's key (RS256)
// Discord peer (TILL_DISCORD_API_URL = url + "/api", TILL_DISCORD_OAUTH_URL = url):
//   GET  /oauth2/authorize             → 302 to redirect_uri?code&state
//   POST /api/oauth2/token             → authorization_code (PKCE checked) and refresh_token grants of the
//                                         registered client (client_id and client_secret: oauth.client; else 401)
//   GET  /api/v10/users/@me            → the bot (Authorization: Bot …) or the user (Bearer …)
//   GET  /api/v10/guilds/{g}/roles, GET /api/v10/guilds/{g}/members/{u}
//   PUT  /api/v10/guilds/{g}/members/{u} {access_token, roles} → 201 joined | 204 already a member; 403 when
//                                         the bot cannot give one of the roles (Manage Roles, a role above it)
//   PUT / DELETE /api/v10/guilds/{g}/members/{u}/roles/{r} → 204 | 403 as above;
//   DELETE /api/v10/guilds/{g}/members/{u} → 204
// A queued failure (fail(method, pathPrefix, status, headers)) answers the next matching request instead
// (loopback-peer.ts, the HTTP side both peers share).
import { createVerify, randomBytes } from "node:crypto";
import { CodeIssuer, send } from "./oauth-code-issuer.js";
import http from "node:http";
import { DISCORD_NOT_FOUND, discordOauthRefusal, discordRefusal, matchDiscord, type DiscordMatch } from "./discord-definition.js";
import { GITHUB_NOT_FOUND, githubRefusal, matchGithub, type GithubMatch } from "./github-definition.js";
import { queryRecord } from "./definition-shapes.js";
import { Peer } from "./loopback-peer.js";
import { Routes } from "discord-api-types/v10";

export interface GithubUser {
  id: number;
  login: string;
}

export class GithubPeer extends Peer {
  readonly oauth = new CodeIssuer({ id: "gh-client", secret: "gh-secret" });
  /** The seller's token (or installation tokens minted below). */
  sellerTokens = new Set<string>();
  readonly repositories = new Set<string>();
  /** repository → login → permission */
  readonly collaborators = new Map<string, Map<string, string>>();
  /** invitation id → {repository, login, permission} */
  readonly invitations = new Map<number, { repository: string; login: string; permission: string }>();
  private users = new Map<string, GithubUser>();
  private nextInvitation = 1000;
  /** A GitHub App: id, its public key (PEM) and the installation's id. */
  app: { id: string; publicKey: string; installationId: string } | null = null;

  addUser(user: GithubUser): void {
    this.users.set(`gho_${user.login}`, user);
  }

  invitationOf(repository: string, login: string) {
    return [...this.invitations.entries()].find(([, v]) => v.repository === repository && v.login === login);
  }

  protected handle(method: string, url: URL, body: unknown, auth: string | undefined, res: http.ServerResponse): void {
    const p = url.pathname;
    const token = auth?.replace(/^(token|bearer) /i, "") ?? "";
    if (method === "GET" && p === "/login/oauth/authorize") return this.oauth.authorize(url, res);
    if (method === "POST" && p === "/login/oauth/access_token") {
      // GitHub answers 200 with an error for a wrong client, as for a wrong code
      if (!this.oauth.authenticates(body as Record<string, string>)) return send(res, 200, { error: "incorrect_client_credentials" });
      const login = this.oauth.redeem(body as Record<string, string>);
      if (!login) return send(res, 200, { error: "bad_verification_code" });
      return send(res, 200, { access_token: `gho_${login}`, token_type: "bearer", scope: "read:user" });
    }
    // the REST API: the operations GitHub's description defines, checked against it before they are served
    const route = matchGithub(method, p);
    if (!route) return this.refuse(res, { status: 404, body: GITHUB_NOT_FOUND });
    const authorized = this.authorizes(route, token);
    if (authorized) return send(res, 401, authorized);
    const refusal = githubRefusal(route, url.searchParams, body);
    if (refusal) return this.refuse(res, refusal);
    this.serve(route, body, token, res);
  }

  /** GitHub's 401 body when the token does not fit the operation, else null. */
  private authorizes(route: GithubMatch, token: string): { message: string } | null {
    if (route.route === "currentUser") return this.users.has(token) ? null : { message: "Bad credentials" };
    if (route.route === "installationToken") {
      const fits = this.app && route.params.installation_id === this.app.installationId && verifyJwt(token, this.app.publicKey, this.app.id);
      return fits ? null : { message: "A JSON web token could not be decoded" };
    }
    return this.sellerTokens.has(token) ? null : { message: "Bad credentials" };
  }

  private serve({ route, params }: GithubMatch, body: unknown, token: string, res: http.ServerResponse): void {
    if (route === "currentUser") return send(res, 200, this.users.get(token));
    if (route === "installationToken") {
      const minted = `ghs_${randomBytes(8).toString("hex")}`;
      this.sellerTokens.add(minted);
      return send(res, 201, { token: minted, expires_at: new Date(Date.now() + 3600_000).toISOString() });
    }
    const repository = `${params.owner}/${params.repo}`;
    if (route === "deleteInvitation") {
      const id = Number(params.invitation_id);
      if (!this.invitations.has(id)) return send(res, 404, GITHUB_NOT_FOUND);
      this.invitations.delete(id);
      return send(res, 204);
    }
    const login = params.username!;
    if (!this.repositories.has(repository)) return send(res, 404, GITHUB_NOT_FOUND);
    const members = this.collaborators.get(repository) ?? new Map<string, string>();
    this.collaborators.set(repository, members);
    if (route === "removeCollaborator") {
      members.delete(login);
      return send(res, 204);
    }
    const permission = (body as { permission?: string } | undefined)?.permission ?? "push";
    if (members.has(login)) {
      members.set(login, permission);
      return send(res, 204);
    }
    const existing = this.invitationOf(repository, login);
    const id = existing?.[0] ?? this.nextInvitation++;
    this.invitations.set(id, { repository, login, permission });
    return send(res, 201, { id, permissions: permission, repository: { full_name: repository }, invitee: { login } });
  }

  protected invalidJson(res: http.ServerResponse): void {
    send(res, 400, { message: "Problems parsing JSON", documentation_url: "https://docs.github.com/rest", status: "400" });
  }

  /** The invitee accepts: the invitation becomes a collaborator. */
  accept(id: number): void {
    const inv = this.invitations.get(id);
    if (!inv) throw new Error(`no invitation ${id}`);
    this.invitations.delete(id);
    const members = this.collaborators.get(inv.repository) ?? new Map<string, string>();
    members.set(inv.login, inv.permission);
    this.collaborators.set(inv.repository, members);
  }
}

function verifyJwt(jwt: string, publicKey: string, appId: string): boolean {
  const [h, p, sig] = jwt.split(".");
  if (!h || !p || !sig) return false;
  const header = JSON.parse(Buffer.from(h, "base64url").toString()) as { alg?: string };
  const payload = JSON.parse(Buffer.from(p, "base64url").toString()) as { iss?: string | number; exp?: number };
  if (header.alg !== "RS256" || String(payload.iss) !== appId || (payload.exp ?? 0) * 1000 < Date.now()) return false;
  return createVerify("RSA-SHA256").update(`${h}.${p}`).verify(publicKey, Buffer.from(sig, "base64url"));
}

export interface DiscordRoleSpec {
  id: string;
  position: number;
  permissions: string;
}

export class DiscordPeer extends Peer {
  readonly oauth = new CodeIssuer({ id: "555", secret: "dc-secret" });
  botToken = "";
  readonly botId = "900000000000000001";
  /** guild → roles */
  readonly roles = new Map<string, DiscordRoleSpec[]>();
  /** guild → user → role ids */
  readonly members = new Map<string, Map<string, Set<string>>>();
  /** user access tokens → user */
  private tokens = new Map<string, { id: string; username: string }>();
  private refreshTokens = new Map<string, { id: string; username: string }>();
  /** Every access and refresh token issued, in order (a test looks for them at rest). */
  readonly issued: string[] = [];
  /** Lifetime of the user tokens issued (seconds). */
  expiresIn = 604_800;
  readonly users = new Map<string, { id: string; username: string }>();

  addGuild(guild: string, roles: DiscordRoleSpec[], botRoles: string[]): void {
    this.roles.set(guild, [{ id: guild, position: 0, permissions: "0" }, ...roles]);
    this.members.set(guild, new Map([[this.botId, new Set(botRoles)]]));
  }

  /** The guild's owner gives the bot these roles instead of the ones it had. */
  setBotRoles(guild: string, roles: string[]): void {
    this.members.get(guild)?.set(this.botId, new Set(roles));
  }

  /** The user deauthorizes the application: every token issued so far stops working (refresh: invalid_grant). */
  deauthorize(): void {
    this.tokens.clear();
    this.refreshTokens.clear();
  }

  rolesOf(guild: string, user: string): string[] | undefined {
    const r = this.members.get(guild)?.get(user);
    return r ? [...r].sort() : undefined;
  }

  private issue(user: { id: string; username: string }) {
    const access = `dat_${randomBytes(8).toString("hex")}`;
    const refresh = `drt_${randomBytes(8).toString("hex")}`;
    this.tokens.set(access, user);
    this.refreshTokens.set(refresh, user);
    this.issued.push(access, refresh);
    return { access_token: access, refresh_token: refresh, token_type: "Bearer", expires_in: this.expiresIn, scope: "identify guilds.join" };
  }

  protected handle(method: string, url: URL, body: unknown, auth: string | undefined, res: http.ServerResponse): void {
    const p = url.pathname;
    if (method === "GET" && p === Routes.oauth2Authorization()) {
      const refusal = discordOauthRefusal("authorize", queryRecord(url.searchParams));
      if (refusal) return this.refuse(res, refusal);
      return this.oauth.authorize(url, res);
    }
    if (method === "POST" && p === `/api${Routes.oauth2TokenExchange()}`) return this.token(body, res);
    // the bot's REST API: the routes discord-api-types defines, checked against it before they are served
    const api = p.replace(/^\/api\/v10(?=\/)/, "");
    const route = api === p ? null : matchDiscord(method, api);
    if (!route) return this.refuse(res, { status: 404, body: DISCORD_NOT_FOUND });
    const bot = auth === `Bot ${this.botToken}`;
    const user = this.tokens.get(auth?.replace(/^Bearer /, "") ?? "");
    // users/@me answers a user's token too (the OAuth flow asks who connected); every other route is the bot's
    if (!bot && !(route.route === "currentUser" && user)) return send(res, 401, { message: "401: Unauthorized", code: 0 });
    const refusal = discordRefusal(route, url.searchParams, body);
    if (refusal) return this.refuse(res, refusal);
    if (route.route === "currentUser") return send(res, 200, bot ? { id: this.botId, username: "till-bot", bot: true } : user);
    this.serve(route, body, res);
  }

  private token(body: unknown, res: http.ServerResponse): void {
    const form = (body ?? {}) as Record<string, string>;
    const refusal = discordOauthRefusal("token", form);
    if (refusal) return this.refuse(res, refusal);
    if (!this.oauth.authenticates(form)) return send(res, 401, { error: "invalid_client" });
    if (form.grant_type === "refresh_token") {
      const user = this.refreshTokens.get(form.refresh_token ?? "");
      if (!user) return send(res, 400, { error: "invalid_grant" });
      this.refreshTokens.delete(form.refresh_token ?? "");
      return send(res, 200, this.issue(user));
    }
    const id = this.oauth.redeem(form);
    const user = id ? this.users.get(id) : undefined;
    if (!user) return send(res, 400, { error: "invalid_grant" });
    return send(res, 200, this.issue(user));
  }

  private serve({ route, params }: DiscordMatch, body: unknown, res: http.ServerResponse): void {
    const [guild = "", user = "", role = ""] = params;
    if (route === "guildRoles") {
      const roles = this.roles.get(guild);
      return roles ? send(res, 200, roles) : send(res, 404, { message: "Unknown Guild", code: 10004 });
    }
    const guildMembers = this.members.get(guild);
    if (!guildMembers) return send(res, 404, { message: "Unknown Guild", code: 10004 });
    if (route === "addMemberRole" || route === "removeMemberRole") {
      const held = guildMembers.get(user);
      if (!held) return send(res, 404, { message: "Unknown Member", code: 10007 });
      if (!this.canManage(guild, role)) return send(res, 403, { message: "Missing Permissions", code: 50013 });
      if (route === "addMemberRole") held.add(role);
      else held.delete(role);
      return send(res, 204);
    }
    if (route === "getMember") {
      const held = guildMembers.get(user);
      return held ? send(res, 200, { user: { id: user }, roles: [...held] }) : send(res, 404, { message: "Unknown Member", code: 10007 });
    }
    if (route === "removeMember") {
      guildMembers.delete(user);
      return send(res, 204);
    }
    // addMember, its body checked against RESTPutAPIGuildMemberJSONBody already
    const join = body as { access_token: string; roles?: string[] };
    if (guildMembers.has(user)) return send(res, 204);
    const joining = this.tokens.get(join.access_token);
    if (!joining || joining.id !== user) return send(res, 403, { message: "Invalid OAuth2 access token", code: 50025 });
    // joining with roles takes Manage Roles above each of them, as giving them later does
    const roles = join.roles ?? [];
    if (!roles.every((r) => this.canManage(guild, r))) return send(res, 403, { message: "Missing Permissions", code: 50013 });
    guildMembers.set(user, new Set(roles));
    return send(res, 201, { user: { id: user }, roles: [...roles] });
  }

  protected invalidJson(res: http.ServerResponse): void {
    send(res, 400, { message: "The request body contains invalid JSON.", code: 50109 });
  }

  private canManage(guild: string, role: string): boolean {
    const roles = this.roles.get(guild) ?? [];
    const held = roles.filter((r) => r.id === guild || this.members.get(guild)?.get(this.botId)?.has(r.id));
    const perms = held.reduce((a, r) => a | BigInt(r.permissions), 0n);
    const target = roles.find((r) => r.id === role);
    return Boolean(target) && (perms & (1n << 28n)) !== 0n && Math.max(...held.map((r) => r.position)) > target!.position;
  }
}

/** The server's environment pointing benefit delivery at the peers. */
export const peerEnv = (github: GithubPeer, discord: DiscordPeer) => ({
  TILL_GITHUB_API_URL: github.url,
  TILL_GITHUB_OAUTH_URL: github.url,
  // GitHub's own spacing of writes (3 s between collaborator invitations) would make every delivery test wait
  TILL_GITHUB_WRITE_INTERVAL_MS: "20",
  TILL_DISCORD_API_URL: `${discord.url}/api`,
  TILL_DISCORD_OAUTH_URL: discord.url,
});
