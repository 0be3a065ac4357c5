// Email + password accounts (spec §2 auth routes, §4 user/email/sessions, §5 Accounts, §7 email and
// password, §8 sign-in and account, §9 token lifetimes): sign-up/in/out, email verification, password
// reset, change password, set-password, change email and update-user, over HTTP against the real server.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import * as schema from "../../server/db/schema/index.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import {
  PASSWORD,
  accountRows,
  jwtPayload,
  mailedLink,
  pathOf,
  secondsBetween,
  sessionRows,
  signIn,
  signedUp,
  userRow,
  verificationRow,
} from "./account-fixtures.js";

interface ApiError {
  message: string;
  code: string;
}
interface SessionBody {
  session: { id: string; token: string; userId: string };
  user: { id: string; email: string; name: string; image: string | null; emailVerified: boolean };
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());
afterEach(() => {
  vi.useRealTimers();
});

const VERIFY_SUBJECT = /^Verify your email address$/;
const RESET_SUBJECT = /^Reset your password$/;
const CHANGE_SUBJECT = /^Confirm your new email address$/;

async function currentUser(client: Client) {
  const res = await client.get<SessionBody | null>("/api/auth/get-session");
  expect(res.status).toBe(200);
  return res.body?.user ?? null;
}

/** Signs up and verifies the address by following the link of the sign-up mail. */
async function verifiedUser(tag: string) {
  const person = await signedUp(server, tag);
  const link = await mailedLink(server, person.email, VERIFY_SUBJECT);
  const res = await person.client.get(pathOf(link));
  expect(res.status).toBe(302);
  expect((await userRow(server, person.id))?.emailVerified).toBe(true);
  return person;
}

