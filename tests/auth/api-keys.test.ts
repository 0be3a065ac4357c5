// Organization API keys (the spec's API key calls): created for an organization by its owner or admin, shown
// once, stored hashed, listed, deleted, expired ones swept; plain members and strangers are refused.
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apikey } from "../../server/db/schema/auth.js";
import { ALL_BILLING_PERMISSIONS } from "../../shared/scopes.js";
import { Client } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { addMember, bearer, createKey, createOrganization, mustCreateKey, person, type CreatedKey, type Person } from "./key-fixtures.js";

let server: TestServer;
let owner: Person;
let admin: Person;
let member: Person;
let stranger: Person;
let orgId: string;

const DAY = 86_400;

beforeAll(async () => {
  server = await startServer();
  owner = await person(server, "owner");
  admin = await person(server, "admin");
  member = await person(server, "member");
  stranger = await person(server, "stranger");
  orgId = await createOrganization(owner);
  await addMember(server, orgId, admin, "admin");
  await addMember(server, orgId, member, "member");
});
afterAll(async () => server?.close());

async function row(id: string) {
  const rows = await server.database.db.select().from(apikey).where(eq(apikey.id, id));
  return rows[0];
}

describe("creating a key", () => {
  it("returns the key once, with the till_live_ prefix, for the organization", async () => {
    const before = Date.now();
    const res = await createKey(owner, { organizationId: orgId, name: "ci", expiresIn: 30 * DAY });
    expect(res.status).toBe(200);
    const k = res.body;
    expect(k.key).toMatch(/^till_live_[A-Za-z]{64}$/);
    expect(k.prefix).toBe("till_live_");
    // the prefix and four characters: the side a key acts on and enough to tell keys apart in a list
    expect(k.start).toBe(k.key.slice(0, 14));
    expect(k.name).toBe("ci");
    expect(k.referenceId).toBe(orgId);
    expect(k.enabled).toBe(true);
    // till's defaults: a generous per-key limit instead of better-auth's 10 requests a day
    expect(k.rateLimitEnabled).toBe(true);
    expect(k.rateLimitMax).toBe(1000);
    expect(k.rateLimitTimeWindow).toBe(60_000);
    // without explicit permissions a key may use every /v1 scope of its organization
    expect(k.permissions).toEqual(ALL_BILLING_PERMISSIONS);
    const expires = new Date(k.expiresAt ?? 0).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 30 * DAY * 1000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * DAY * 1000 + 1000);
  });

  it("stores only the SHA-256 (base64url) of the key", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "hashed" });
    const stored = await row(k.id);
    expect(stored).toBeDefined();
    expect(stored?.key).not.toBe(k.key);
    expect(stored?.key).not.toContain(k.key.slice(5));
    expect(stored?.key).toBe(createHash("sha256").update(k.key).digest("base64url"));
    expect(stored?.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stored?.referenceId).toBe(orgId);
  });

  it("never shows the key again in list or get", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "listed" });
    const list = await owner.client.get<{ apiKeys: Array<Record<string, unknown>>; total: number }>(
      `/api/auth/api-key/list?organizationId=${orgId}`,
    );
    expect(list.status).toBe(200);
    const listed = list.body.apiKeys.find((x) => x.id === k.id);
    expect(listed).toMatchObject({ id: k.id, name: "listed", start: k.start, referenceId: orgId });
    for (const item of list.body.apiKeys) expect(item).not.toHaveProperty("key");
    expect(list.text).not.toContain(k.key);
    expect(list.body.total).toBe(list.body.apiKeys.length);

    const got = await owner.client.get<Record<string, unknown>>(`/api/auth/api-key/get?id=${k.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: k.id, name: "listed" });
    expect(got.body).not.toHaveProperty("key");
    expect(got.text).not.toContain(k.key);
  });

  it("lets an admin create keys too", async () => {
    const res = await createKey(admin, { organizationId: orgId, name: "by-admin" });
    expect(res.status).toBe(200);
    expect(res.body.referenceId).toBe(orgId);
  });

  it("refuses a plain member, a stranger and a signed-out caller", async () => {
    const byMember = await createKey(member, { organizationId: orgId, name: "nope" });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({
      code: "INSUFFICIENT_API_KEY_PERMISSIONS",
      message: "You do not have permission to perform this action on organization API keys.",
    });
    const byStranger = await createKey(stranger, { organizationId: orgId, name: "nope" });
    expect(byStranger.status).toBe(403);
    expect(byStranger.body).toEqual({
      code: "USER_NOT_MEMBER_OF_ORGANIZATION",
      message: "You are not a member of the organization that owns this API key.",
    });
    const anonymous = await new Client(server.url).post("/api/auth/api-key/create", { organizationId: orgId });
    expect(anonymous.status).toBe(401);
    // the member cannot list or read the organization's keys either
    const list = await member.client.get(`/api/auth/api-key/list?organizationId=${orgId}`);
    expect(list.status).toBe(403);
  });

  it("requires an organization", async () => {
    const res = await createKey(owner, { name: "personal" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: "ORGANIZATION_ID_REQUIRED",
      message: "Organization ID is required for organization-owned API keys.",
    });
  });

  it("answers a malformed organization id like an unknown one, never with a 500", async () => {
    const res = await createKey(owner, { organizationId: "not-a-uuid", name: "x" });
    expect(res.status).toBe(403);
    const list = await owner.client.get(`/api/auth/api-key/list?organizationId=not-a-uuid`);
    expect(list.status).toBe(403);
  });

  it("keeps the prefix to till's own (till_live_, till_test_ and the earlier till_)", async () => {
    const custom = await createKey(owner, { organizationId: orgId, name: "x", prefix: "zz_" });
    expect(custom.status).toBe(400);
    expect(custom.body).toEqual({
      code: "PREFIX_IS_FIXED",
      message: "API keys start with till_live_ (live) or till_test_ (sandbox); no other prefix can be chosen.",
    });
    const same = await createKey(owner, { organizationId: orgId, name: "x", prefix: "till_" });
    expect(same.status).toBe(200);
    expect(same.body.key.startsWith("till_")).toBe(true);
  });

  it("bounds the expiry to between 1 and 365 days", async () => {
    const small = await createKey(owner, { organizationId: orgId, name: "x", expiresIn: DAY - 1 });
    expect(small.status).toBe(400);
    expect(small.body).toMatchObject({ code: "EXPIRES_IN_IS_TOO_SMALL" });
    const large = await createKey(owner, { organizationId: orgId, name: "x", expiresIn: 366 * DAY });
    expect(large.status).toBe(400);
    expect(large.body).toMatchObject({ code: "EXPIRES_IN_IS_TOO_LARGE" });
    const none = await createKey(owner, { organizationId: orgId, name: "x" });
    expect(none.body.expiresAt).toBeNull();
  });
});

describe("fields better-auth marks server-only", () => {
  it("lets an owner set permissions and the per-key rate limit", async () => {
    const res = await createKey(owner, {
      organizationId: orgId,
      name: "limited",
      permissions: { products: ["read", "write"] },
      rateLimitMax: 3,
      rateLimitTimeWindow: 10_000,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      referenceId: orgId,
      permissions: { products: ["read", "write"] },
      rateLimitEnabled: true,
      rateLimitMax: 3,
      rateLimitTimeWindow: 10_000,
    });
    expect(res.body.key).toMatch(/^till_/);
    const stored = await row(res.body.id);
    expect(stored?.rateLimitMax).toBe(3);
    expect(stored?.rateLimitTimeWindow).toBe(10_000);
    expect(JSON.parse(stored?.permissions ?? "null")).toEqual({ products: ["read", "write"] });
  });

  it("lets an admin switch the limit off and an owner change it later", async () => {
    const k = await createKey(admin, { organizationId: orgId, name: "unlimited", rateLimitEnabled: false });
    expect(k.status).toBe(200);
    expect(k.body.rateLimitEnabled).toBe(false);
    const upd = await owner.client.post<CreatedKey>("/api/auth/api-key/update", {
      keyId: k.body.id,
      rateLimitEnabled: true,
      rateLimitMax: 50,
      permissions: { orders: ["read"] },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ rateLimitEnabled: true, rateLimitMax: 50, permissions: { orders: ["read"] } });
    expect(upd.body).not.toHaveProperty("key");
  });

  it("refuses them from a plain member", async () => {
    const res = await createKey(member, { organizationId: orgId, name: "x", rateLimitMax: 5 });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "INSUFFICIENT_API_KEY_PERMISSIONS" });
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "target" });
    const upd = await member.client.post("/api/auth/api-key/update", { keyId: k.id, rateLimitMax: 5 });
    expect(upd.status).toBe(403);
    expect((await row(k.id))?.rateLimitMax).toBe(1000);
  });

  it("refuses them from a signed-out caller", async () => {
    const res = await new Client(server.url).post("/api/auth/api-key/create", { organizationId: orgId, rateLimitMax: 5 });
    expect(res.status).toBe(401);
  });

  it("validates them", async () => {
    for (const bad of [
      { rateLimitMax: 0 },
      { rateLimitMax: 1.5 },
      { rateLimitMax: 1e12 },
      { rateLimitTimeWindow: 10 },
      { rateLimitTimeWindow: 86_400_001 },
      { rateLimitEnabled: "yes" },
      { permissions: { products: "read" } },
      { permissions: ["read"] },
    ]) {
      const res = await createKey(owner, { organizationId: orgId, name: "x", ...bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR" });
    }
  });

  it("keeps usage counters server-only (the request helper does not count usage)", async () => {
    for (const field of [{ remaining: 10 }, { refillAmount: 10, refillInterval: 1000 }, { remaining: 5, rateLimitMax: 5 }]) {
      const res = await createKey(owner, { organizationId: orgId, name: "x", ...field });
      expect(res.status, JSON.stringify(field)).toBe(400);
      expect(res.body).toEqual({
        code: "SERVER_ONLY_PROPERTY",
        message: "The property you're trying to set can only be set from the server auth instance only.",
      });
    }
    // acting for another user is never taken over from a client, with or without owner-settable fields
    const withLimit = await createKey(owner, { organizationId: orgId, name: "x", userId: member.user.id, rateLimitMax: 5 });
    expect(withLimit.status).toBe(400);
    expect(withLimit.body).toMatchObject({ code: "SERVER_ONLY_PROPERTY" });
    const plain = await createKey(owner, { organizationId: orgId, name: "x", userId: member.user.id });
    expect(plain.status).toBe(401);
    expect(plain.body).toEqual({ code: "UNAUTHORIZED_SESSION", message: "Unauthorized or invalid session" });
  });
});

describe("deleting keys", () => {
  it("is refused to a plain member and allowed to an admin", async () => {
    const k = await mustCreateKey(owner, { organizationId: orgId, name: "to-delete" });
    const byMember = await member.client.post("/api/auth/api-key/delete", { keyId: k.id });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toMatchObject({ code: "INSUFFICIENT_API_KEY_PERMISSIONS" });
    expect(await row(k.id)).toBeDefined();
    const byStranger = await stranger.client.post("/api/auth/api-key/delete", { keyId: k.id });
    expect(byStranger.status).toBe(403);

    const byAdmin = await admin.client.post("/api/auth/api-key/delete", { keyId: k.id });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toEqual({ success: true });
    expect(await row(k.id)).toBeUndefined();
    const list = await owner.client.get<{ apiKeys: Array<{ id: string }> }>(`/api/auth/api-key/list?organizationId=${orgId}`);
    expect(list.body.apiKeys.map((x) => x.id)).not.toContain(k.id);
    const got = await owner.client.get(`/api/auth/api-key/get?id=${k.id}`);
    expect(got.status).toBe(404);
    expect(got.body).toEqual({ code: "KEY_NOT_FOUND", message: "API Key not found" });
  });

  it("answers unknown and malformed key ids with 404", async () => {
    for (const keyId of ["00000000-0000-4000-8000-000000000000", "nope"]) {
      const res = await owner.client.post("/api/auth/api-key/delete", { keyId });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "KEY_NOT_FOUND" });
    }
    const got = await owner.client.get(`/api/auth/api-key/get?id=nope`);
    expect(got.status).toBe(404);
  });

  it("deletes an organization's keys with the organization", async () => {
    const doomedOrg = await createOrganization(owner, "Doomed");
    const k = await mustCreateKey(owner, { organizationId: doomedOrg, name: "orphan" });
    const kept = await mustCreateKey(owner, { organizationId: orgId, name: "kept" });
    expect((await new Client(server.url).get("/api/whoami", bearer(k.key))).status).toBe(200);
    const del = await owner.client.post("/api/auth/organization/delete", { organizationId: doomedOrg });
    expect(del.status).toBe(200);
    expect(await row(k.id)).toBeUndefined();
    expect(await row(kept.id)).toBeDefined();
    const who = await new Client(server.url).get("/api/whoami", bearer(k.key));
    expect(who.status).toBe(401);
    // a refused deletion leaves the keys alone
    const byAdmin = await admin.client.post("/api/auth/organization/delete", { organizationId: orgId });
    expect(byAdmin.status).toBe(403);
    expect(await row(kept.id)).toBeDefined();
  });

  it("sweeps expired keys with delete-all-expired-api-keys", async () => {
    const dead = await mustCreateKey(owner, { organizationId: orgId, name: "dead", expiresIn: DAY });
    const alive = await mustCreateKey(owner, { organizationId: orgId, name: "alive", expiresIn: DAY });
    const forever = await mustCreateKey(owner, { organizationId: orgId, name: "forever" });
    await server.database.db
      .update(apikey)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apikey.id, dead.id));

    const anonymous = await new Client(server.url).post("/api/auth/api-key/delete-all-expired-api-keys", {});
    expect(anonymous.status).toBe(401);
    expect(await row(dead.id)).toBeDefined();

    const res = await member.client.post("/api/auth/api-key/delete-all-expired-api-keys", {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, error: null });
    expect(await row(dead.id)).toBeUndefined();
    expect(await row(alive.id)).toBeDefined();
    expect(await row(forever.id)).toBeDefined();
  });
});
