// Secrets at rest: a dump of the database hands over no credential. After sign-up, sign-in, a device
// flow, an API key, a password-reset request, an email verification and an account-deletion request, no table
// holds any token the clients saw, and presenting what the tables hold (session tokens, device and user codes,
// verification identifiers, API keys) as a bearer token, cookie token or link token gets nowhere. Rows written
// before the hashing migration (raw tokens, as the code of that time stored them) keep working after it.
import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { type Database } from "../../server/db/client.js";
import { Client, uniqueEmail, type Res } from "../helpers/client.js";
import { migrationsBefore, upgradedDatabase } from "../helpers/db.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { PASSWORD, mailedLink, signedUp } from "./account-fixtures.js";
import { bearer, createOrganization, mustCreateKey, person } from "./key-fixtures.js";

const CLIENT_ID = "till-cli";
const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";

async function rows<T>(db: Database["db"], query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

/** Every row of every table of the database, as JSON text: what a dump would hand over. */
async function dump(db: Database["db"]): Promise<string[]> {
  const tables = await rows<{ name: string }>(
    db,
    sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const out: string[] = [];
  for (const { name } of tables) {
    const found = await rows<{ j: string }>(db, sql.raw(`SELECT row_to_json(t)::text AS j FROM "${name.replace(/"/g, '""')}" t`));
    out.push(...found.map((r) => r.j));
  }
  return out;
}

function expectNotStored(dumped: string[], seen: Record<string, string>): void {
  for (const [what, token] of Object.entries(seen)) {
    expect(token.length, what).toBeGreaterThan(7);
    expect(dumped.filter((row) => row.includes(token)), `${what} is stored in clear`).toEqual([]);
  }
}

async function stored<T>(db: Database["db"], query: SQL): Promise<T[]> {
  return rows<T>(db, query);
}

describe("what the tables hold", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server?.close());

  it("is no token any client saw, and none of it works as one", async () => {
    const db = server.database.db;
    const seen: Record<string, string> = {};

    // sign-up (its verification mail carries a signed link: not stored at all) and a second sign-in
    const alice = await signedUp(server, "atrest");
    seen.signUpSession = alice.client.sessionToken ?? "";
    const verify = await mailedLink(server, alice.email, /^Verify your email address$/);
    seen.verifyEmailToken = verify.searchParams.get("token") ?? "";
    const second = new Client(server.url);
    const signIn = await second.post<{ token: string }>("/api/auth/sign-in/email", { email: alice.email, password: PASSWORD });
    expect(signIn.status).toBe(200);
    seen.signInSession = signIn.body.token;

    // a device flow, pending: the device code and the user code are both stored hashed
    const code = await new Client(server.url).post<{ device_code: string; user_code: string }>("/api/auth/device/code", {
      client_id: CLIENT_ID,
    });
    expect(code.status).toBe(200);
    seen.deviceCode = code.body.device_code;
    seen.userCode = code.body.user_code;
    expectNotStored(await dump(db), seen);
    const [pending] = await stored<{ device_code: string; user_code: string }>(db, sql`SELECT device_code, user_code FROM device_code`);
    expect(pending?.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pending?.user_code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // neither stored code is one
    const poll = (deviceCode: string) =>
      new Client(server.url).post<{ error?: string; access_token?: string }>("/api/auth/device/token", {
        grant_type: GRANT_TYPE,
        device_code: deviceCode,
        client_id: CLIENT_ID,
      });
    expect((await poll(pending?.device_code ?? "")).body.error).toBe("invalid_grant");
    const claimStored = await alice.client.get<{ error?: string }>(`/api/auth/device?user_code=${pending?.user_code ?? ""}`);
    expect(claimStored.status).toBe(400);
    // the real ones are: claim, approve, poll → an access token (a session token)
    expect((await alice.client.get(`/api/auth/device?user_code=${code.body.user_code}`)).status).toBe(200);
    expect((await alice.client.post("/api/auth/device/approve", { userCode: code.body.user_code })).status).toBe(200);
    await db.execute(sql`UPDATE device_code SET last_polled_at = now() - interval '1 minute'`);
    const token = await poll(code.body.device_code);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    seen.deviceAccessToken = token.body.access_token ?? "";

    // an organization API key (already stored hashed by @better-auth/api-key)
    const owner = await person(server, "atrestkey");
    seen.ownerSession = owner.token;
    const orgId = await createOrganization(owner, "AtRest");
    seen.apiKey = (await mustCreateKey(owner, { organizationId: orgId, name: "ci" })).key;

    // a password reset and an account deletion asked for by mail
    const reset = await new Client(server.url).post("/api/auth/request-password-reset", { email: alice.email, redirectTo: "/r" });
    expect(reset.status).toBe(200);
    seen.resetToken = (await mailedLink(server, alice.email, /^Reset your password$/)).pathname.split("/").pop() ?? "";
    const del = await alice.client.post("/api/auth/delete-user", { callbackURL: "/bye" });
    expect(del.status, del.text).toBe(200);
    seen.deleteToken =
      (await mailedLink(server, alice.email, /^Confirm the deletion of your account$/)).searchParams.get("token") ?? "";

    expectNotStored(await dump(db), seen);

    // what the tables hold, presented as credentials
    const sessions = await stored<{ token: string }>(db, sql`SELECT token FROM session`);
    expect(sessions.length).toBeGreaterThanOrEqual(4);
    for (const s of sessions) {
      expect(s.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const asBearer = await new Client(server.url).get("/api/auth/get-session", bearer(s.token));
      expect(asBearer.body).toBeNull();
      const asV1 = await new Client(server.url).get("/api/whoami", bearer(s.token));
      expect(asV1.status).toBe(401);
    }
    const keys = await stored<{ key: string }>(db, sql`SELECT key FROM apikey`);
    expect(keys).toHaveLength(1);
    for (const k of keys) expect((await new Client(server.url).get("/api/whoami", bearer(k.key))).status).toBe(401);
    const identifiers = await stored<{ identifier: string }>(db, sql`SELECT identifier FROM verification`);
    expect(identifiers.length).toBeGreaterThanOrEqual(2);
    for (const { identifier } of identifiers) {
      expect(identifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const asReset = await new Client(server.url).post<{ code?: string }>("/api/auth/reset-password", {
        token: identifier,
        newPassword: "another-password-1",
      });
      expect(asReset.status).toBe(400);
      expect(asReset.body.code).toBe("INVALID_TOKEN");
      const asDelete = await alice.client.post("/api/auth/delete-user", { token: identifier });
      expect(asDelete.status).not.toBe(200);
    }

    // while the tokens the clients hold all work
    for (const t of [seen.signUpSession, seen.signInSession, seen.deviceAccessToken]) {
      const me = await new Client(server.url).get<{ user: { id: string } } | null>("/api/auth/get-session", bearer(t ?? ""));
      expect(me.body?.user.id).toBe(alice.id);
      expect((await new Client(server.url).get("/api/whoami", bearer(t ?? ""))).status).toBe(200);
    }
    expect((await new Client(server.url).get("/api/whoami", bearer(seen.apiKey))).status).toBe(200);
    const done = await new Client(server.url).post("/api/auth/reset-password", { token: seen.resetToken, newPassword: "another-password-1" });
    expect(done.status, done.text).toBe(200);
  });

  it("revoke-session takes the handle list-sessions shows; the handle signs nobody in", async () => {
    const bob = await signedUp(server, "handles");
    const laptop = new Client(server.url);
    expect((await laptop.post("/api/auth/sign-in/email", { email: bob.email, password: PASSWORD })).status).toBe(200);
    const listed = await bob.client.get<Array<{ id: string; token: string }>>("/api/auth/list-sessions");
    expect(listed.status).toBe(200);
    // every token listed is the session's stored hash
    expect(listed.body.map((s) => s.token).sort()).toEqual(
      [hashStoredToken(bob.client.sessionToken ?? ""), hashStoredToken(laptop.sessionToken ?? "")].sort(),
    );
    const handle = listed.body.find((s) => s.token === hashStoredToken(laptop.sessionToken ?? ""));
    expect((await new Client(server.url).get("/api/auth/get-session", bearer(handle?.token ?? ""))).body).toBeNull();

    // revoking another user's session by its handle does nothing
    const mallory = await signedUp(server, "mallory");
    expect((await mallory.client.post("/api/auth/revoke-session", { token: handle?.token })).body).toEqual({ status: true });
    expect((await laptop.get<{ user: { id: string } } | null>("/api/auth/get-session")).body?.user.id).toBe(bob.id);

    const revoked = await bob.client.post("/api/auth/revoke-session", { token: handle?.token });
    expect(revoked.body).toEqual({ status: true });
    expect((await laptop.get("/api/auth/get-session")).body).toBeNull();
    expect((await bob.client.get<{ user: { id: string } } | null>("/api/auth/get-session")).body?.user.id).toBe(bob.id);

    // the current session by its handle: revoked, and the cookie goes
    const own = (await bob.client.get<Array<{ token: string }>>("/api/auth/list-sessions")).body;
    expect(own).toHaveLength(1);
    const self = await bob.client.post("/api/auth/revoke-session", { token: own[0]?.token });
    expect(self.body).toEqual({ status: true });
    expect(self.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="))).toMatch(/Max-Age=0/);
    expect((await bob.client.get("/api/auth/get-session")).body).toBeNull();
  });
});

describe("the rate-limit counters", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ TILL_RATE_LIMIT: "true", TILL_RATE_LIMIT_MAX: "1000", TILL_RATE_LIMIT_WINDOW: "60" });
  });
  afterAll(async () => server?.close());

  it("keep no reset-password token: their keys are stored hashed, and still count", async () => {
    const carol = await signedUp(server, "ratekeys");
    for (let i = 0; i < 2; i++) {
      const reset = await new Client(server.url).post("/api/auth/request-password-reset", { email: carol.email, redirectTo: "/r" });
      expect(reset.status).toBe(200);
    }
    const link = await mailedLink(server, carol.email, /^Reset your password$/);
    const resetToken = link.pathname.split("/").pop() ?? "";
    expect(link.pathname).toContain("/reset-password/");
    // the reset link is counted per path by better-auth's limiter: its path holds the token
    const opened = await fetch(`${server.url}${link.pathname}${link.search}`, { redirect: "manual" });
    expect(opened.status).toBeLessThan(400);
    const keys = await stored<{ key: string; count: number }>(server.database.db, sql`SELECT key, count FROM rate_limit`);
    expectNotStored(await dump(server.database.db), { resetToken });
    expect(JSON.stringify(keys)).not.toContain(carol.email);
    for (const { key } of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
    // the two reset requests from one address count on one key
    expect(Math.max(...keys.map((k) => k.count))).toBe(2);
    const done = await new Client(server.url).post("/api/auth/reset-password", { token: resetToken, newPassword: "another-password-1" });
    expect(done.status, done.text).toBe(200);
  });
});

