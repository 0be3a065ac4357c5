// Email + password accounts changed (the spec's states, calls, errors and limits): password reset (with and without
// revoking the sessions), change password, set-password and change email, over HTTP against the real server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import * as schema from "../../server/db/schema/index.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import {
  accountFixture, type ApiError, VERIFY_SUBJECT, RESET_SUBJECT, CHANGE_SUBJECT, currentUser, PASSWORD, jwtPayload,
  mailedLink, pathOf, secondsBetween, sessionRows, signIn, signedUp, userRow, verificationRow,
} from "./account-fixtures.js";

const fx = accountFixture();

describe("password reset", () => {
  const RESET_ANSWER = { status: true, message: "If this email exists in our system, check your email for the reset link" };

  async function requestReset(email: string, path = "/api/auth/request-password-reset", redirectTo = "/reset") {
    const res = await new Client(fx.server.url).post(path, { email, redirectTo });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(RESET_ANSWER);
    const link = await mailedLink(fx.server, email, RESET_SUBJECT);
    const token = link.pathname.split("/").pop() ?? "";
    return { link, token };
  }

  it("mails a link with a 24-character token that lives one hour", async () => {
    const { email } = await signedUp(fx.server, "reset");
    const { link, token } = await requestReset(email.toUpperCase());
    expect(token).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(`${link.origin}${link.pathname}`).toBe(`${fx.server.url}/api/auth/reset-password/${token}`);
    expect(link.searchParams.get("callbackURL")).toBe("/reset");
    const row = await verificationRow(fx.server, `reset-password:${token}`);
    expect(row).toBeDefined();
    expect(secondsBetween(row?.createdAt ?? new Date(0), row?.expiresAt ?? new Date(0))).toBe(3600);
  });

  it("answers the same for an unknown email and sends nothing", async () => {
    const email = uniqueEmail("unknown");
    const res = await new Client(fx.server.url).post("/api/auth/request-password-reset", { email });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RESET_ANSWER);
    await expect(fx.server.mailbox.waitFor(email, RESET_SUBJECT, 700)).rejects.toThrow(/no mail/);
  });

  it("offers POST /forget-password as the same call", async () => {
    const { email } = await signedUp(fx.server, "forget");
    const { token } = await requestReset(email, "/api/auth/forget-password");
    expect(token).toHaveLength(24);
    expect(await verificationRow(fx.server, `reset-password:${token}`)).toBeDefined();
  });

  it("sends a request without redirectTo to the web app's /reset-password page (both routes, and links mailed without one)", async () => {
    const c = new Client(fx.server.url);
    for (const path of ["/api/auth/request-password-reset", "/api/auth/forget-password"]) {
      const { email } = await signedUp(fx.server, "resetdefault");
      for (const body of [{ email }, { email, redirectTo: "" }]) {
        const res = await c.post(path, body);
        expect(res.status, res.text).toBe(200);
        expect(res.body).toEqual(RESET_ANSWER);
        const link = await mailedLink(fx.server, email, RESET_SUBJECT);
        expect(link.searchParams.get("callbackURL")).toBe("/reset-password");
        const token = link.pathname.split("/").pop() ?? "";
        const followed = await c.get(pathOf(link));
        expect(followed.status).toBe(302);
        expect(followed.headers.get("location")).toBe(`${fx.server.url}/reset-password?token=${token}`);
        // a link mailed with an empty callbackURL (as better-auth does without redirectTo) lands there too
        const bare = await c.get(`/api/auth/reset-password/${token}?callbackURL=`);
        expect(bare.headers.get("location")).toBe(`${fx.server.url}/reset-password?token=${token}`);
      }
    }
    const unknown = await c.get("/api/auth/reset-password/not-a-real-token-000000?callbackURL=");
    expect(unknown.status).toBe(302);
    expect(unknown.headers.get("location")).toBe(`${fx.server.url}/reset-password?error=INVALID_TOKEN`);
    // a redirectTo of another origin is still refused, default or not
    const foreign = await c.post<ApiError>("/api/auth/request-password-reset", { email: uniqueEmail("x"), redirectTo: "https://evil.example/x" });
    expect(foreign.status).toBe(403);
  });

  it("redirects a valid link to the callback with ?token=, a missing or expired one with ?error=INVALID_TOKEN", async () => {
    const { email } = await signedUp(fx.server, "resetlink");
    const { link, token } = await requestReset(email);
    const c = new Client(fx.server.url);
    const ok = await c.get(pathOf(link));
    expect(ok.status).toBe(302);
    expect(ok.headers.get("location")).toBe(`${fx.server.url}/reset?token=${token}`);

    const missing = await c.get("/api/auth/reset-password/not-a-real-token-000000?callbackURL=%2Freset");
    expect(missing.status).toBe(302);
    expect(missing.headers.get("location")).toBe(`${fx.server.url}/reset?error=INVALID_TOKEN`);

    await fx.server.database.db
      .update(schema.verification)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(schema.verification.identifier, hashStoredToken(`reset-password:${token}`)));
    const expired = await c.get(pathOf(link));
    expect(expired.status).toBe(302);
    expect(expired.headers.get("location")).toBe(`${fx.server.url}/reset?error=INVALID_TOKEN`);
    const post = await c.post<ApiError>("/api/auth/reset-password", { newPassword: "a-new-password", token });
    expect(post.status).toBe(400);
    expect(post.body).toEqual({ message: "Invalid token", code: "INVALID_TOKEN" });
  });

  it("resets the password once: the token is deleted and the user's sessions are revoked", async () => {
    const person = await signedUp(fx.server, "resetonce");
    const second = await signIn(fx.server, person.email);
    const { token } = await requestReset(person.email);

    const tooShort = await new Client(fx.server.url).post<ApiError>("/api/auth/reset-password", { newPassword: "short", token });
    expect(tooShort.status).toBe(400);
    expect(tooShort.body.code).toBe("PASSWORD_TOO_SHORT");

    const c = new Client(fx.server.url);
    const res = await c.post("/api/auth/reset-password", { newPassword: "a-brand-new-password", token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(await verificationRow(fx.server, `reset-password:${token}`)).toBeUndefined();
    const again = await c.post<ApiError>("/api/auth/reset-password", { newPassword: "another-new-password", token });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: "Invalid token", code: "INVALID_TOKEN" });

    expect(await sessionRows(fx.server, person.id)).toHaveLength(0);
    expect(await currentUser(person.client)).toBeNull();
    expect(await currentUser(second)).toBeNull();
    const old = await c.post("/api/auth/sign-in/email", { email: person.email, password: PASSWORD });
    expect(old.status).toBe(401);
    await signIn(fx.server, person.email, "a-brand-new-password");
  });

  describe("with TILL_REVOKE_SESSIONS_ON_PASSWORD_RESET=false", () => {
    let keep: TestServer;
    beforeAll(async () => {
      keep = await startServer({ TILL_REVOKE_SESSIONS_ON_PASSWORD_RESET: "false" });
    });
    afterAll(async () => keep?.close());

    it("keeps the user's sessions", async () => {
      expect(keep.config.revokeSessionsOnPasswordReset).toBe(false);
      const person = await signedUp(keep, "keep");
      const res = await new Client(keep.url).post("/api/auth/request-password-reset", { email: person.email, redirectTo: "/reset" });
      expect(res.status).toBe(200);
      const token = (await mailedLink(keep, person.email, RESET_SUBJECT)).pathname.split("/").pop();
      const reset = await new Client(keep.url).post("/api/auth/reset-password", { newPassword: "a-brand-new-password", token });
      expect(reset.status, reset.text).toBe(200);
      expect(await sessionRows(keep, person.id)).toHaveLength(1);
      expect((await currentUser(person.client))?.id).toBe(person.id);
      await signIn(keep, person.email, "a-brand-new-password");
    });
  });
});

