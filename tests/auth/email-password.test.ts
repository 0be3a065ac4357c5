// Email + password accounts (the spec's auth routes, user/email/sessions, accounts, email and
// password calls, sign-in and account errors, token lifetimes): sign-up/in/out, email verification and update-user,
// over HTTP against the real server. Password reset, change password, set-password and change email:
// email-password-changes.test.ts.
import { describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import * as schema from "../../server/db/schema/index.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import {
  accountFixture, type ApiError, type SessionBody, VERIFY_SUBJECT, CHANGE_SUBJECT, currentUser, PASSWORD, accountRows,
  jwtPayload, mailedLink, pathOf, sessionRows, signedUp, userRow,
} from "./account-fixtures.js";

const fx = accountFixture();

describe("sign-up, sign-in and sign-out", () => {
  it("signs up, stores the email in lower case and signs in at once", async () => {
    const c = new Client(fx.server.url);
    const email = uniqueEmail("SignUp").replace("signup", "SiGnUp");
    const res = await c.post<{ token: string | null; user: SessionBody["user"] }>("/api/auth/sign-up/email", {
      name: "Ada",
      email,
      password: PASSWORD,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.user.email).toBe(email.toLowerCase());
    expect(res.body.user.emailVerified).toBe(false);
    expect(res.body.token).toEqual(expect.any(String));
    expect(c.sessionToken).toBe(res.body.token);

    const row = await userRow(fx.server, res.body.user.id);
    expect(row?.email).toBe(email.toLowerCase());
    expect(row?.emailVerified).toBe(false);
    const [account] = await accountRows(fx.server, res.body.user.id);
    expect(account?.providerId).toBe("credential");
    expect(account?.password).toEqual(expect.any(String));
    expect(account?.password).not.toContain(PASSWORD);
    expect((await sessionRows(fx.server, res.body.user.id)).map((s) => s.token)).toEqual([hashStoredToken(res.body.token ?? "")]);
    expect((await currentUser(c))?.id).toBe(res.body.user.id);
  });

  it("refuses a second account for the same email, whatever its case (422)", async () => {
    const { email } = await signedUp(fx.server, "dupe");
    const res = await new Client(fx.server.url).post<ApiError>("/api/auth/sign-up/email", {
      name: "Again",
      email: email.toUpperCase(),
      password: PASSWORD,
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^user already exists/i);
    expect(res.body).toEqual({ message: "User already exists. Use another email.", code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL" });
  });

  it("refuses a malformed email with 400 Invalid email", async () => {
    const c = new Client(fx.server.url);
    const up = await c.post<ApiError>("/api/auth/sign-up/email", { name: "X", email: "not-an-email", password: PASSWORD });
    expect(up.status).toBe(400);
    expect(up.body).toEqual({ message: "Invalid email", code: "INVALID_EMAIL" });
    const inn = await c.post<ApiError>("/api/auth/sign-in/email", { email: "not-an-email", password: PASSWORD });
    expect(inn.status).toBe(400);
    expect(inn.body).toEqual({ message: "Invalid email", code: "INVALID_EMAIL" });
  });

  it("keeps the password length between 8 and 128 characters", async () => {
    const c = new Client(fx.server.url);
    const short = await c.post<ApiError>("/api/auth/sign-up/email", { name: "X", email: uniqueEmail("short"), password: "1234567" });
    expect(short.status).toBe(400);
    expect(short.body.message.toLowerCase()).toBe("password too short");
    expect(short.body.code).toBe("PASSWORD_TOO_SHORT");
    const long = await c.post<ApiError>("/api/auth/sign-up/email", { name: "X", email: uniqueEmail("long"), password: "x".repeat(129) });
    expect(long.status).toBe(400);
    expect(long.body.message.toLowerCase()).toBe("password too long");
    expect(long.body.code).toBe("PASSWORD_TOO_LONG");
    const edge = await c.post("/api/auth/sign-up/email", { name: "X", email: uniqueEmail("edge"), password: "12345678" });
    expect(edge.status).toBe(200);
  });

  it("requires name, email and password to sign up (400, not a crash)", async () => {
    const c = new Client(fx.server.url);
    for (const body of [{ email: uniqueEmail("n"), password: PASSWORD }, { name: "X", password: PASSWORD }, { name: "X", email: uniqueEmail("p") }]) {
      const res = await c.post<ApiError>("/api/auth/sign-up/email", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("signs in with email and password, the email in any case", async () => {
    const { id, email } = await signedUp(fx.server, "signin");
    const c = new Client(fx.server.url);
    const res = await c.post<{ redirect: boolean; token: string; url: string | null; user: Record<string, unknown> }>("/api/auth/sign-in/email", {
      email: email.toUpperCase(),
      password: PASSWORD,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.redirect).toBe(false);
    // the spec's answer: redirect, token, url, user — url is null without a callbackURL, the callback with one
    expect(res.body).toHaveProperty("url", null);
    const withCallback = await new Client(fx.server.url).post<{ redirect: boolean; url: string }>("/api/auth/sign-in/email", {
      email,
      password: PASSWORD,
      callbackURL: "/dashboard",
    });
    expect(withCallback.body).toMatchObject({ redirect: true, url: "/dashboard" });
    expect(res.body.token).toBe(c.sessionToken);
    expect(Object.keys(res.body.user).sort()).toEqual(
      expect.arrayContaining(["createdAt", "email", "emailVerified", "id", "image", "name", "updatedAt"]),
    );
    expect(res.body.user).toMatchObject({ id, email, emailVerified: false });
    expect((await currentUser(c))?.id).toBe(id);
  });

  it("answers a wrong password or an unknown email with 401 Invalid email or password", async () => {
    const { email } = await signedUp(fx.server, "wrongpw");
    const c = new Client(fx.server.url);
    for (const body of [{ email, password: "wrong-password" }, { email: uniqueEmail("nobody"), password: PASSWORD }]) {
      const res = await c.post<ApiError>("/api/auth/sign-in/email", body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "Invalid email or password", code: "INVALID_EMAIL_OR_PASSWORD" });
    }
    expect(c.sessionToken).toBeUndefined();
  });

  it("signs out: the session row is deleted and the cookie no longer works", async () => {
    const { client, id } = await signedUp(fx.server, "signout");
    const token = client.sessionToken;
    const cookie = `better-auth.session_token=${client.cookies.get("better-auth.session_token")}`;
    const res = await client.post<{ success: boolean }>("/api/auth/sign-out");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await sessionRows(fx.server, id)).map((s) => s.token)).not.toContain(hashStoredToken(token ?? ""));
    expect(await currentUser(client)).toBeNull();
    const replay = await new Client(fx.server.url).get("/api/auth/get-session", { cookie });
    expect(replay.body).toBeNull();
  });
});

describe("email verification", () => {
  it("mails a one-hour link on sign-up; following it verifies the email and redirects to the callback", async () => {
    const c = new Client(fx.server.url);
    const email = uniqueEmail("verify");
    const signUp = await c.post<{ user: { id: string } }>("/api/auth/sign-up/email", {
      name: "V",
      email,
      password: PASSWORD,
      callbackURL: "/welcome",
    });
    expect(signUp.status).toBe(200);
    const link = await mailedLink(fx.server, email, VERIFY_SUBJECT);
    expect(`${link.origin}${link.pathname}`).toBe(`${fx.server.url}/api/auth/verify-email`);
    expect(link.searchParams.get("callbackURL")).toBe("/welcome");
    const token = link.searchParams.get("token") ?? "";
    const claims = jwtPayload(token);
    expect(claims).toMatchObject({ email, userId: signUp.body.user.id });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

    // opened in another browser: the link alone verifies and signs in
    const other = new Client(fx.server.url);
    const res = await other.get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/welcome");
    expect((await userRow(fx.server, signUp.body.user.id))?.emailVerified).toBe(true);
    expect((await currentUser(other))?.emailVerified).toBe(true);
  });

  it("answers with status and user when the link carries no callback", async () => {
    const { email, id } = await signedUp(fx.server, "nocallback");
    const link = await mailedLink(fx.server, email, VERIFY_SUBJECT);
    link.searchParams.delete("callbackURL");
    const res = await new Client(fx.server.url).get<{ status: boolean; user: Record<string, unknown> | null }>(pathOf(link));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
    // the user whose email the link verified (better-auth 1.7.25 answers user: null)
    expect(res.body.user).toMatchObject({ id, email, emailVerified: true, image: null });
    expect((await userRow(fx.server, id))?.emailVerified).toBe(true);
    // the link followed again: already verified, the same answer
    const again = await new Client(fx.server.url).get<{ status: boolean; user: Record<string, unknown> | null }>(pathOf(link));
    expect(again.body).toMatchObject({ status: true, user: { id, email, emailVerified: true } });
  });

  it("appends error=invalid_token to the callback for a forged token (400 without a callback)", async () => {
    const { email, id } = await signedUp(fx.server, "forged");
    const link = await mailedLink(fx.server, email, VERIFY_SUBJECT);
    const token = link.searchParams.get("token") ?? "";
    link.searchParams.set("token", `${token.slice(0, -4)}AAAA`);
    link.searchParams.set("callbackURL", "/verified?from=mail");
    const res = await new Client(fx.server.url).get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/verified?from=mail&error=invalid_token");
    link.searchParams.delete("callbackURL");
    const bare = await new Client(fx.server.url).get<ApiError>(pathOf(link));
    // the spec's error: 400 where there is no callback to redirect to
    expect(bare.status).toBe(400);
    expect(bare.body).toEqual({ message: "Invalid token", code: "INVALID_TOKEN" });
    expect((await userRow(fx.server, id))?.emailVerified).toBe(false);
  });

  it("appends error=token_expired once the hour is over", async () => {
    const { email, id } = await signedUp(fx.server, "expired");
    const link = await mailedLink(fx.server, email, VERIFY_SUBJECT);
    vi.useFakeTimers({ toFake: ["Date"] });
    let res: Awaited<ReturnType<Client["get"]>>;
    try {
      vi.setSystemTime(Date.now() + 3601 * 1000);
      res = await new Client(fx.server.url).get(pathOf(link));
    } finally {
      vi.useRealTimers();
    }
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/?error=token_expired");
    expect((await userRow(fx.server, id))?.emailVerified).toBe(false);
  });

  it("appends error=user_not_found when the account is gone", async () => {
    const { email, id } = await signedUp(fx.server, "gone");
    const link = await mailedLink(fx.server, email, VERIFY_SUBJECT);
    await fx.server.database.db.delete(schema.user).where(eq(schema.user.id, id));
    const res = await new Client(fx.server.url).get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/?error=user_not_found");
  });

  it("appends error=unauthorized when another user follows an email-change link", async () => {
    const owner = await fx.verifiedUser("owner");
    const intruder = await signedUp(fx.server, "intruder");
    const change = await owner.client.post("/api/auth/change-email", { newEmail: uniqueEmail("new"), callbackURL: "/settings" });
    expect(change.status).toBe(200);
    const link = await mailedLink(fx.server, owner.email, CHANGE_SUBJECT);
    const res = await intruder.client.get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/settings?error=unauthorized");
    expect((await userRow(fx.server, owner.id))?.email).toBe(owner.email);
  });

  it("sends a verification email only to the signed-in user's own, unverified email", async () => {
    const person = await signedUp(fx.server, "resend");
    await fx.server.mailbox.waitFor(person.email, VERIFY_SUBJECT);

    const other = await person.client.post<ApiError>("/api/auth/send-verification-email", { email: uniqueEmail("else") });
    expect(other.status).toBe(400);
    expect(other.body.message).toBe("You can only send a verification email to your own email");
    expect(other.body.code).toBe("YOU_CAN_ONLY_SEND_A_VERIFICATION_EMAIL_TO_YOUR_OWN_EMAIL");

    const own = await person.client.post<{ status: boolean }>("/api/auth/send-verification-email", {
      email: person.email.toUpperCase(),
      callbackURL: "/again",
    });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toEqual({ status: true });
    const link = await mailedLink(fx.server, person.email, VERIFY_SUBJECT);
    expect(link.searchParams.get("callbackURL")).toBe("/again");
    expect((await person.client.get(pathOf(link))).status).toBe(302);

    const verified = await person.client.post<ApiError>("/api/auth/send-verification-email", { email: person.email });
    expect(verified.status).toBe(400);
    expect(verified.body.message).toBe("You can only send a verification email to an unverified email");
    expect(verified.body.code).toBe("YOU_CAN_ONLY_SEND_A_VERIFICATION_EMAIL_TO_AN_UNVERIFIED_EMAIL");
  });
});

describe("update-user", () => {
  it("updates name and image", async () => {
    const person = await signedUp(fx.server, "update");
    const res = await person.client.post("/api/auth/update-user", { name: "New Name", image: "https://example.com/a.png" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(await currentUser(person.client)).toMatchObject({ name: "New Name", image: "https://example.com/a.png" });
    expect(await userRow(fx.server, person.id)).toMatchObject({ name: "New Name", image: "https://example.com/a.png" });
  });

  it("takes a string name and a string or null image, and refuses other values with 400", async () => {
    const person = await signedUp(fx.server, "shapes");
    for (const body of [{ name: null }, { name: 123 }, { name: { a: 1 } }, { image: ["x"] }, { image: 5 }]) {
      const res = await person.client.post<ApiError & { details: string }>("/api/auth/update-user", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ message: "Invalid body parameters", code: "VALIDATION_ERROR" });
      expect(res.body.details).toMatch(/^\[body\.(name|image)\] /);
    }
    expect(await userRow(fx.server, person.id)).toMatchObject({ name: "shapes", image: null });
    await person.client.post("/api/auth/update-user", { image: "https://example.com/b.png" });
    const cleared = await person.client.post("/api/auth/update-user", { image: null });
    expect(cleared.status).toBe(200);
    expect((await userRow(fx.server, person.id))?.image).toBeNull();
  });

  it("refuses the email with 400 Email can not be updated", async () => {
    const person = await signedUp(fx.server, "noemail");
    const res = await person.client.post<ApiError>("/api/auth/update-user", { email: uniqueEmail("other") });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Email can not be updated");
    expect((await userRow(fx.server, person.id))?.email).toBe(person.email);
  });

  it("refuses not-for-input fields with 400 {field} is not allowed to be set", async () => {
    const person = await signedUp(fx.server, "noinput");
    const role = await person.client.post<ApiError>("/api/auth/update-user", { role: "admin" });
    expect(role.status).toBe(400);
    expect(role.body.message).toBe("role is not allowed to be set");
    const anon = await person.client.post<ApiError>("/api/auth/update-user", { name: "Sneaky", isAnonymous: true });
    expect(anon.status).toBe(400);
    expect(anon.body.message).toBe("isAnonymous is not allowed to be set");
    expect(await userRow(fx.server, person.id)).toMatchObject({ role: "user", isAnonymous: false, name: "noinput" });
  });
});
