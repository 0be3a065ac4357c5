// The GitHub and Discord loopback peers (tests/helpers/delivery-peers.ts) refuse what the providers' published
// definitions do not have: a body property, a query parameter, a route (or a path parameter of another type),
// as GitHub's OpenAPI description (@octokit/openapi) and discord-api-types define them, and answer as the
// providers do (GitHub 422 "Invalid request." or 404; Discord 400 "Invalid Form Body" 50035 or 404). A request in
// the definitions' shape, made through the official clients till uses, is served.
import { createSign, generateKeyPairSync } from "node:crypto";
import { REST, DiscordAPIError } from "@discordjs/rest";
import { Octokit } from "@octokit/rest";
import { Routes } from "discord-api-types/v10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiscordPeer, GithubPeer } from "../helpers/delivery-peers.js";

const github = new GithubPeer();
const discord = new DiscordPeer();

beforeAll(async () => {
  await Promise.all([github.start(), discord.start()]);
  github.sellerTokens.add("ghp_seller");
  github.repositories.add("acme/private");
  discord.botToken = "bot-token";
  discord.addGuild(GUILD, [{ id: ROLE, position: 1, permissions: "0" }, { id: BOT_ROLE, position: 5, permissions: String(1n << 28n) }], [BOT_ROLE]);
});

// stop() fails if a refusal was left untaken: each test takes the ones it provoked
afterAll(async () => {
  await Promise.all([github.stop(), discord.stop()]);
});

const GUILD = "100000000000000001";
const ROLE = "200000000000000002";
const BOT_ROLE = "200000000000000003";