describe("sign-up, sign-in and sign-out", () => {
  it("signs up, stores the email in lower case and signs in at once", async () => {
    const c = new Client(server.url);
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

    const row = await userRow(server, res.body.user.id);
    expect(row?.email).toBe(email.toLowerCase());
    expect(row?.emailVerified).toBe(false);
    const [account] = await accountRows(server, res.body.user.id);
    expect(account?.providerId).toBe("credential");
    expect(account?.password).toEqual(expect.any(String));
    expect(account?.password).not.toContain(PASSWORD);
    expect((await sessionRows(server, res.body.user.id)).map((s) => s.token)).toEqual([hashStoredToken(res.body.token ?? "")]);
    expect((await currentUser(c))?.id).toBe(res.body.user.id);
  });

  it("refuses a second account for the same email, whatever its case (422)", async () => {
    const { email } = await signedUp(server, "dupe");
    const res = await new Client(server.url).post<ApiError>("/api/auth/sign-up/email", {
      name: "Again",
      email: email.toUpperCase(),
      password: PASSWORD,
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^user already exists/i);
    expect(res.body).toEqual({ message: "User already exists. Use another email.", code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL" });
  });

  it("refuses a malformed email with 400 Invalid email", async () => {
    const c = new Client(server.url);
    const up = await c.post<ApiError>("/api/auth/sign-up/email", { name: "X", email: "not-an-email", password: PASSWORD });
    expect(up.status).toBe(400);
    expect(up.body).toEqual({ message: "Invalid email", code: "INVALID_EMAIL" });
    const inn = await c.post<ApiError>("/api/auth/sign-in/email", { email: "not-an-email", password: PASSWORD });
    expect(inn.status).toBe(400);
    expect(inn.body).toEqual({ message: "Invalid email", code: "INVALID_EMAIL" });
  });

  it("keeps the password length between 8 and 128 characters", async () => {
    const c = new Client(server.url);
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
    const c = new Client(server.url);
    for (const body of [{ email: uniqueEmail("n"), password: PASSWORD }, { name: "X", password: PASSWORD }, { name: "X", email: uniqueEmail("p") }]) {
      const res = await c.post<ApiError>("/api/auth/sign-up/email", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("signs in with email and password, the email in any case", async () => {
    const { id, email } = await signedUp(server, "signin");
    const c = new Client(server.url);
    const res = await c.post<{ redirect: boolean; token: string; user: Record<string, unknown> }>("/api/auth/sign-in/email", {
      email: email.toUpperCase(),
      password: PASSWORD,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.redirect).toBe(false);
    expect(res.body.token).toBe(c.sessionToken);
    expect(Object.keys(res.body.user).sort()).toEqual(
      expect.arrayContaining(["createdAt", "email", "emailVerified", "id", "image", "name", "updatedAt"]),
    );
    expect(res.body.user).toMatchObject({ id, email, emailVerified: false });
    expect((await currentUser(c))?.id).toBe(id);
  });

  it("answers a wrong password or an unknown email with 401 Invalid email or password", async () => {
    const { email } = await signedUp(server, "wrongpw");
    const c = new Client(server.url);
    for (const body of [{ email, password: "wrong-password" }, { email: uniqueEmail("nobody"), password: PASSWORD }]) {
      const res = await c.post<ApiError>("/api/auth/sign-in/email", body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "Invalid email or password", code: "INVALID_EMAIL_OR_PASSWORD" });
    }
    expect(c.sessionToken).toBeUndefined();
  });

  it("signs out: the session row is deleted and the cookie no longer works", async () => {
    const { client, id } = await signedUp(server, "signout");
    const token = client.sessionToken;
    const cookie = `better-auth.session_token=${client.cookies.get("better-auth.session_token")}`;
    const res = await client.post<{ success: boolean }>("/api/auth/sign-out");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await sessionRows(server, id)).map((s) => s.token)).not.toContain(hashStoredToken(token ?? ""));
    expect(await currentUser(client)).toBeNull();
    const replay = await new Client(server.url).get("/api/auth/get-session", { cookie });
    expect(replay.body).toBeNull();
  });
});

describe("email verification", () => {
  it("mails a one-hour link on sign-up; following it verifies the email and redirects to the callback", async () => {
    const c = new Client(server.url);
    const email = uniqueEmail("verify");
    const signUp = await c.post<{ user: { id: string } }>("/api/auth/sign-up/email", {
      name: "V",
      email,
      password: PASSWORD,
      callbackURL: "/welcome",
    });
    expect(signUp.status).toBe(200);
    const link = await mailedLink(server, email, VERIFY_SUBJECT);
    expect(`${link.origin}${link.pathname}`).toBe(`${server.url}/api/auth/verify-email`);
    expect(link.searchParams.get("callbackURL")).toBe("/welcome");
    const token = link.searchParams.get("token") ?? "";
    const claims = jwtPayload(token);
    expect(claims).toMatchObject({ email, userId: signUp.body.user.id });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

    // opened in another browser: the link alone verifies and signs in
    const other = new Client(server.url);
    const res = await other.get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/welcome");
    expect((await userRow(server, signUp.body.user.id))?.emailVerified).toBe(true);
    expect((await currentUser(other))?.emailVerified).toBe(true);
  });

  it("answers with status and user when the link carries no callback", async () => {
    const { email, id } = await signedUp(server, "nocallback");
    const link = await mailedLink(server, email, VERIFY_SUBJECT);
    link.searchParams.delete("callbackURL");
    const res = await new Client(server.url).get<{ status: boolean; user: unknown }>(pathOf(link));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
    expect(res.body).toHaveProperty("user");
    expect((await userRow(server, id))?.emailVerified).toBe(true);
  });

  it("appends error=invalid_token to the callback for a forged token (401 without a callback)", async () => {
    const { email, id } = await signedUp(server, "forged");
    const link = await mailedLink(server, email, VERIFY_SUBJECT);
    const token = link.searchParams.get("token") ?? "";
    link.searchParams.set("token", `${token.slice(0, -4)}AAAA`);
    link.searchParams.set("callbackURL", "/verified?from=mail");
    const res = await new Client(server.url).get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/verified?from=mail&error=invalid_token");
    link.searchParams.delete("callbackURL");
    const bare = await new Client(server.url).get<ApiError>(pathOf(link));
    expect(bare.status).toBe(401);
    expect(bare.body.message).toBe("Invalid token");
    expect((await userRow(server, id))?.emailVerified).toBe(false);
  });

  it("appends error=token_expired once the hour is over", async () => {
    const { email, id } = await signedUp(server, "expired");
    const link = await mailedLink(server, email, VERIFY_SUBJECT);
    vi.useFakeTimers({ toFake: ["Date"] });
    let res: Awaited<ReturnType<Client["get"]>>;
    try {
      vi.setSystemTime(Date.now() + 3601 * 1000);
      res = await new Client(server.url).get(pathOf(link));
    } finally {
      vi.useRealTimers();
    }
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/?error=token_expired");
    expect((await userRow(server, id))?.emailVerified).toBe(false);
  });

  it("appends error=user_not_found when the account is gone", async () => {
    const { email, id } = await signedUp(server, "gone");
    const link = await mailedLink(server, email, VERIFY_SUBJECT);
    await server.database.db.delete(schema.user).where(eq(schema.user.id, id));
    const res = await new Client(server.url).get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/?error=user_not_found");
  });

  it("appends error=unauthorized when another user follows an email-change link", async () => {
    const owner = await verifiedUser("owner");
    const intruder = await signedUp(server, "intruder");
    const change = await owner.client.post("/api/auth/change-email", { newEmail: uniqueEmail("new"), callbackURL: "/settings" });
    expect(change.status).toBe(200);
    const link = await mailedLink(server, owner.email, CHANGE_SUBJECT);
    const res = await intruder.client.get(pathOf(link));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/settings?error=unauthorized");
    expect((await userRow(server, owner.id))?.email).toBe(owner.email);
  });

  it("sends a verification email only to the signed-in user's own, unverified email", async () => {
    const person = await signedUp(server, "resend");
    await server.mailbox.waitFor(person.email, VERIFY_SUBJECT);

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
    const link = await mailedLink(server, person.email, VERIFY_SUBJECT);
    expect(link.searchParams.get("callbackURL")).toBe("/again");
    expect((await person.client.get(pathOf(link))).status).toBe(302);

    const verified = await person.client.post<ApiError>("/api/auth/send-verification-email", { email: person.email });
    expect(verified.status).toBe(400);
    expect(verified.body.message).toBe("You can only send a verification email to an unverified email");
    expect(verified.body.code).toBe("YOU_CAN_ONLY_SEND_A_VERIFICATION_EMAIL_TO_AN_UNVERIFIED_EMAIL");
  });
});

describe("password reset", () => {
  const RESET_ANSWER = { status: true, message: "If this email exists in our system, check your email for the reset link" };

  async function requestReset(email: string, path = "/api/auth/request-password-reset", redirectTo = "/reset") {
    const res = await new Client(server.url).post(path, { email, redirectTo });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(RESET_ANSWER);
    const link = await mailedLink(server, email, RESET_SUBJECT);
    const token = link.pathname.split("/").pop() ?? "";
    return { link, token };
  }

  it("mails a link with a 24-character token that lives one hour", async () => {
    const { email } = await signedUp(server, "reset");
    const { link, token } = await requestReset(email.toUpperCase());
    expect(token).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(`${link.origin}${link.pathname}`).toBe(`${server.url}/api/auth/reset-password/${token}`);
    expect(link.searchParams.get("callbackURL")).toBe("/reset");
    const row = await verificationRow(server, `reset-password:${token}`);
    expect(row).toBeDefined();
    expect(secondsBetween(row?.createdAt ?? new Date(0), row?.expiresAt ?? new Date(0))).toBe(3600);
  });

  it("answers the same for an unknown email and sends nothing", async () => {
    const email = uniqueEmail("unknown");
    const res = await new Client(server.url).post("/api/auth/request-password-reset", { email });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RESET_ANSWER);
    await expect(server.mailbox.waitFor(email, RESET_SUBJECT, 700)).rejects.toThrow(/no mail/);
  });

  it("offers POST /forget-password as the same call", async () => {
    const { email } = await signedUp(server, "forget");
    const { token } = await requestReset(email, "/api/auth/forget-password");
    expect(token).toHaveLength(24);
    expect(await verificationRow(server, `reset-password:${token}`)).toBeDefined();
  });

  it("sends a request without redirectTo to the web app's /reset-password page (both routes, and links mailed without one)", async () => {
    const c = new Client(server.url);
    for (const path of ["/api/auth/request-password-reset", "/api/auth/forget-password"]) {
      const { email } = await signedUp(server, "resetdefault");
      for (const body of [{ email }, { email, redirectTo: "" }]) {
        const res = await c.post(path, body);
        expect(res.status, res.text).toBe(200);
        expect(res.body).toEqual(RESET_ANSWER);
        const link = await mailedLink(server, email, RESET_SUBJECT);
        expect(link.searchParams.get("callbackURL")).toBe("/reset-password");
        const token = link.pathname.split("/").pop() ?? "";
        const followed = await c.get(pathOf(link));
        expect(followed.status).toBe(302);
        expect(followed.headers.get("location")).toBe(`${server.url}/reset-password?token=${token}`);
        // a link mailed with an empty callbackURL (as better-auth does without redirectTo) lands there too
        const bare = await c.get(`/api/auth/reset-password/${token}?callbackURL=`);
        expect(bare.headers.get("location")).toBe(`${server.url}/reset-password?token=${token}`);
      }
    }
    const unknown = await c.get("/api/auth/reset-password/not-a-real-token-000000?callbackURL=");
    expect(unknown.status).toBe(302);
    expect(unknown.headers.get("location")).toBe(`${server.url}/reset-password?error=INVALID_TOKEN`);
    // a redirectTo of another origin is still refused, default or not
    const foreign = await c.post<ApiError>("/api/auth/request-password-reset", { email: uniqueEmail("x"), redirectTo: "https://evil.example/x" });
    expect(foreign.status).toBe(403);
  });

  it("redirects a valid link to the callback with ?token=, a missing or expired one with ?error=INVALID_TOKEN", async () => {
    const { email } = await signedUp(server, "resetlink");
    const { link, token } = await requestReset(email);
    const c = new Client(server.url);
    const ok = await c.get(pathOf(link));
    expect(ok.status).toBe(302);
    expect(ok.headers.get("location")).toBe(`${server.url}/reset?token=${token}`);

    const missing = await c.get("/api/auth/reset-password/not-a-real-token-000000?callbackURL=%2Freset");
    expect(missing.status).toBe(302);
    expect(missing.headers.get("location")).toBe(`${server.url}/reset?error=INVALID_TOKEN`);

    await server.database.db
      .update(schema.verification)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(schema.verification.identifier, hashStoredToken(`reset-password:${token}`)));
    const expired = await c.get(pathOf(link));
    expect(expired.status).toBe(302);
    expect(expired.headers.get("location")).toBe(`${server.url}/reset?error=INVALID_TOKEN`);
    const post = await c.post<ApiError>("/api/auth/reset-password", { newPassword: "a-new-password", token });
    expect(post.status).toBe(400);
    expect(post.body).toEqual({ message: "Invalid token", code: "INVALID_TOKEN" });
  });

  it("resets the password once: the token is deleted and the user's sessions are revoked", async () => {
    const person = await signedUp(server, "resetonce");
    const second = await signIn(server, person.email);
    const { token } = await requestReset(person.email);

    const tooShort = await new Client(server.url).post<ApiError>("/api/auth/reset-password", { newPassword: "short", token });
    expect(tooShort.status).toBe(400);
    expect(tooShort.body.code).toBe("PASSWORD_TOO_SHORT");

    const c = new Client(server.url);
    const res = await c.post("/api/auth/reset-password", { newPassword: "a-brand-new-password", token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(await verificationRow(server, `reset-password:${token}`)).toBeUndefined();
    const again = await c.post<ApiError>("/api/auth/reset-password", { newPassword: "another-new-password", token });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: "Invalid token", code: "INVALID_TOKEN" });

    expect(await sessionRows(server, person.id)).toHaveLength(0);
    expect(await currentUser(person.client)).toBeNull();
    expect(await currentUser(second)).toBeNull();
    const old = await c.post("/api/auth/sign-in/email", { email: person.email, password: PASSWORD });
    expect(old.status).toBe(401);
    await signIn(server, person.email, "a-brand-new-password");
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
    const person = await signedUp(server, "chpw");
    const other = await signIn(server, person.email);
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
    expect((await sessionRows(server, person.id)).map((s) => s.token)).toEqual([hashStoredToken(res.body.token ?? "")]);
    expect((await currentUser(person.client))?.id).toBe(person.id);
    expect(await currentUser(other)).toBeNull();
    await signIn(server, person.email, "next-password-1");
  });

  it("keeps the other sessions without revokeOtherSessions (token null) and checks the current password", async () => {
    const person = await signedUp(server, "chpw2");
    const other = await signIn(server, person.email);
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
    expect(await sessionRows(server, person.id)).toHaveLength(2);
  });

  it("does not offer set-password over HTTP", async () => {
    const person = await signedUp(server, "setpw-http");
    const res = await person.client.post("/api/auth/set-password", { newPassword: "whatever-password" });
    expect(res.status).toBe(404);
  });

  it("sets a password server-side for a user without one, and refuses when there is one", async () => {
    const person = await signedUp(server, "setpw");
    const headers = new Headers({ cookie: `better-auth.session_token=${person.client.cookies.get("better-auth.session_token")}` });
    await expect(server.auth.api.setPassword({ headers, body: { newPassword: "a-second-password" } })).rejects.toMatchObject({
      statusCode: 400,
      body: { message: "user already has a password", code: "USER_ALREADY_HAS_A_PASSWORD" },
    });

    // a user who signed in another way has a credential-less account row
    await server.database.db.update(schema.account).set({ password: null }).where(eq(schema.account.userId, person.id));
    const res = await server.auth.api.setPassword({ headers, body: { newPassword: "a-second-password" } });
    expect(res).toEqual({ status: true });
    await signIn(server, person.email, "a-second-password");
  });
});

describe("change email", () => {
  it("changes an unverified email at once and mails a verification link to the new address", async () => {
    const person = await signedUp(server, "chunverified");
    const newEmail = uniqueEmail("Moved").replace("moved", "MoVeD");
    const res = await person.client.post("/api/auth/change-email", { newEmail, callbackURL: "/profile" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: true });
    expect((await userRow(server, person.id))?.email).toBe(newEmail.toLowerCase());
    expect((await currentUser(person.client))?.email).toBe(newEmail.toLowerCase());

    const link = await mailedLink(server, newEmail, VERIFY_SUBJECT);
    expect(link.searchParams.get("callbackURL")).toBe("/profile");
    const follow = await person.client.get(pathOf(link));
    expect(follow.status).toBe(302);
    expect(follow.headers.get("location")).toBe("/profile");
    expect(await userRow(server, person.id)).toMatchObject({ email: newEmail.toLowerCase(), emailVerified: true });
  });

  it("mails a confirmation to the current address of a verified user; following it changes the email and resets emailVerified", async () => {
    const person = await verifiedUser("chverified");
    const newEmail = uniqueEmail("confirmed");
    const res = await person.client.post("/api/auth/change-email", { newEmail, callbackURL: "/profile" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: true });
    expect(await userRow(server, person.id)).toMatchObject({ email: person.email, emailVerified: true });

    const mail = await server.mailbox.waitFor(person.email, CHANGE_SUBJECT);
    expect(mail.text).toContain(newEmail);
    const link = new URL(mail.links[0] ?? "");
    const claims = jwtPayload(link.searchParams.get("token") ?? "");
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

    const follow = await person.client.get(pathOf(link));
    expect(follow.status).toBe(302);
    expect(follow.headers.get("location")).toBe("/profile");
    expect(await userRow(server, person.id)).toMatchObject({ email: newEmail, emailVerified: false });
    expect(await currentUser(person.client)).toMatchObject({ email: newEmail, emailVerified: false });

    // the new address is then verified the usual way
    const verify = await mailedLink(server, newEmail, VERIFY_SUBJECT);
    expect((await person.client.get(pathOf(verify))).status).toBe(302);
    expect(await userRow(server, person.id)).toMatchObject({ email: newEmail, emailVerified: true });
  });

  it("refuses the same email with 400 Email is the same", async () => {
    const person = await signedUp(server, "same");
    const res = await person.client.post<ApiError>("/api/auth/change-email", { newEmail: person.email.toUpperCase() });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Email is the same");
  });

  it("does not move to an email another account holds, and says so to no one", async () => {
    const taken = await signedUp(server, "taken");
    const unverified = await signedUp(server, "wantstaken");
    const verified = await verifiedUser("wantstaken2");
    for (const person of [unverified, verified]) {
      const res = await person.client.post("/api/auth/change-email", { newEmail: taken.email });
      expect(res.status).toBe(200);
      expect((await userRow(server, person.id))?.email).toBe(person.email);
    }
    await expect(server.mailbox.waitFor(verified.email, CHANGE_SUBJECT, 700)).rejects.toThrow(/no mail/);
    expect(server.mailbox.messages.filter((m) => m.to.includes(taken.email))).toHaveLength(1); // its own sign-up mail
  });

  it("answers 400, not a crash, when the new address was taken between the request and the confirmation", async () => {
    const person = await verifiedUser("race");
    const newEmail = uniqueEmail("raced");
    expect((await person.client.post("/api/auth/change-email", { newEmail })).status).toBe(200);
    const link = await mailedLink(server, person.email, CHANGE_SUBJECT);
    await new Client(server.url).signUp(newEmail);
    const res = await person.client.get<ApiError>(pathOf(link));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Couldn't update your email");
    expect(await userRow(server, person.id)).toMatchObject({ email: person.email, emailVerified: true });
  });

  it("refuses a malformed new email with 400", async () => {
    const person = await signedUp(server, "badnew");
    const res = await person.client.post<ApiError>("/api/auth/change-email", { newEmail: "nope" });
    expect(res.status).toBe(400);
  });
});

describe("update-user", () => {
  it("updates name and image", async () => {
    const person = await signedUp(server, "update");
    const res = await person.client.post("/api/auth/update-user", { name: "New Name", image: "https://example.com/a.png" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(await currentUser(person.client)).toMatchObject({ name: "New Name", image: "https://example.com/a.png" });
    expect(await userRow(server, person.id)).toMatchObject({ name: "New Name", image: "https://example.com/a.png" });
  });

  it("takes a string name and a string or null image, and refuses other values with 400", async () => {
    const person = await signedUp(server, "shapes");
    for (const body of [{ name: null }, { name: 123 }, { name: { a: 1 } }, { image: ["x"] }, { image: 5 }]) {
      const res = await person.client.post<ApiError & { details: string }>("/api/auth/update-user", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ message: "Invalid body parameters", code: "VALIDATION_ERROR" });
      expect(res.body.details).toMatch(/^\[body\.(name|image)\] /);
    }
    expect(await userRow(server, person.id)).toMatchObject({ name: "shapes", image: null });
    await person.client.post("/api/auth/update-user", { image: "https://example.com/b.png" });
    const cleared = await person.client.post("/api/auth/update-user", { image: null });
    expect(cleared.status).toBe(200);
    expect((await userRow(server, person.id))?.image).toBeNull();
  });

  it("refuses the email with 400 Email can not be updated", async () => {
    const person = await signedUp(server, "noemail");
    const res = await person.client.post<ApiError>("/api/auth/update-user", { email: uniqueEmail("other") });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Email can not be updated");
    expect((await userRow(server, person.id))?.email).toBe(person.email);
  });

  it("refuses not-for-input fields with 400 {field} is not allowed to be set", async () => {
    const person = await signedUp(server, "noinput");
    const role = await person.client.post<ApiError>("/api/auth/update-user", { role: "admin" });
    expect(role.status).toBe(400);
    expect(role.body.message).toBe("role is not allowed to be set");
    const anon = await person.client.post<ApiError>("/api/auth/update-user", { name: "Sneaky", isAnonymous: true });
    expect(anon.status).toBe(400);
    expect(anon.body.message).toBe("isAnonymous is not allowed to be set");
    expect(await userRow(server, person.id)).toMatchObject({ role: "user", isAnonymous: false, name: "noinput" });
  });
});
