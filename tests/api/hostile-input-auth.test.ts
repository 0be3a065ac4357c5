// better-auth inputs that answered 500 before the input guard and the better-auth mount's checks: null and empty
// bodies, a number for a username, an empty organization update, limit=1e309, both permission and permissions,
// banExpiresIn=-1e308 are 4xx or a no-op. JSON nesting, body limits and unstorable characters:
// hostile-input.test.ts.
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { outbox, user } from "../../server/db/schema/index.js";
import { rawRequest, type RawResponse } from "../helpers/api.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { createSeller } from "../helpers/seller.js";
import { hostileInputFixture } from "./hostile-input-fixtures.js";

const fx = hostileInputFixture();

describe("better-auth inputs that were 500s", () => {
  it("sign-up and update-user with a null or empty body are 400 VALIDATION_ERROR", async () => {
    const cookie = fx.cookieOf(fx.seller.client);
    for (const [path, body, received] of [
      ["/api/auth/sign-up/email", "null", "null"],
      ["/api/auth/update-user", "null", "null"],
      ["/api/auth/update-user", "[]", "array"],
      ["/api/auth/sign-up/email", "5", "number"],
    ] as const) {
      const res = await fx.send("POST", path, body, cookie);
      expect(res.status, `${path} ${body}: ${res.text}`).toBe(400);
      expect(res.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: `[body] Invalid input: expected object, received ${received}` });
    }
    for (const headers of [{ "content-type": "application/json" }, {}] as Array<Record<string, string>>) {
      const res = await fetch(`${fx.server.url}/api/auth/sign-up/email`, { method: "POST", headers: { origin: fx.server.url, ...headers }, body: "" });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ message: "Invalid body parameters", code: "VALIDATION_ERROR" });
    }
  });

  it("a username that is not a string is 400 VALIDATION_ERROR on sign-up and update-user", async () => {
    const cookie = fx.cookieOf(fx.seller.client);
    const update = await fx.send("POST", "/api/auth/update-user", '{"username":2147483648}', cookie);
    expect(update.status, update.text).toBe(400);
    expect(update.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: "[body.username] Invalid input: expected string" });
    const email = uniqueEmail("numeric");
    const signUp = await fx.send("POST", "/api/auth/sign-up/email", JSON.stringify({ email, password: "correct-horse-battery", name: "N", username: 12345 }));
    expect(signUp.status, signUp.text).toBe(400);
    expect(await fx.db().select().from(user).where(eq(user.email, email))).toEqual([]);
  });

  it("organization/update with nothing to change answers the organization unchanged and records no event", async () => {
    const before = (await fx.db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, fx.seller.organizationId)))[0]!.n;
    const res = await fx.seller.client.post<{ id: string; name: string; slug: string }>("/api/auth/organization/update", { data: {}, organizationId: fx.seller.organizationId });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: fx.seller.organizationId, slug: fx.seller.slug });
    expect((await fx.db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, fx.seller.organizationId)))[0]!.n).toBe(before);
    // a member without the update permission is still refused
    const stranger = await createSeller(fx.server, "stranger");
    const refused = await stranger.client.post("/api/auth/organization/update", { data: {}, organizationId: fx.seller.organizationId });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
  });

  it("a page limit or offset that is not a whole number ≥ 0 is 400 VALIDATION_ERROR", async () => {
    for (const q of ["limit=1e309", "limit=-1", "limit=1.5", "offset=-5", "offset=1e309"]) {
      const res = await fx.seller.client.get<Record<string, unknown>>(`/api/auth/organization/list-members?${q}`);
      expect(res.status, `${q}: ${res.text}`).toBe(400);
      expect(res.body).toMatchObject({ message: "Invalid query parameters", code: "VALIDATION_ERROR" });
    }
    expect((await fx.seller.client.get("/api/auth/organization/list-members?limit=5&offset=0")).status).toBe(200);
  });

  it("has-permission with both permission and permissions is 400 VALIDATION_ERROR", async () => {
    for (const body of [
      { permission: { member: ["create"] }, permissions: { member: ["create"] } },
      { permission: {}, permissions: { member: ["create"] }, organizationId: fx.seller.organizationId },
    ]) {
      const res = await fx.seller.client.post("/api/auth/organization/has-permission", body);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR" });
    }
  });

  it("a ban whose expiry is no date is 400 VALIDATION_ERROR and bans no one", async () => {
    await fx.db().update(user).set({ role: "admin" }).where(eq(user.id, fx.seller.user.id));
    const target = new Client(fx.server.url);
    const { user: victim } = await target.signUp(uniqueEmail("victim"));
    for (const banExpiresIn of [-1e308, 1e308, 1e15]) {
      const res = await fx.seller.client.post("/api/auth/admin/ban-user", { userId: victim.id, banExpiresIn });
      expect(res.status, `${banExpiresIn}: ${res.text}`).toBe(400);
      expect(res.body).toMatchObject({ message: "Invalid body parameters", code: "VALIDATION_ERROR" });
    }
    const [row] = await fx.db().select({ banned: user.banned }).from(user).where(eq(user.id, victim.id));
    expect(row?.banned ?? false).toBe(false);
    const ok = await fx.seller.client.post("/api/auth/admin/ban-user", { userId: victim.id, banExpiresIn: 60 });
    expect(ok.status, ok.text).toBe(200);
  });

  it("the server answers after all of it", async () => {
    await fx.healthy();
    const res: RawResponse = await rawRequest(fx.server.url, fx.key, "GET", "/v1/products/");
    expect(res.status).toBe(200);
  });
});
