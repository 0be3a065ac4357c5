// Shared set-up for the email + password and account-deletion tests: signed-up users, rows read and
// clocks moved through the server's own database handle, links taken from mail the SMTP peer received, and
// the email + password files' server (accountFixture).
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, expect, vi } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import * as schema from "../../server/db/schema/index.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";

export const PASSWORD = "correct-horse-battery";

export interface Person {
  client: Client;
  id: string;
  email: string;
}

export async function signedUp(server: TestServer, tag: string, password = PASSWORD): Promise<Person> {
  const client = new Client(server.url);
  const { user } = await client.signUp(uniqueEmail(tag), password, tag);
  return { client, id: user.id, email: user.email };
}

/** Another browser of the same person, signed in with email and password. */
export async function signIn(server: TestServer, email: string, password = PASSWORD): Promise<Client> {
  const client = new Client(server.url);
  const res = await client.post("/api/auth/sign-in/email", { email, password });
  expect(res.status, res.text).toBe(200);
  return client;
}

/** The one link of the newest mail to `to` whose subject matches; the mail is taken off the peer. */
export async function mailedLink(server: TestServer, to: string, subject: RegExp): Promise<URL> {
  const mail = await server.mailbox.waitFor(to, subject);
  expect(mail.links).toHaveLength(1);
  return new URL(mail.links[0] ?? "");
}

/** path + query of a link, for the cookie-keeping client. */
export const pathOf = (link: URL) => link.pathname + link.search;

/** The payload of a JWT, not verified (the server verifies; the test reads lifetimes and claims). */
export function jwtPayload(token: string): Record<string, unknown> {
  const part = token.split(".")[1] ?? "";
  return JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;
}

export async function userRow(server: TestServer, id: string) {
  const rows = await server.database.db.select().from(schema.user).where(eq(schema.user.id, id));
  return rows[0];
}

export async function sessionRows(server: TestServer, userId: string) {
  return server.database.db.select().from(schema.session).where(eq(schema.session.userId, userId));
}

export async function accountRows(server: TestServer, userId: string) {
  return server.database.db.select().from(schema.account).where(eq(schema.account.userId, userId));
}

/** The stored verification row of an identifier (kept as its hash). */
export async function verificationRow(server: TestServer, identifier: string) {
  const rows = await server.database.db
    .select()
    .from(schema.verification)
    .where(eq(schema.verification.identifier, hashStoredToken(identifier)));
  return rows[0];
}

/** Moves the creation of every session of the user back, so they are no longer fresh (freshAge is 1 day). */
export async function ageSessions(server: TestServer, userId: string, seconds: number): Promise<void> {
  await server.database.db
    .update(schema.session)
    .set({ createdAt: new Date(Date.now() - seconds * 1000) })
    .where(eq(schema.session.userId, userId));
}

/** Seconds between two instants, rounded (row timestamps are written a few ms apart). */
export const secondsBetween = (from: Date, to: Date) => Math.round((to.getTime() - from.getTime()) / 1000);

export interface ApiError {
  message: string;
  code: string;
}
export interface SessionBody {
  session: { id: string; token: string; userId: string };
  user: { id: string; email: string; name: string; image: string | null; emailVerified: boolean };
}

export const VERIFY_SUBJECT = /^Verify your email address$/;
export const RESET_SUBJECT = /^Reset your password$/;
export const CHANGE_SUBJECT = /^Confirm your new email address$/;

export async function currentUser(client: Client) {
  const res = await client.get<SessionBody | null>("/api/auth/get-session");
  expect(res.status).toBe(200);
  return res.body?.user ?? null;
}

/**
 * The server of an email + password test file (email-password*.test.ts), started in beforeAll and closed in
 * afterAll, with real timers back after each test; `server` is there once beforeAll has run.
 */
export function accountFixture(): { server: TestServer; verifiedUser(tag: string): Promise<Person> } {
  const fx = {
    /** Signs up and verifies the address by following the link of the sign-up mail. */
    verifiedUser: async (tag: string) => {
      const person = await signedUp(fx.server, tag);
      const link = await mailedLink(fx.server, person.email, VERIFY_SUBJECT);
      const res = await person.client.get(pathOf(link));
      expect(res.status).toBe(302);
      expect((await userRow(fx.server, person.id))?.emailVerified).toBe(true);
      return person;
    },
  } as { server: TestServer; verifiedUser(tag: string): Promise<Person> };
  beforeAll(async () => {
    fx.server = await startServer();
  });
  afterAll(async () => fx.server?.close());
  afterEach(() => {
    vi.useRealTimers();
  });
  return fx;
}
