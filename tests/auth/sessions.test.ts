// Sessions (the product spec's session states, rules, calls and limits): reading, listing and
// revoking sessions, rememberMe, refresh after the update-age window, expiry and the fresh-session rule.
// Time moves by rewriting the session row, never by sleeping.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { session as sessionTable, user as userTable } from "../../server/db/schema/auth.js";
import { Client, uniqueEmail, type Res } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct-horse-battery";
const DAY = 86_400_000;
// better-auth 1.7.25 defaults, which till keeps: a session lives 7 days and is refreshed once a day
const SESSION_SECONDS = 7 * 86_400;

interface SessionBody {
  session: { id: string; token: string; userId: string; expiresAt: string; createdAt: string; updatedAt: string };
  user: { id: string; email: string };
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

async function signedUp(): Promise<{ client: Client; email: string; userId: string }> {
  const client = new Client(server.url);
  const email = uniqueEmail("session");
  const { user } = await client.signUp(email, PASSWORD);
  return { client, email, userId: user.id };
}

async function signedIn(email: string, rememberMe?: boolean): Promise<{ client: Client; res: Res }> {
  const client = new Client(server.url);
  const body = rememberMe === undefined ? { email, password: PASSWORD } : { email, password: PASSWORD, rememberMe };
  const res = await client.post("/api/auth/sign-in/email", body);
  expect(res.status).toBe(200);
  return { client, res };
}

function sessionCookie(res: Res): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="));
}

/** The stored row of a session: the token is kept as its hash. */
async function row(token: string) {
  const [found] = await server.database.db.select().from(sessionTable).where(eq(sessionTable.token, hashStoredToken(token)));
  return found;
}

/** Moves a session back in time: it was created, last refreshed and will expire at the given instants. */
async function moveClock(token: string, at: { createdAt?: Date; updatedAt?: Date; expiresAt?: Date }) {
  await server.database.db.update(sessionTable).set(at).where(eq(sessionTable.token, hashStoredToken(token)));
}

async function currentSession(client: Client, query = ""): Promise<Res<SessionBody | null>> {
  const res = await client.get<SessionBody | null>(`/api/auth/get-session${query}`);
  expect(res.status).toBe(200);
  return res;
}

describe("GET /get-session", () => {
  it("answers null when signed out", async () => {
    const res = await new Client(server.url).get("/api/auth/get-session");
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
    expect(res.text).toBe("null");
  });

  it("answers the session and the user when signed in, with the caching headers off", async () => {
    const { client, email, userId } = await signedUp();
    const res = await currentSession(client);
    expect(res.body?.user).toMatchObject({ id: userId, email });
    expect(res.body?.session).toMatchObject({ userId, token: client.sessionToken });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("accepts the disableCookieCache and disableRefresh query parameters", async () => {
    const { client, userId } = await signedUp();
    const res = await currentSession(client, "?disableCookieCache=true&disableRefresh=true");
    expect(res.body?.user.id).toBe(userId);
  });

  it("answers null for a token that is not a session", async () => {
    const client = new Client(server.url);
    client.cookies.set("better-auth.session_token", "not-a-session.not-a-signature");
    expect((await currentSession(client)).body).toBeNull();
  });
});

describe("rememberMe", () => {
  it("is true by default: the session cookie carries a Max-Age of the session lifetime", async () => {
    const { email } = await signedUp();
    const { res } = await signedIn(email);
    const cookie = sessionCookie(res);
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(new RegExp(`Max-Age=${SESSION_SECONDS}(;|$)`));
    expect(res.headers.getSetCookie().some((c) => c.startsWith("better-auth.dont_remember="))).toBe(false);
  });

  it("false gives a browser-session cookie (no Max-Age, no Expires) and a session that is never refreshed", async () => {
    const { email } = await signedUp();
    const { client, res } = await signedIn(email, false);
    const cookie = sessionCookie(res);
    expect(cookie).toBeDefined();
    expect(cookie).not.toMatch(/Max-Age/i);
    expect(cookie).not.toMatch(/Expires/i);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("better-auth.dont_remember="))).toBe(true);

    // well past the update-age window: a remembered session would be refreshed now
    const token = client.sessionToken!;
    const expiresAt = new Date(Date.now() + 3 * 60_000);
    await moveClock(token, { createdAt: new Date(Date.now() - 3 * DAY), updatedAt: new Date(Date.now() - 3 * DAY), expiresAt });
    const read = await currentSession(client);
    expect(read.body?.session.token).toBe(token);
    expect(new Date(read.body!.session.expiresAt).getTime()).toBe(expiresAt.getTime());
    expect((await row(token))?.expiresAt.getTime()).toBe(expiresAt.getTime());
    expect(sessionCookie(read)).toBeUndefined();
  });
});

