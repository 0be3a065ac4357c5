// The request helper (server/auth/caller.ts) through GET /api/whoami: a bearer API key or session token
// becomes the caller; every way a token can be wrong, expired, revoked or over its rate limit is a 4xx.
// The cache (5 s) is exercised on a resolver with its own clock over the server's real database.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallerResolver } from "../../server/auth/caller.js";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { apikey, session } from "../../server/db/schema/auth.js";
import { ALL_BILLING_PERMISSIONS } from "../../shared/scopes.js";
import { Client } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { addMember, bearer, createOrganization, mustCreateKey, person, type Person } from "./key-fixtures.js";

let server: TestServer;
let owner: Person;
let member: Person;
let orgId: string;
let otherOrgId: string;

const DAY = 86_400;
const UNAUTHORIZED = {
  missing: { error: "Unauthorized", detail: "Authorization: Bearer <token> is required." },
  invalid: { error: "Unauthorized", detail: "The bearer token is not a valid API key or session token." },
  expired: { error: "Unauthorized", detail: "The bearer token has expired." },
};

interface Whoami {
  kind: "api_key" | "session";
  user: { id: string; email: string; name: string } | null;
  organization_id: string | null;
  roles: string[];
  permissions: Record<string, string[]>;
}

beforeAll(async () => {
  server = await startServer();
  owner = await person(server, "owner");
  member = await person(server, "member");
  orgId = await createOrganization(owner, "Acme");
  otherOrgId = await createOrganization(owner, "Other");
  // creating an organization makes it the active one; make Acme active again
  const active = await owner.client.post("/api/auth/organization/set-active", { organizationId: orgId });
  expect(active.status).toBe(200);
  await addMember(server, orgId, member, "member");
});
afterAll(async () => server?.close());

const whoami = (headers: Record<string, string> = {}, query = "") =>
  new Client(server.url).get<Whoami>(`/api/whoami${query}`, headers);

describe("API keys", () => {
  it("resolve to the key's organization and permissions", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "ci" });
    const res = await whoami(bearer(k.key));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: "api_key",
      user: null,
      organization_id: orgId,
      sandbox: false,
      live_organization_id: orgId,
      roles: [],
      permissions: ALL_BILLING_PERMISSIONS,
      // the key's own name and expiry (`till auth status`)
      api_key: { id: k.id, name: "ci", expires_at: null, organization: { name: expect.any(String) as string, slug: expect.any(String) as string } },
    });
    const scoped = await mustCreateKey(owner, { organizationId: orgId, name: "ro", permissions: { products: ["read"] } });
    const res2 = await whoami(bearer(scoped.key));
    expect(res2.body).toMatchObject({ kind: "api_key", organization_id: orgId, permissions: { products: ["read"] } });
  });

  it("ignore ?organization_id= (a key belongs to one organization)", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "ci" });
    const res = await whoami(bearer(k.key), `?organization_id=${otherOrgId}`);
    expect(res.status).toBe(200);
    expect(res.body.organization_id).toBe(orgId);
  });

  it("are refused once expired", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "short", expiresIn: DAY });
    await server.database.db
      .update(apikey)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apikey.id, k.id));
    const res = await whoami(bearer(k.key));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED.expired);
  });

  it("stop working at once when deleted through the API", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "doomed" });
    expect((await whoami(bearer(k.key))).status).toBe(200); // now cached
    const del = await owner.client.post("/api/auth/api-key/delete", { keyId: k.id });
    expect(del.status).toBe(200);
    const res = await whoami(bearer(k.key));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED.invalid);
  });

  it("stop working at once when disabled", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "paused" });
    expect((await whoami(bearer(k.key))).status).toBe(200);
    const upd = await owner.client.post("/api/auth/api-key/update", { keyId: k.id, enabled: false });
    expect(upd.status).toBe(200);
    const res = await whoami(bearer(k.key));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "NotPermitted", detail: "This API key is disabled." });
  });

  it("honour the per-key rate limit with 429 and Retry-After", async () => {
    const k = await mustCreateKey(owner, {
      organizationId: orgId,
      name: "limited",
      rateLimitMax: 3,
      rateLimitTimeWindow: 60_000,
    });
    for (let i = 0; i < 3; i++) expect((await whoami(bearer(k.key))).status).toBe(200);
    const limited = await whoami(bearer(k.key));
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: "TooManyRequests", detail: "Too many requests with this API key." });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // another key of the same organization has its own window
    const other = await mustCreateKey(owner, { organizationId: orgId, name: "other" });
    expect((await whoami(bearer(other.key))).status).toBe(200);
  });

  it("without a rate limit are never throttled", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "free", rateLimitEnabled: false, rateLimitMax: 1 });
    for (let i = 0; i < 5; i++) expect((await whoami(bearer(k.key))).status).toBe(200);
  });
});

