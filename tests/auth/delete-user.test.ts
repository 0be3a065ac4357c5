// Account deletion, the three ways of the spec (at once with a password on a fresh session, through the
// link mailed to the user, by submitting the deletion token), with its fresh-session rule, its answers,
// its errors and its token constants. Each deletion removes the user, their sessions and their accounts.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import * as schema from "../../server/db/schema/index.js";
import { Client } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import {
  PASSWORD,
  accountRows,
  ageSessions,
  mailedLink,
  pathOf,
  secondsBetween,
  sessionRows,
  signIn,
  signedUp,
  userRow,
  verificationRow,
  type Person,
} from "./account-fixtures.js";

interface ApiError {
  message: string;
  code: string;
}
interface DeleteAnswer {
  success: boolean;
  message: string;
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

const DELETE_SUBJECT = /^Confirm the deletion of your account$/;
const STALE = 2 * 24 * 3600; // beyond better-auth's default freshAge of one day
const SESSION_EXPIRED = { message: "Session expired. Re-authenticate to perform this action.", code: "SESSION_EXPIRED" };
const INVALID_TOKEN = { message: "Invalid token", code: "INVALID_TOKEN" };

async function expectGone(person: Person) {
  expect(await userRow(server, person.id)).toBeUndefined();
  expect(await sessionRows(server, person.id)).toHaveLength(0);
  expect(await accountRows(server, person.id)).toHaveLength(0);
  expect((await person.client.get("/api/auth/get-session")).body).toBeNull();
}

async function expectKept(person: Person) {
  expect(await userRow(server, person.id)).toBeDefined();
  expect(await accountRows(server, person.id)).toHaveLength(1);
}

/** Deletion tokens stored for the user (verification rows whose value is the user id). */
async function deletionRows(userId: string) {
  return server.database.db
    .select()
    .from(schema.verification)
    .where(eq(schema.verification.value, userId));
}

/** Asks for the deletion link and returns its token, as read from the mail the SMTP peer received. */
async function mailedToken(person: Person, body: Record<string, string> = {}) {
  const res = await person.client.post<DeleteAnswer>("/api/auth/delete-user", body);
  expect(res.status, res.text).toBe(200);
  expect(res.body).toEqual({ success: true, message: "Verification email sent" });
  const link = await mailedLink(server, person.email, DELETE_SUBJECT);
  return { link, token: link.searchParams.get("token") ?? "" };
}

describe("at once, with the password on a fresh session", () => {
  it("deletes the user, every session and every account", async () => {
    const person = await signedUp(server, "delnow");
    const other = await signIn(server, person.email);
    expect(await sessionRows(server, person.id)).toHaveLength(2);
    const res = await person.client.post<DeleteAnswer>("/api/auth/delete-user", { password: PASSWORD });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: "User deleted" });
    expect(person.client.sessionToken).toBeUndefined();
    await expectGone(person);
    expect((await other.get("/api/auth/get-session")).body).toBeNull();
    expect(await deletionRows(person.id)).toHaveLength(0);
    await expect(server.mailbox.waitFor(person.email, DELETE_SUBJECT, 500)).rejects.toThrow(/no mail/);
  });