describe("rows written before the hashing migration", () => {
  const userId = randomUUID();
  const email = uniqueEmail("oldrows");
  const sessionToken = "OldSessionToken0123456789abcdefg"; // 32 characters, as better-auth makes them
  const resetToken = "OldResetToken0123456789a";
  const deviceCode = "old-device-code-0123456789abcdefghijklmnop";
  const userCode = "BCDFGHJK";
  let server: TestServer;
  let database: Database;

  beforeAll(async () => {
    database = await upgradedDatabase(migrationsBefore("_hashed_tokens"), async (db) => {
      await db.execute(sql`INSERT INTO "user" (id, name, email, email_verified) VALUES (${userId}, 'Old', ${email}, true)`);
      await db.execute(
        sql`INSERT INTO session (token, user_id, expires_at, updated_at) VALUES (${sessionToken}, ${userId}, now() + interval '1 day', now())`,
      );
      await db.execute(
        sql`INSERT INTO verification (identifier, value, expires_at) VALUES (${`reset-password:${resetToken}`}, ${userId}, now() + interval '1 hour')`,
      );
      await db.execute(
        sql`INSERT INTO device_code (device_code, user_code, expires_at, status, polling_interval, client_id)
            VALUES (${deviceCode}, ${userCode}, now() + interval '10 minutes', 'pending', 1000, ${CLIENT_ID})`,
      );
    });
    server = await startServer({}, { database });
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  it("are hashed by the migration, and their tokens keep working", async () => {
    const [row] = await stored<{ token: string }>(database.db, sql`SELECT token FROM session WHERE user_id = ${userId}`);
    expect(row?.token).not.toBe(sessionToken);
    expectNotStored(await dump(database.db), { sessionToken, resetToken, deviceCode, userCode });

    const me = await new Client(server.url).get<{ user: { id: string } } | null>("/api/auth/get-session", bearer(sessionToken));
    expect(me.body?.user.id).toBe(userId);
    expect((await new Client(server.url).get("/api/whoami", bearer(sessionToken))).status).toBe(200);

    const polled: Res<{ error?: string }> = await new Client(server.url).post("/api/auth/device/token", {
      grant_type: GRANT_TYPE,
      device_code: deviceCode,
      client_id: CLIENT_ID,
    });
    expect(polled.body.error).toBe("authorization_pending");
    const browser = new Client(server.url);
    expect((await browser.get("/api/auth/device?user_code=BCDF-GHJK", bearer(sessionToken))).status).toBe(200);

    const reset = await new Client(server.url).post("/api/auth/reset-password", { token: resetToken, newPassword: "a-new-password-1" });
    expect(reset.status, reset.text).toBe(200);
  });
});