describe("session tokens", () => {
  it("resolve to the user and the session's active organization", async () => {
    const res = await whoami(bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: "session",
      user: { id: owner.user.id, email: owner.user.email, name: "Test User" },
      organization_id: orgId,
      sandbox: false,
      live_organization_id: orgId,
      roles: ["owner"],
      permissions: expect.objectContaining({
        organization: ["update", "delete"],
        apiKey: ["create", "read", "update", "delete"],
      }) as Record<string, string[]>,
      api_key: null,
    });
  });

  it("take another organization of the user's from ?organization_id=", async () => {
    const res = await whoami(bearer(owner.token), `?organization_id=${otherOrgId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: "session", organization_id: otherOrgId, roles: ["owner"] });
    const asMember = await whoami(bearer(member.token), `?organization_id=${orgId}`);
    expect(asMember.status).toBe(200);
    expect(asMember.body).toMatchObject({ organization_id: orgId, roles: ["member"] });
    expect(asMember.body.permissions).not.toHaveProperty("apiKey");
  });

  it("answer 403 for an organization the user is not a member of", async () => {
    for (const id of [otherOrgId, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const res = await whoami(bearer(member.token), `?organization_id=${id}`);
      expect(res.status, id).toBe(403);
      expect(res.body).toEqual({ error: "NotPermitted", detail: "You are not a member of this organization." });
    }
  });

  it("have no organization when none is active", async () => {
    const res = await whoami(bearer(member.token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: "session", organization_id: null, roles: [], permissions: {} });
    expect(res.body.user?.id).toBe(member.user.id);
  });

  it("stop working at once after sign-out", async () => {
    const p = await person(server, "leaver");
    const signIn = await new Client(server.url).post<{ token: string }>("/api/auth/sign-in/email", {
      email: p.user.email,
      password: "correct-horse-battery",
    });
    expect(signIn.status).toBe(200);
    const token = signIn.body.token;
    expect((await whoami(bearer(token))).status).toBe(200); // now cached
    const out = await new Client(server.url).post("/api/auth/sign-out", {}, bearer(token));
    expect(out.status).toBe(200);
    const res = await whoami(bearer(token));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED.invalid);
    // the sign-up session of the same user is untouched
    expect((await whoami(bearer(p.token))).status).toBe(200);
  });

  it("are refused once expired", async () => {
    const p = await person(server, "stale");
    await server.database.db
      .update(session)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(session.token, hashStoredToken(p.token)));
    const res = await whoami(bearer(p.token));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED.expired);
  });
});

describe("missing and malformed tokens", () => {
  it("answer 401", async () => {
    expect((await whoami()).body).toEqual(UNAUTHORIZED.missing);
    for (const authorization of ["", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Token abc", `Bearer a b`]) {
      const res = await whoami({ authorization });
      expect(res.status, authorization).toBe(401);
      expect(res.body, authorization).toEqual(UNAUTHORIZED.missing);
    }
    for (const token of ["garbage", "till_", "till_garbage", "x".repeat(5000), "%00%ff", owner.token.slice(0, -1)]) {
      const res = await whoami(bearer(token));
      expect(res.status, token).toBe(401);
      expect(res.body, token).toEqual(UNAUTHORIZED.invalid);
    }
  });

  it("accept the scheme in any case", async () => {
    const res = await whoami({ authorization: `bearer ${owner.token}` });
    expect(res.status).toBe(200);
  });
});

describe("the resolver's cache (own clock, real database)", () => {
  it("forgets a key deleted directly in the database within the 5 s TTL", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "db-deleted" });
    let t = Date.now();
    const resolver = createCallerResolver(server.database.db, { now: () => t });
    expect((await resolver.resolve(`Bearer ${k.key}`)).ok).toBe(true);
    await server.database.db.delete(apikey).where(eq(apikey.id, k.id));
    t += 4_999;
    // still served from the cache: no database round trip for a cached key
    expect((await resolver.resolve(`Bearer ${k.key}`)).ok).toBe(true);
    t += 1;
    expect(await resolver.resolve(`Bearer ${k.key}`)).toEqual({
      ok: false,
      error: { status: 401, code: "invalid_token" },
    });
  });

  it("honours a custom TTL and clear()", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "ttl" });
    let t = Date.now();
    const resolver = createCallerResolver(server.database.db, { now: () => t, ttlMs: 100 });
    expect((await resolver.resolve(`Bearer ${k.key}`)).ok).toBe(true);
    await server.database.db.update(apikey).set({ enabled: false }).where(eq(apikey.id, k.id));
    t += 99;
    expect((await resolver.resolve(`Bearer ${k.key}`)).ok).toBe(true);
    t += 1;
    expect(await resolver.resolve(`Bearer ${k.key}`)).toEqual({ ok: false, error: { status: 403, code: "disabled_key" } });
    await server.database.db.update(apikey).set({ enabled: true }).where(eq(apikey.id, k.id));
    resolver.clear();
    expect((await resolver.resolve(`Bearer ${k.key}`)).ok).toBe(true);
  });

  it("expires a cached key and session by the clock", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "clock", expiresIn: DAY });
    let t = Date.now();
    const resolver = createCallerResolver(server.database.db, { now: () => t, ttlMs: 60 * DAY * 1000 });
    expect((await resolver.resolve(`Bearer ${k.key}`)).ok).toBe(true);
    expect((await resolver.resolve(`Bearer ${member.token}`)).ok).toBe(true);
    t += DAY * 1000 + 1000;
    expect(await resolver.resolve(`Bearer ${k.key}`)).toEqual({ ok: false, error: { status: 401, code: "expired_token" } });
    t += 30 * DAY * 1000; // sessions last 7 days
    expect(await resolver.resolve(`Bearer ${member.token}`)).toEqual({
      ok: false,
      error: { status: 401, code: "expired_token" },
    });
  });

  it("opens a new rate-limit window once the old one has passed", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "window", rateLimitMax: 2, rateLimitTimeWindow: 10_000 });
    let t = Date.now();
    const resolver = createCallerResolver(server.database.db, { now: () => t });
    expect((await resolver.resolve(`Bearer ${k.key}`)).ok).toBe(true);
    expect((await resolver.resolve(`Bearer ${k.key}`)).ok).toBe(true);
    t += 2_500;
    expect(await resolver.resolve(`Bearer ${k.key}`)).toEqual({
      ok: false,
      error: { status: 429, code: "rate_limited", retryAfterSeconds: 8 },
    });
    t += 7_499;
    expect(await resolver.resolve(`Bearer ${k.key}`)).toEqual({
      ok: false,
      error: { status: 429, code: "rate_limited", retryAfterSeconds: 1 },
    });
    t += 1;
    expect((await resolver.resolve(`Bearer ${k.key}`)).ok).toBe(true);
  });
});