  it("refuses a wrong password and keeps everything", async () => {
    const person = await signedUp(server, "delwrong");
    const res = await person.client.post<ApiError>("/api/auth/delete-user", { password: "not-the-password" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Invalid password", code: "INVALID_PASSWORD" });
    await expectKept(person);
    expect(await deletionRows(person.id)).toHaveLength(0);
  });

  it("refuses a stale session with 400 Session expired, password or not", async () => {
    const person = await signedUp(server, "delstale");
    await ageSessions(server, person.id, STALE);
    for (const body of [{ password: PASSWORD }, {}]) {
      const res = await person.client.post<ApiError>("/api/auth/delete-user", body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(SESSION_EXPIRED);
    }
    await expectKept(person);
    await expect(server.mailbox.waitFor(person.email, DELETE_SUBJECT, 500)).rejects.toThrow(/no mail/);

    // signing in again makes a fresh session that may delete
    const fresh = await signIn(server, person.email);
    const res = await fresh.post<DeleteAnswer>("/api/auth/delete-user", { password: PASSWORD });
    expect(res.body).toEqual({ success: true, message: "User deleted" });
    await expectGone(person);
  });

  it("needs a session", async () => {
    const res = await new Client(server.url).post<ApiError>("/api/auth/delete-user", { password: PASSWORD });
    expect(res.status).toBe(401);
  });
});

describe("through the link mailed to the user", () => {
  it("mails a 24-hour link with a 32-character token; following it deletes and redirects to the callback", async () => {
    const person = await signedUp(server, "dellink");
    const { link, token } = await mailedToken(person, { callbackURL: "/goodbye" });
    expect(token).toMatch(/^[0-9a-z]{32}$/);
    expect(`${link.origin}${link.pathname}`).toBe(`${server.url}/api/auth/delete-user/callback`);
    expect(link.searchParams.get("callbackURL")).toBe("/goodbye");
    const row = await verificationRow(server, `delete-account-${token}`);
    expect(row?.value).toBe(person.id);
    expect(secondsBetween(row?.createdAt ?? new Date(0), row?.expiresAt ?? new Date(0))).toBe(86400);
    await expectKept(person);

    const res = await person.client.get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/goodbye");
    await expectGone(person);
    expect(await verificationRow(server, `delete-account-${token}`)).toBeUndefined();
  });

  it("opened where nobody is signed in, redirects to the callback (or the error page) with error=unauthorized; the link stays good", async () => {
    const person = await signedUp(server, "dellinkout");
    const { link } = await mailedToken(person, { callbackURL: "/goodbye" });
    const elsewhere = await new Client(server.url).get(pathOf(link));
    expect(elsewhere.status).toBe(302);
    expect(elsewhere.headers.get("location")).toBe("/goodbye?error=unauthorized");
    const bare = new URL(link);
    bare.searchParams.delete("callbackURL");
    const noCallback = await new Client(server.url).get(pathOf(bare));
    expect(noCallback.status).toBe(302);
    expect(noCallback.headers.get("location")).toBe(`${server.url}/api/auth/error?error=unauthorized`);
    const page = await new Client(server.url).get(noCallback.headers.get("location") ?? "");
    expect(page.text).toContain("You need to be signed in as the right account to use this link.");
    await expectKept(person);
    // signed in, the same link deletes
    const res = await person.client.get(pathOf(link));
    expect(res.headers.get("location")).toBe("/goodbye");
    await expectGone(person);
  });

  it("stops the deleted user's token at once on the /api routes too", async () => {
    const person = await signedUp(server, "delbearer");
    const bearer = { authorization: `Bearer ${person.client.sessionToken}` };
    const reader = new Client(server.url);
    const { link } = await mailedToken(person);
    expect((await reader.get("/api/whoami", bearer)).status).toBe(200);
    expect((await person.client.get(pathOf(link))).status).toBe(302);
    expect((await reader.get("/api/whoami", bearer)).status).toBe(401);
  });

  it("sends the link back to / when no callback is given", async () => {
    const person = await signedUp(server, "deldefault");
    const { link } = await mailedToken(person);
    expect(link.searchParams.get("callbackURL")).toBe("/");
    const res = await person.client.get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
    await expectGone(person);
  });

  it("answers 404 Invalid token for a bad, expired or someone else's token", async () => {
    const person = await signedUp(server, "delbad");
    const bad = await person.client.get<ApiError>("/api/auth/delete-user/callback?token=0123456789abcdefghijklmnopqrstuv&callbackURL=%2F");
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual(INVALID_TOKEN);

    const { link, token } = await mailedToken(person);
    await server.database.db
      .update(schema.verification)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(schema.verification.identifier, hashStoredToken(`delete-account-${token}`)));
    const expired = await person.client.get<ApiError>(pathOf(link));
    expect(expired.status).toBe(404);
    expect(expired.body).toEqual(INVALID_TOKEN);

    const victim = await signedUp(server, "delvictim");
    const { link: victimLink } = await mailedToken(victim);
    const foreign = await person.client.get<ApiError>(pathOf(victimLink));
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(INVALID_TOKEN);
    await expectKept(person);
    await expectKept(victim);
  });
});

describe("by submitting the deletion token", () => {
  it("deletes with the token from the mail", async () => {
    const person = await signedUp(server, "deltoken");
    const { token } = await mailedToken(person);
    const res = await person.client.post<DeleteAnswer>("/api/auth/delete-user", { token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: "User deleted" });
    await expectGone(person);
    const again = await person.client.post("/api/auth/delete-user", { token });
    expect(again.status).toBe(401);
  });

  it("accepts the emailed token on a session that has gone stale since", async () => {
    const person = await signedUp(server, "deltokenstale");
    const { token } = await mailedToken(person);
    await ageSessions(server, person.id, STALE);
    const res = await person.client.post<DeleteAnswer>("/api/auth/delete-user", { token });
    expect(res.body).toEqual({ success: true, message: "User deleted" });
    await expectGone(person);
  });

  it("refuses a token that is not the user's with 404 Invalid token", async () => {
    const person = await signedUp(server, "deltokenbad");
    const res = await person.client.post<ApiError>("/api/auth/delete-user", { token: "0123456789abcdefghijklmnopqrstuv" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(INVALID_TOKEN);
    await expectKept(person);
  });
});
