// Signed entitlement snapshots through HTTP: a customer's snapshot (by id and external id) verifies with the
// verifier against the organization's JWKS at /.well-known/jwks.json; its first key is made once under concurrent
// first snapshots; a rotation publishes both keys until the old one's snapshots can have expired, then the old key
// drops out and its snapshots are refused. Another organization's customer is a 404; the sandbox twin signs with
// keys of its own; the private keys are stored sealed.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SnapshotError, verifySnapshot, type Jwks } from "../../packages/entitlements-verifier/src/index.js";
import { rawRequest } from "../helpers/api.js";
import { rowsOf } from "../../server/db/client.js";
import { createSeller, startWithSellers, type Seller } from "../helpers/seller.js";
import type { TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let key: string;
let customer: { id: string; externalId: string };
let otherCustomer: { id: string; externalId: string };

const get = (path: string, token = key) => rawRequest(server.url, token, "GET", path);
const post = (path: string, token = key) => rawRequest(server.url, token, "POST", path);

async function jwksOf(organizationId: string): Promise<{ status: number; headers: Headers; body: Jwks & Record<string, unknown> }> {
  const res = await fetch(`${server.url}/.well-known/jwks.json?organization_id=${organizationId}`);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Jwks & Record<string, unknown> };
}

async function makeCustomer(token: string, tag: string) {
  const externalId = `ext-${tag}-${Date.now().toString(36)}`;
  const res = await rawRequest(server.url, token, "POST", "/v1/customers/", { email: `${tag}-${Date.now()}@example.com`, external_id: externalId });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, externalId };
}

const codeOf = (p: Promise<unknown>) => p.then(() => "verified", (err: unknown) => (err instanceof SnapshotError ? err.code : String(err)));

beforeAll(async () => {
  ({ server, seller, other, key } = await startWithSellers("snapshots"));
  customer = await makeCustomer(key, "a");
  otherCustomer = await makeCustomer(await other.createKey(), "b");
});
afterAll(async () => server?.close());

describe("a customer's snapshot", () => {
  it("is a token of the organization's signing key that the verifier accepts with the published JWKS", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await get(`/v1/customers/${customer.id}/entitlements/snapshot`);
    expect(res.status).toBe(200);
    const { token, kid, expires_at } = res.body as { token: string; kid: string; expires_at: string };
    const jwks = await jwksOf(seller.organizationId);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get("cache-control")).toBe("public, max-age=300");
    expect(jwks.headers.get("access-control-allow-origin")).toBe("*");
    expect(jwks.body.keys).toEqual([expect.objectContaining({ kid, kty: "EC", crv: "P-256", alg: "ES256", use: "sig" })]);
    expect(Object.keys(jwks.body.keys[0]!).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
    const snapshot = await verifySnapshot(token, jwks.body, { issuer: server.url, organizationId: seller.organizationId });
    expect(snapshot.payload).toMatchObject({ iss: server.url, sub: customer.id, org: seller.organizationId, ext: customer.externalId });
    expect(snapshot.payload.exp - snapshot.payload.iat).toBe(300);
    expect(snapshot.payload.iat).toBeGreaterThanOrEqual(before);
    expect(new Date(expires_at).getTime()).toBe(snapshot.payload.exp * 1000);
    expect(snapshot.check("no-such-feature")).toMatchObject({ allowed: false, reason: "no_benefit" });
  });

  it("by external id, with the ttl asked (10 s to a day)", async () => {
    const res = await get(`/v1/customers/external/${customer.externalId}/entitlements/snapshot?ttl=60`);
    expect(res.status).toBe(200);
    const jwks = (await jwksOf(seller.organizationId)).body;
    const snapshot = await verifySnapshot(res.body.token as string, jwks);
    expect(snapshot.payload.sub).toBe(customer.id);
    expect(snapshot.payload.exp - snapshot.payload.iat).toBe(60);
    for (const ttl of ["9", "86401", "abc", "-5"]) {
      const bad = await get(`/v1/customers/${customer.id}/entitlements/snapshot?ttl=${ttl}`);
      expect(bad.status, ttl).toBe(422);
      expect((bad.body.detail as Array<{ loc: unknown[] }>)[0]!.loc).toEqual(["query", "ttl"]);
    }
    expect((await get(`/v1/customers/${customer.id}/entitlements/snapshot?ttl=86400`)).status).toBe(200);
  });

  it("of a customer unknown, deleted or of another organization: 404 Customer not found", async () => {
    const paths = [
      `/v1/customers/${otherCustomer.id}/entitlements/snapshot`,
      `/v1/customers/external/${otherCustomer.externalId}/entitlements/snapshot`,
      "/v1/customers/00000000-0000-4000-8000-000000000000/entitlements/snapshot",
      "/v1/customers/external/nobody/entitlements/snapshot",
    ];
    for (const path of paths) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ error: "ResourceNotFound" });
    }
    const gone = await makeCustomer(key, "gone");
    expect((await rawRequest(server.url, key, "DELETE", `/v1/customers/${gone.id}`)).status).toBe(204);
    expect((await get(`/v1/customers/${gone.id}/entitlements/snapshot`)).status).toBe(404);
    expect((await get("/v1/customers/not-a-uuid/entitlements/snapshot")).status).toBe(422);
  });

  it("needs entitlements:read (customers:read implies it); the keys organizations:read, their rotation organizations:write", async () => {
    const entitled = await seller.createKey({ entitlements: ["read"] });
    expect((await get(`/v1/customers/${customer.id}/entitlements/snapshot`, entitled)).status).toBe(200);
    const reader = await seller.createKey({ customers: ["read"] });
    expect((await get(`/v1/customers/${customer.id}/entitlements/snapshot`, reader)).status).toBe(200);
    expect((await get("/v1/entitlements/keys", reader)).status).toBe(403);
    expect((await post("/v1/entitlements/keys/rotate", reader)).status).toBe(403);
    const orgReader = await seller.createKey({ organizations: ["read"] });
    expect((await get(`/v1/customers/${customer.id}/entitlements/snapshot`, orgReader)).status).toBe(403);
    expect((await get("/v1/entitlements/keys", orgReader)).status).toBe(200);
  });
});