describe("change password and set password", () => {
  it("changes the password and, with revokeOtherSessions, issues a new token and ends the other sessions", async () => {
    const person = await signedUp(fx.server, "chpw");
    const other = await signIn(fx.server, person.email);
    const oldToken = person.client.sessionToken;
    const res = await person.client.post<{ token: string | null; user: { id: string; email: string } }>(
      "/api/auth/change-password",
      { currentPassword: PASSWORD, newPassword: "next-password-1", revokeOtherSessions: true },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.user).toMatchObject({ id: person.id, email: person.email });
    expect(res.body.token).toEqual(expect.any(String));
    expect(res.body.token).not.toBe(oldToken);
    expect(person.client.sessionToken).toBe(res.body.token);
    expect((await sessionRows(fx.server, person.id)).map((s) => s.token)).toEqual([hashStoredToken(res.body.token ?? "")]);
    expect((await currentUser(person.client))?.id).toBe(person.id);
    expect(await currentUser(other)).toBeNull();
    await signIn(fx.server, person.email, "next-password-1");
  });

  it("keeps the other sessions without revokeOtherSessions (token null) and checks the current password", async () => {
    const person = await signedUp(fx.server, "chpw2");
    const other = await signIn(fx.server, person.email);
    const wrong = await person.client.post<ApiError>("/api/auth/change-password", {
      currentPassword: "not-my-password",
      newPassword: "next-password-2",
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ message: "Invalid password", code: "INVALID_PASSWORD" });
    const res = await person.client.post<{ token: string | null }>("/api/auth/change-password", {
      currentPassword: PASSWORD,
      newPassword: "next-password-2",
    });
    expect(res.status).toBe(200);
    expect(res.body.token).toBeNull();
    expect(await currentUser(other)).not.toBeNull();
    expect(await sessionRows(fx.server, person.id)).toHaveLength(2);
  });

  it("does not offer set-password over HTTP", async () => {
    const person = await signedUp(fx.server, "setpw-http");
    const res = await person.client.post("/api/auth/set-password", { newPassword: "whatever-password" });
    expect(res.status).toBe(404);
  });

  it("sets a password server-side for a user without one, and refuses when there is one", async () => {
    const person = await signedUp(fx.server, "setpw");
    const headers = new Headers({ cookie: `better-auth.session_token=${person.client.cookies.get("better-auth.session_token")}` });
    await expect(fx.server.auth.api.setPassword({ headers, body: { newPassword: "a-second-password" } })).rejects.toMatchObject({
      statusCode: 400,
      body: { message: "user already has a password", code: "USER_ALREADY_HAS_A_PASSWORD" },
    });

    // a user who signed in another way has a credential-less account row
    await fx.server.database.db.update(schema.account).set({ password: null }).where(eq(schema.account.userId, person.id));
    const res = await fx.server.auth.api.setPassword({ headers, body: { newPassword: "a-second-password" } });
    expect(res).toEqual({ status: true });
    await signIn(fx.server, person.email, "a-second-password");
  });
});