describe("refresh after the update-age window", () => {
  it("does not touch a session used within the window", async () => {
    const { client } = await signedUp();
    const token = client.sessionToken!;
    const before = (await row(token))!.expiresAt.getTime();
    const read = await currentSession(client);
    expect(new Date(read.body!.session.expiresAt).getTime()).toBe(before);
    expect((await row(token))!.expiresAt.getTime()).toBe(before);
    expect(sessionCookie(read)).toBeUndefined();
  });

  it("extends expiresAt (and re-issues the cookie) when the session is used after the window", async () => {
    const { client } = await signedUp();
    const token = client.sessionToken!;
    // as if issued two days ago: 5 of its 7 days left, last refreshed two days ago
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    const staleExpiry = new Date(Date.now() + 5 * DAY);
    await moveClock(token, { createdAt: twoDaysAgo, updatedAt: twoDaysAgo, expiresAt: staleExpiry });

    const startedAt = Date.now();
    const read = await currentSession(client);
    const extended = new Date(read.body!.session.expiresAt).getTime();
    expect(read.body!.session.token).toBe(token);
    expect(extended).toBeGreaterThanOrEqual(startedAt + SESSION_SECONDS * 1000 - 1000);
    expect(extended).toBeGreaterThan(staleExpiry.getTime() + DAY);
    const stored = (await row(token))!;
    expect(stored.expiresAt.getTime()).toBe(extended);
    expect(stored.updatedAt.getTime()).toBeGreaterThanOrEqual(startedAt - 1000);
    expect(sessionCookie(read)).toMatch(new RegExp(`Max-Age=${SESSION_SECONDS}(;|$)`));
  });

  it("does not refresh when the caller passes disableRefresh", async () => {
    const { client } = await signedUp();
    const token = client.sessionToken!;
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    const staleExpiry = new Date(Date.now() + 5 * DAY);
    await moveClock(token, { createdAt: twoDaysAgo, updatedAt: twoDaysAgo, expiresAt: staleExpiry });
    const read = await currentSession(client, "?disableRefresh=true");
    expect(new Date(read.body!.session.expiresAt).getTime()).toBe(staleExpiry.getTime());
    expect((await row(token))!.expiresAt.getTime()).toBe(staleExpiry.getTime());
  });
});

describe("expiry", () => {
  it("deletes an expired session when it is next read, and clears the cookie", async () => {
    const { client, userId } = await signedUp();
    const token = client.sessionToken!;
    await moveClock(token, { expiresAt: new Date(Date.now() - 60_000) });
    expect(await row(token)).toBeDefined();

    const read = await currentSession(client);
    expect(read.body).toBeNull();
    expect(sessionCookie(read)).toMatch(/Max-Age=0/);
    expect(await row(token)).toBeUndefined();
    // the user is untouched; only the session went
    const [u] = await server.database.db.select().from(userTable).where(eq(userTable.id, userId));
    expect(u?.id).toBe(userId);
  });

  it("treats an expired session as signed out on session-bound endpoints", async () => {
    const { client } = await signedUp();
    await moveClock(client.sessionToken!, { expiresAt: new Date(Date.now() - 60_000) });
    const res = await client.get("/api/auth/list-sessions");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unauthorized", code: "UNAUTHORIZED" });
  });
});

describe("GET /list-sessions", () => {
  it("lists the user's active sessions only", async () => {
    const { client, email, userId } = await signedUp();
    const second = await signedIn(email);
    const other = await signedUp();
    const res = await client.get<Array<{ token: string; userId: string; expiresAt: string }>>("/api/auth/list-sessions");
    expect(res.status).toBe(200);
    // each session's token is its handle, the stored hash: no credential, but revoke-session takes it
    const tokens = res.body.map((s) => s.token).sort();
    expect(tokens).toEqual([hashStoredToken(client.sessionToken!), hashStoredToken(second.client.sessionToken!)].sort());
    expect(res.body.every((s) => s.userId === userId)).toBe(true);
    expect(tokens).not.toContain(hashStoredToken(other.client.sessionToken!));

    // an expired one is not listed
    await moveClock(second.client.sessionToken!, { expiresAt: new Date(Date.now() - 60_000) });
    const after = await client.get<Array<{ token: string }>>("/api/auth/list-sessions");
    expect(after.body.map((s) => s.token)).toEqual([hashStoredToken(client.sessionToken!)]);
  });

  it("requires sign-in", async () => {
    const res = await new Client(server.url).get("/api/auth/list-sessions");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unauthorized", code: "UNAUTHORIZED" });
  });
});