async function call(peerUrl: string, method: string, path: string, auth: string, body?: unknown) {
  const res = await fetch(`${peerUrl}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> | null };
}

describe("the GitHub peer checks requests against GitHub's OpenAPI description", () => {
  const gh = (method: string, path: string, body?: unknown) => call(github.url, method, path, "token ghp_seller", body);

  it("refuses a body property or a query parameter the operation does not have, with GitHub's 422, and changes nothing", async () => {
    const extra = await gh("PUT", "/repos/acme/private/collaborators/kai", { permission: "push", role: "admin" });
    expect(extra.status).toBe(422);
    expect(extra.body?.message).toBe('Invalid request.\n\n"role" is not a permitted key.');
    expect(extra.body?.documentation_url).toBe("https://docs.github.com/rest/collaborators/collaborators#add-a-repository-collaborator");

    const typed = await gh("PUT", "/repos/acme/private/collaborators/kai", { permission: 3 });
    expect(typed.status).toBe(422);
    expect(typed.body?.message).toBe("Invalid request.\n\nFor 'properties/permission', 3 is not a string.");

    const query = await gh("PUT", "/repos/acme/private/collaborators/kai?notify=false", { permission: "push" });
    expect(query.status).toBe(422);
    expect(query.body?.message).toBe('Invalid request.\n\n"notify" is not a permitted key.');

    const bodyOnDelete = await gh("DELETE", "/repos/acme/private/collaborators/kai", { permission: "push" });
    expect(bodyOnDelete.status).toBe(422);
    expect(github.invitationOf("acme/private", "kai")).toBeUndefined();
    expect(github.takeRefused().map((r) => `${r.status} ${r.method} ${r.path}`)).toEqual([
      ...Array(3).fill("422 PUT /repos/acme/private/collaborators/kai"),
      "422 DELETE /repos/acme/private/collaborators/kai",
    ]);
  });

  it("refuses an enum value and a nested property the description lacks (an installation token's permissions)", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    github.app = { id: "42", publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(), installationId: "7" };
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const unsigned = `${part({ alg: "RS256", typ: "JWT" })}.${part({ iss: "42", iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 })}`;
    const jwt = `${unsigned}.${createSign("RSA-SHA256").update(unsigned).sign(privateKey).toString("base64url")}`;
    const mint = (body: unknown) => call(github.url, "POST", "/app/installations/7/access_tokens", `bearer ${jwt}`, body);

    const res = await mint({ permissions: { contents: "admin", billing: "read" }, repositories: ["private", 3] });
    expect(res.status).toBe(422);
    expect(String(res.body?.message).split("\n").slice(2)).toEqual([
      `For 'properties/permissions/properties/contents', "admin" is not a member of ["read","write"].`,
      '"billing" is not a permitted key.',
      "For 'properties/repositories/items/1', 3 is not a string.",
    ]);
    expect((await mint({ permissions: { contents: "read" }, repositories: ["private"] })).status).toBe(201);
    expect(github.takeRefused()).toHaveLength(1);
  });

  it("answers 404 for a route the description has not, or that the peer does not serve, and for a path parameter of another type", async () => {
    for (const [method, path] of [
      ["GET", "/repos/acme/private/collaborator/kai"],
      ["PATCH", "/repos/acme/private/collaborators/kai"],
      ["DELETE", "/repos/acme/private/invitations/not-a-number"],
      ["GET", "/user/extra"],
    ] as const) {
      const res = await gh(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body?.message).toBe("Not Found");
    }
    expect(github.takeRefused().map((r) => r.status)).toEqual([404, 404, 404, 404]);
  });

  it("serves the official client's requests when they are in the description's shape, and refuses an extra parameter sent through it", async () => {
    const octokit = new Octokit({ baseUrl: github.url, auth: "ghp_seller", log: { debug() {}, info() {}, warn() {}, error() {} } });
    const invited = await octokit.rest.repos.addCollaborator({ owner: "acme", repo: "private", username: "ana", permission: "triage" });
    expect(invited.status).toBe(201);
    expect(github.invitationOf("acme/private", "ana")?.[1].permission).toBe("triage");
    await expect(octokit.rest.repos.deleteInvitation({ owner: "acme", repo: "private", invitation_id: invited.data.id })).resolves.toMatchObject({ status: 204 });

    // Octokit puts a parameter its route does not know into the body, where the description has no such property
    const unknown = { owner: "acme", repo: "private", username: "bo", permission: "push", expires_at: "2027-01-01" };
    await expect(octokit.rest.repos.addCollaborator(unknown)).rejects.toMatchObject({ status: 422 });
    expect(github.invitationOf("acme/private", "bo")).toBeUndefined();
    expect(github.takeRefused().map((r) => r.status)).toEqual([422]);
  });
});

it("a peer's stop() fails while a refused request is left untaken, so a delivery test fails when till sends one", async () => {
  const peer = new GithubPeer();
  await peer.start();
  await fetch(`${peer.url}/repos/acme/private/collaborators/kai/extra`, { method: "PUT" });
  await expect(peer.stop()).rejects.toThrow(/GithubPeer refused requests .*"status":404/s);
});

describe("the Discord peer checks requests against discord-api-types", () => {
  const bot = (method: string, path: string, body?: unknown) => call(discord.url, method, `/api/v10${path}`, "Bot bot-token", body);
  const user = "300000000000000004";

  beforeAll(() => {
    discord.users.set(user, { id: user, username: "dee" });
  });

  it("refuses a body property the declared body type lacks, a missing required one and a wrong type, with Discord's 400 50035", async () => {
    const res = await bot("PUT", Routes.guildMember(GUILD, user), { roles: [ROLE, 7], nickname: "dee" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 50035, message: "Invalid Form Body" });
    const errors = res.body?.errors as Record<string, Record<string, unknown>>;
    expect(errors.nickname).toEqual({ _errors: [expect.objectContaining({ code: "UNKNOWN_FIELD" })] });
    expect(errors.access_token).toEqual({ _errors: [{ code: "BASE_TYPE_REQUIRED", message: "This field is required" }] });
    expect(errors.roles).toEqual({ 1: { _errors: [expect.objectContaining({ code: "STRING_TYPE_CONVERT" })] } });
    expect(discord.rolesOf(GUILD, user)).toBeUndefined();
    expect(discord.takeRefused().map((r) => `${r.status} ${r.method} ${r.path}`)).toEqual([`400 PUT /api/v10/guilds/${GUILD}/members/${user}`]);
  });

  it("refuses a body where the route declares none, and a query parameter the route does not declare", async () => {
    const body = await bot("PUT", Routes.guildMemberRole(GUILD, user, ROLE), { reason: "bought it" });
    expect(body.status).toBe(400);
    expect(Object.keys(body.body?.errors as object)).toEqual(["reason"]);
    const query = await bot("GET", `${Routes.guildRoles(GUILD)}?with_counts=true`);
    expect(query.status).toBe(400);
    expect(Object.keys(query.body?.errors as object)).toEqual(["with_counts"]);
    expect(discord.takeRefused()).toHaveLength(2);
  });

  it("answers 404 for a route it does not serve, a method the route lacks, an id that is not a snowflake, or no API version", async () => {
    for (const [method, path] of [
      ["PATCH", `/api/v10${Routes.guildMember(GUILD, user)}`],
      ["GET", `/api/v10${Routes.guildMembers(GUILD)}`],
      ["GET", `/api/v10/guilds/not-a-snowflake/roles`],
      ["GET", `/api${Routes.guildRoles(GUILD)}`],
    ] as const) {
      const res = await call(discord.url, method, path, "Bot bot-token");
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ message: "404: Not Found", code: 0 });
    }
    expect(discord.takeRefused().map((r) => r.status)).toEqual([404, 404, 404, 404]);
  });

  it("refuses an OAuth2 token form or authorize query parameter neither the declared types nor PKCE have", async () => {
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: "r", client_id: "555", client_secret: "dc-secret", scope: "identify" });
    const token = await fetch(`${discord.url}/api/oauth2/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
    expect(token.status).toBe(400);
    expect(await token.json()).toMatchObject({ error: "invalid_request", error_description: "scope: not a parameter of this endpoint" });

    const query = new URLSearchParams({ response_type: "code", client_id: "555", scope: "identify", redirect_uri: "http://127.0.0.1/cb", code_challenge: "c", code_challenge_method: "plain" });
    const authorize = await fetch(`${discord.url}/oauth2/authorize?${query}`, { redirect: "manual" });
    expect(authorize.status).toBe(400);
    expect(discord.takeRefused().map((r) => r.path)).toEqual(["/api/oauth2/token", "/oauth2/authorize"]);
  });

  it("serves the official client's requests in the declared shape, and refuses an extra body property sent through it", async () => {
    const rest = new REST({ api: `${discord.url}/api`, version: "10", retries: 0, handlerSweepInterval: 0, hashSweepInterval: 0 }).setToken("bot-token");
    const form = new URLSearchParams({ grant_type: "authorization_code", code: "nope", client_id: "555", client_secret: "dc-secret", redirect_uri: "http://127.0.0.1/cb", code_verifier: "v" });
    // a code never issued: the form itself is in the declared shape (with PKCE's code_verifier), the grant is not
    const token = await fetch(`${discord.url}/api/oauth2/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
    expect(await token.json()).toEqual({ error: "invalid_grant" });

    const extra = rest.put(Routes.guildMember(GUILD, user), { body: { access_token: "x", roles: [ROLE], communication_disabled_until: null } });
    await expect(extra).rejects.toBeInstanceOf(DiscordAPIError);
    await expect(extra).rejects.toMatchObject({ code: 50035, status: 400 });
    await expect(rest.get(Routes.guildRoles(GUILD))).resolves.toHaveLength(3);
    await expect(rest.get(Routes.user())).resolves.toMatchObject({ id: discord.botId });
    expect(discord.takeRefused()).toHaveLength(1);
  });
});