describe("change email", () => {
  it("changes an unverified email at once and mails a verification link to the new address", async () => {
    const person = await signedUp(fx.server, "chunverified");
    const newEmail = uniqueEmail("Moved").replace("moved", "MoVeD");
    const res = await person.client.post("/api/auth/change-email", { newEmail, callbackURL: "/profile" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: true });
    expect((await userRow(fx.server, person.id))?.email).toBe(newEmail.toLowerCase());
    expect((await currentUser(person.client))?.email).toBe(newEmail.toLowerCase());

    const link = await mailedLink(fx.server, newEmail, VERIFY_SUBJECT);
    expect(link.searchParams.get("callbackURL")).toBe("/profile");
    const follow = await person.client.get(pathOf(link));
    expect(follow.status).toBe(302);
    expect(follow.headers.get("location")).toBe("/profile");
    expect(await userRow(fx.server, person.id)).toMatchObject({ email: newEmail.toLowerCase(), emailVerified: true });
  });

  it("mails a confirmation to the current address of a verified user; following it changes the email and resets emailVerified", async () => {
    const person = await fx.verifiedUser("chverified");
    const newEmail = uniqueEmail("confirmed");
    const res = await person.client.post("/api/auth/change-email", { newEmail, callbackURL: "/profile" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: true });
    expect(await userRow(fx.server, person.id)).toMatchObject({ email: person.email, emailVerified: true });

    const mail = await fx.server.mailbox.waitFor(person.email, CHANGE_SUBJECT);
    expect(mail.text).toContain(newEmail);
    const link = new URL(mail.links[0] ?? "");
    const claims = jwtPayload(link.searchParams.get("token") ?? "");
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

    const follow = await person.client.get(pathOf(link));
    expect(follow.status).toBe(302);
    expect(follow.headers.get("location")).toBe("/profile");
    expect(await userRow(fx.server, person.id)).toMatchObject({ email: newEmail, emailVerified: false });
    expect(await currentUser(person.client)).toMatchObject({ email: newEmail, emailVerified: false });

    // the new address is then verified the usual way
    const verify = await mailedLink(fx.server, newEmail, VERIFY_SUBJECT);
    expect((await person.client.get(pathOf(verify))).status).toBe(302);
    expect(await userRow(fx.server, person.id)).toMatchObject({ email: newEmail, emailVerified: true });
  });

  it("refuses the same email with 400 Email is the same", async () => {
    const person = await signedUp(fx.server, "same");
    const res = await person.client.post<ApiError>("/api/auth/change-email", { newEmail: person.email.toUpperCase() });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Email is the same");
  });

  it("does not move to an email another account holds, and says so to no one", async () => {
    const taken = await signedUp(fx.server, "taken");
    const unverified = await signedUp(fx.server, "wantstaken");
    const verified = await fx.verifiedUser("wantstaken2");
    for (const person of [unverified, verified]) {
      const res = await person.client.post("/api/auth/change-email", { newEmail: taken.email });
      expect(res.status).toBe(200);
      expect((await userRow(fx.server, person.id))?.email).toBe(person.email);
    }
    await expect(fx.server.mailbox.waitFor(verified.email, CHANGE_SUBJECT, 700)).rejects.toThrow(/no mail/);
    expect(fx.server.mailbox.messages.filter((m) => m.to.includes(taken.email))).toHaveLength(1); // its own sign-up mail
  });

  it("answers 400, not a crash, when the new address was taken between the request and the confirmation", async () => {
    const person = await fx.verifiedUser("race");
    const newEmail = uniqueEmail("raced");
    expect((await person.client.post("/api/auth/change-email", { newEmail })).status).toBe(200);
    const link = await mailedLink(fx.server, person.email, CHANGE_SUBJECT);
    await new Client(fx.server.url).signUp(newEmail);
    const res = await person.client.get<ApiError>(pathOf(link));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Couldn't update your email");
    expect(await userRow(fx.server, person.id)).toMatchObject({ email: person.email, emailVerified: true });
  });

  it("refuses a malformed new email with 400", async () => {
    const person = await signedUp(fx.server, "badnew");
    const res = await person.client.post<ApiError>("/api/auth/change-email", { newEmail: "nope" });
    expect(res.status).toBe(400);
  });
});