describe("revoking sessions", () => {
  it("POST /revoke-session {token} ends one of the user's own sessions", async () => {
    const { client, email } = await signedUp();
    const second = await signedIn(email);
    const token = second.client.sessionToken!;
    const res = await client.post("/api/auth/revoke-session", { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(await row(token)).toBeUndefined();
    expect((await currentSession(second.client)).body).toBeNull();
    // the caller's own session is untouched
    expect((await currentSession(client)).body?.session.token).toBe(client.sessionToken);
  });

  it("POST /revoke-session on the current token signs the caller out", async () => {
    const { client } = await signedUp();
    const token = client.sessionToken!;
    const res = await client.post("/api/auth/revoke-session", { token });
    expect(res.status).toBe(200);
    expect(sessionCookie(res)).toMatch(/Max-Age=0/);
    expect(await row(token)).toBeUndefined();
  });

  it("a user cannot revoke another user's session: it stays alive", async () => {
    const attacker = await signedUp();
    const victim = await signedUp();
    const token = victim.client.sessionToken!;
    const res = await attacker.client.post("/api/auth/revoke-session", { token });
    // better-auth answers the same way whether or not the token was the caller's, so it leaks nothing
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(await row(token)).toBeDefined();
    expect((await currentSession(victim.client)).body?.user.id).toBe(victim.userId);
  });

  it("POST /revoke-session requires sign-in and a token", async () => {
    const victim = await signedUp();
    const anonymous = new Client(server.url);
    const res = await anonymous.post("/api/auth/revoke-session", { token: victim.client.sessionToken });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unauthorized", code: "UNAUTHORIZED" });
    expect(await row(victim.client.sessionToken!)).toBeDefined();

    const missing = await victim.client.post("/api/auth/revoke-session", {});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: "VALIDATION_ERROR", message: "Invalid body parameters" });
  });

  it("POST /revoke-sessions ends every session of the user, and only theirs", async () => {
    const { client, email, userId } = await signedUp();
    const second = await signedIn(email);
    const bystander = await signedUp();
    const res = await client.post("/api/auth/revoke-sessions");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(sessionCookie(res)).toMatch(/Max-Age=0/);
    const left = await server.database.db.select().from(sessionTable).where(eq(sessionTable.userId, userId));
    expect(left).toEqual([]);
    expect((await currentSession(second.client)).body).toBeNull();
    expect((await currentSession(bystander.client)).body?.user.id).toBe(bystander.userId);
  });

  it("POST /revoke-other-sessions keeps only the current session", async () => {
    const { client, email, userId } = await signedUp();
    const second = await signedIn(email);
    const third = await signedIn(email);
    const res = await client.post("/api/auth/revoke-other-sessions");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true });
    const left = await server.database.db.select().from(sessionTable).where(eq(sessionTable.userId, userId));
    expect(left.map((s) => s.token)).toEqual([hashStoredToken(client.sessionToken!)]);
    expect((await currentSession(second.client)).body).toBeNull();
    expect((await currentSession(third.client)).body).toBeNull();
    expect((await currentSession(client)).body?.user.id).toBe(userId);
  });

  it("sign-out ends the session", async () => {
    const { client } = await signedUp();
    const token = client.sessionToken!;
    const res = await client.post("/api/auth/sign-out");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await row(token)).toBeUndefined();
    expect((await currentSession(client)).body).toBeNull();
  });
});

describe("fresh sessions", () => {
  // better-auth 1.7.25 calls a session fresh for a day after it was created (session.freshAge, 86400 s)
  const stale = () => new Date(Date.now() - DAY - 60_000);

  it('listing sessions needs a fresh session: 400 "Session is not fresh"', async () => {
    const { client } = await signedUp();
    await moveClock(client.sessionToken!, { createdAt: stale() });
    const res = await client.get("/api/auth/list-sessions");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Session is not fresh", code: "SESSION_NOT_FRESH" });
    // the session itself still works for everything that does not need freshness
    expect((await currentSession(client, "?disableRefresh=true")).body?.session.token).toBe(client.sessionToken);
  });

  it('unlinking an account needs a fresh session: 400 "Session is not fresh"', async () => {
    const { client } = await signedUp();
    await moveClock(client.sessionToken!, { createdAt: stale() });
    const res = await client.post("/api/auth/unlink-account", { accountId: "any" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Session is not fresh", code: "SESSION_NOT_FRESH" });
  });

  it("a new sign-in makes a fresh session again", async () => {
    const { client, email } = await signedUp();
    await moveClock(client.sessionToken!, { createdAt: stale() });
    const again = await signedIn(email);
    const res = await again.client.get("/api/auth/list-sessions");
    expect(res.status).toBe(200);
  });

  it('deleting the account from a stale session is 400 "Session expired. Re-authenticate to perform this action."', async () => {
    // better-auth 1.7.25 uses this wording (not "Session is not fresh") for delete-user; till applies it
    // before the emailed-link branch too (server/auth/account-rules.ts), so a stale session deletes nothing
    const { client, userId } = await signedUp();
    await moveClock(client.sessionToken!, { createdAt: stale() });
    for (const body of [{}, { password: PASSWORD }]) {
      const res = await client.post("/api/auth/delete-user", body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: "Session expired. Re-authenticate to perform this action.",
        code: "SESSION_EXPIRED",
      });
    }
    const [u] = await server.database.db.select().from(userTable).where(eq(userTable.id, userId));
    expect(u?.id).toBe(userId);
  });
});