describe("/.well-known/jwks.json", () => {
  it("answers an organization without keys yet with none, an unknown one 404 and a malformed id 422", async () => {
    const fresh = await createSeller(server, "fresh");
    expect((await jwksOf(fresh.organizationId)).body).toEqual({ keys: [] });
    const unknown = await jwksOf("00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: "ResourceNotFound", detail: "Organization not found" });
    const malformed = await jwksOf("nope");
    expect(malformed.status).toBe(422);
    expect(malformed.body).toMatchObject({ detail: [{ loc: ["query", "organization_id"], type: "uuid_parsing" }] });
    const res = await fetch(`${server.url}/.well-known/jwks.json`);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ detail: [{ loc: ["query", "organization_id"], type: "missing" }] });
  });
});

describe("keys", () => {
  it("two first snapshots at once end with one key, stored sealed", async () => {
    const fresh = await createSeller(server, "race");
    const freshKey = await fresh.createKey();
    const c = await makeCustomer(freshKey, "race");
    const answers = await Promise.all(Array.from({ length: 4 }, () => get(`/v1/customers/${c.id}/entitlements/snapshot`, freshKey)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.kid)).size).toBe(1);
    const keys = await get("/v1/entitlements/keys", freshKey);
    expect(keys.body.items).toEqual([{ kid: answers[0]!.body.kid, created_at: expect.any(String), retires_at: null, signing: true }]);
    const [row] = await rowsOf<{ private_key: string }>(server.database.db, sql`SELECT private_key FROM entitlement_signing_key WHERE organization_id = ${fresh.organizationId}`);
    expect(row!.private_key).toMatch(/^v1\./);
    expect(row!.private_key).not.toContain("P-256");
  });

  it("a rotation publishes both keys; the old key's snapshots verify until it drops out, then are refused", async () => {
    const oldSnap = (await get(`/v1/customers/${customer.id}/entitlements/snapshot?ttl=3600`)).body as { token: string; kid: string };
    const rotated = await post("/v1/entitlements/keys/rotate");
    expect(rotated.status).toBe(200);
    const items = rotated.body.items as Array<{ kid: string; retires_at: string | null; signing: boolean }>;
    expect(items).toHaveLength(2);
    const [old, next] = items as [(typeof items)[0], (typeof items)[0]];
    expect(old).toMatchObject({ kid: oldSnap.kid, signing: false });
    expect(Math.abs(new Date(old.retires_at!).getTime() - (Date.now() + 86_400_000))).toBeLessThan(60_000);
    expect(next).toMatchObject({ signing: true, retires_at: null });

    const both = (await jwksOf(seller.organizationId)).body;
    expect(both.keys.map((k) => k.kid)).toEqual([old.kid, next.kid]);
    expect(await codeOf(verifySnapshot(oldSnap.token, both))).toBe("verified");
    const newSnap = (await get(`/v1/customers/${customer.id}/entitlements/snapshot`)).body as { token: string; kid: string };
    expect(newSnap.kid).toBe(next.kid);
    expect(await codeOf(verifySnapshot(newSnap.token, both))).toBe("verified");

    // the old key's retirement comes (its snapshots' longest ttl has passed)
    await server.database.db.execute(sql`UPDATE entitlement_signing_key SET retires_at = now() - interval '1 second' WHERE kid = ${old.kid}`);
    const after = (await jwksOf(seller.organizationId)).body;
    expect(after.keys.map((k) => k.kid)).toEqual([next.kid]);
    expect(await codeOf(verifySnapshot(oldSnap.token, after))).toBe("unknown_kid");
    expect((await get("/v1/entitlements/keys")).body.items).toEqual([expect.objectContaining({ kid: next.kid, signing: true })]);
    // the next rotation clears the retired row away
    await post("/v1/entitlements/keys/rotate");
    const [{ n }] = (await rowsOf<{ n: number }>(server.database.db, sql`SELECT count(*)::int AS n FROM entitlement_signing_key WHERE kid = ${old.kid}`)) as [{ n: number }];
    expect(n).toBe(0);
  });

  it("the sandbox twin signs with keys of its own, published under its own organization id", async () => {
    const sandboxKey = await seller.createSandboxKey();
    const twin = ((await get("/api/whoami", sandboxKey)).body as { organization_id: string }).organization_id;
    expect(twin).not.toBe(seller.organizationId);
    const c = await makeCustomer(sandboxKey, "sandbox");
    const snap = (await get(`/v1/customers/${c.id}/entitlements/snapshot`, sandboxKey)).body as { token: string; kid: string };
    const live = (await jwksOf(seller.organizationId)).body;
    expect(live.keys.map((k) => k.kid)).not.toContain(snap.kid);
    expect(await codeOf(verifySnapshot(snap.token, live))).toBe("unknown_kid");
    const own = (await jwksOf(twin)).body;
    const verified = await verifySnapshot(snap.token, own, { organizationId: twin });
    expect(verified.payload.sub).toBe(c.id);
    expect((await get(`/v1/customers/${c.id}/entitlements/snapshot`)).status).toBe(404);
  });
});
