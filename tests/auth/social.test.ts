// Social sign-in and linked accounts against a real OpenID Connect provider on loopback (oidc-provider),
// plus GitHub configured from the environment (only its authorize URL: github.com is never contacted).
import { createHash } from "node:crypto";
import { symmetricDecrypt } from "better-auth/crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { account, session, verification } from "../../server/db/schema/index.js";
import { Client, uniqueEmail, type Res } from "../helpers/client.js";
import { startOidcPeer, type AuthorizeOptions, type OidcPeer } from "../helpers/oidc.js";
import { TEST_SECRET, startServer, type TestServer } from "../helpers/server.js";

interface RedirectBody {
  url: string;
  redirect: boolean;
}
interface ErrorBody {
  code: string;
  message: string;
}
interface LinkedAccount {
  id: string;
  providerId: string;
  accountId: string;
  userId: string;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
}
interface AccessTokenBody {
  accessToken: string;
  accessTokenExpiresAt: string;
  scopes: string[];
  idToken: string;
}
interface SessionBody {
  user: { id: string; email: string; name: string; emailVerified: boolean };
}

const GITHUB = { GITHUB_CLIENT_ID: "gh-client-id-123", GITHUB_CLIENT_SECRET: "gh-client-secret-456" };
const STATE_COOKIE = "better-auth.state";

let subCounter = 0;
const newSub = () => `sub-${Date.now().toString(36)}-${subCounter++}`;

function setCookie(res: Res, name: string): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

/** The provider side of a flow started by `start` (sign-in/social or link-social), back to till's callback. */
async function finishAtProvider(peer: OidcPeer, c: Client, start: Res<RedirectBody>, opts: AuthorizeOptions) {
  expect(start.status).toBe(200);
  const back = await peer.authorize(start.body.url, opts);
  return c.get(back.toString());
}

async function socialSignIn(peer: OidcPeer, c: Client, sub: string, body: Record<string, unknown> = {}) {
  const start = await c.post<RedirectBody>("/api/auth/sign-in/social", {
    provider: "oidc",
    callbackURL: "/dashboard",
    ...body,
  });
  return finishAtProvider(peer, c, start, { as: sub });
}

async function linkSocial(peer: OidcPeer, c: Client, sub: string, body: Record<string, unknown> = {}) {
  const start = await c.post<RedirectBody>("/api/auth/link-social", {
    provider: "oidc",
    callbackURL: "/settings",
    ...body,
  });
  return finishAtProvider(peer, c, start, { as: sub });
}

async function accountsOf(c: Client) {
  const res = await c.get<LinkedAccount[]>("/api/auth/list-accounts");
  expect(res.status).toBe(200);
  return res.body;
}

async function oidcAccountOf(c: Client) {
  const found = (await accountsOf(c)).find((a) => a.providerId === "oidc");
  if (!found) throw new Error("no oidc account linked");
  return found;
}

async function verifyEmail(server: TestServer, c: Client, email: string) {
  const mail = await server.mailbox.waitFor(email, /verify/i);
  const link = mail.links.find((l) => l.includes("/verify-email?"));
  if (!link) throw new Error(`no verification link in ${mail.text}`);
  const res = await c.get(link);
  expect(res.status).toBe(302);
}

const errorURL = (server: TestServer, query: string) => `${server.url}/api/auth/error?${query}`;

describe("social sign-in with an OpenID provider", () => {
  let oidc: OidcPeer;
  let server: TestServer;
  beforeAll(async () => {
    // genericOAuth reads the issuer's discovery document when the auth instance is built: the peer goes first
    oidc = await startOidcPeer();
    server = await startServer({ ...oidc.env, ...GITHUB });
  });
  afterAll(async () => {
    await server?.close();
    await oidc?.close();
  });

  describe("sign-in", () => {
    it("answers with the provider's authorization URL, a 5-minute state cookie and a state stored for 10 minutes", async () => {
      const c = new Client(server.url);
      const res = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/dashboard" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: expect.any(String), redirect: true });
      expect(res.headers.get("location")).toBe(res.body.url);

      const url = new URL(res.body.url);
      expect(`${url.origin}${url.pathname}`).toBe(`${oidc.issuer}/auth`);
      const q = url.searchParams;
      expect(q.get("client_id")).toBe(oidc.clientId);
      expect(q.get("response_type")).toBe("code");
      expect(q.get("redirect_uri")).toBe(`${server.url}/api/auth/callback/oidc`);
      expect(q.get("scope")?.split(" ")).toEqual(["openid", "email", "profile"]);
      expect(q.get("code_challenge_method")).toBe("S256");
      const state = q.get("state") ?? "";
      expect(state).toHaveLength(32);

      const cookie = setCookie(res, STATE_COOKIE) ?? "";
      expect(cookie).toMatch(new RegExp(`^${STATE_COOKIE}=${state}\\.`));
      expect(cookie).toMatch(/; Max-Age=300(;|$)/);
      expect(cookie).toMatch(/; HttpOnly/);

      const [row] = await server.database.db
        .select()
        .from(verification)
        .where(eq(verification.identifier, hashStoredToken(`auth-state:${state}`)));
      if (!row) throw new Error("no stored state");
      expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeGreaterThan(600_000 - 2_000);
      expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeLessThanOrEqual(600_000 + 2_000);
      const stored = JSON.parse(row.value) as { codeVerifier: string; callbackURL: string; oauthState: string };
      expect(stored.callbackURL).toBe("/dashboard");
      expect(stored.oauthState).toBe(state);
      expect(stored.codeVerifier).toHaveLength(128);
      // PKCE: the challenge sent to the provider is the S256 of the stored verifier
      expect(q.get("code_challenge")).toBe(createHash("sha256").update(stored.codeVerifier).digest("base64url"));
    });

    it("creates the user on the way back, sets the session cookie and redirects to newUserCallbackURL, then callbackURL", async () => {
      const email = uniqueEmail("OidcNew");
      const sub = newSub();
      oidc.addUser({ sub, email, emailVerified: true, name: "Ada Provider" });
      const c = new Client(server.url);

      const first = await socialSignIn(oidc, c, sub, { newUserCallbackURL: "/welcome" });
      expect(first.status).toBe(302);
      expect(first.headers.get("location")).toBe("/welcome");
      expect(setCookie(first, "better-auth.session_token")).toMatch(/; Max-Age=604800/);
      expect(setCookie(first, STATE_COOKIE)).toMatch(/; Max-Age=0/);

      const me = await c.get<SessionBody>("/api/auth/get-session");
      expect(me.body.user).toMatchObject({ email: email.toLowerCase(), name: "Ada Provider", emailVerified: true });

      const rows = await server.database.db.select().from(account).where(eq(account.userId, me.body.user.id));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ providerId: "oidc", accountId: sub, password: null });
      expect(rows[0]?.accessToken).toBeTruthy();
      expect(rows[0]?.refreshToken).toBeTruthy();
      expect(rows[0]?.idToken).toBeTruthy();
      expect(oidc.grants.at(-1)).toBe("authorization_code");

      // a second sign-in finds the same user and account, and goes to callbackURL
      const again = new Client(server.url);
      const second = await socialSignIn(oidc, again, sub, { newUserCallbackURL: "/welcome" });
      expect(second.headers.get("location")).toBe("/dashboard");
      const me2 = await again.get<SessionBody>("/api/auth/get-session");
      expect(me2.body.user.id).toBe(me.body.user.id);
      expect(await server.database.db.select().from(account).where(eq(account.userId, me.body.user.id))).toHaveLength(1);
    });

    it("refuses a callbackURL that is not a trusted origin", async () => {
      const c = new Client(server.url);
      const res = await c.post<ErrorBody>("/api/auth/sign-in/social", {
        provider: "oidc",
        callbackURL: "https://evil.example/steal",
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe("Invalid callbackURL");
    });

    it("answers 404 Provider not found for a provider that is not configured", async () => {
      const res = await new Client(server.url).post<ErrorBody>("/api/auth/sign-in/social", {
        provider: "gitlab",
        callbackURL: "/",
      });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "PROVIDER_NOT_FOUND", message: "Provider not found" });
    });

    it("sends a provider without an email back with email_not_found", async () => {
      const sub = newSub();
      oidc.addUser({ sub, name: "No Mail" });
      const res = await socialSignIn(oidc, new Client(server.url), sub);
      expect(res.headers.get("location")).toBe(errorURL(server, "error=email_not_found"));
    });
  });

  describe("callback errors", () => {
    it("redirects a callback without state to the error page with state_not_found", async () => {
      const c = new Client(server.url);
      const res = await c.get("/api/auth/callback/oidc?code=abc");
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(errorURL(server, "error=state_not_found"));
      const page = await c.get(res.headers.get("location") ?? "");
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(page.text).toContain("<title>Authentication Error</title>");
      expect(page.text).toContain("Error Code: <code>state_not_found</code>");
    });

    it("redirects an unknown state to state_mismatch", async () => {
      const res = await new Client(server.url).get("/api/auth/callback/oidc?code=abc&state=" + "x".repeat(32));
      expect(res.headers.get("location")).toBe(errorURL(server, "error=state_mismatch"));
    });

    it("answers state_mismatch for a state that cannot be one till issued (no internal_server_error)", async () => {
      const c = new Client(server.url);
      for (const state of ["%00", "abc%00def", "%FF%FE", "a%20b", "%E2%80%AE"]) {
        const res = await c.get(`/api/auth/callback/oidc?code=abc&state=${state}`);
        expect(res.status).toBe(302);
        expect(res.headers.get("location")).toBe(errorURL(server, "error=state_mismatch"));
      }
    });

    it("refuses a state returned to another browser (no state cookie) with state_mismatch", async () => {
      const sub = newSub();
      oidc.addUser({ sub, email: uniqueEmail("csrf"), emailVerified: true });
      const victim = new Client(server.url);
      const start = await victim.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await oidc.authorize(start.body.url, { as: sub });
      const res = await new Client(server.url).get(back.toString());
      expect(res.headers.get("location")).toBe(errorURL(server, "error=state_mismatch"));
      expect(setCookie(res, "better-auth.session_token")).toBeUndefined();
    });

    it("refuses a callback replayed after it was used", async () => {
      const sub = newSub();
      oidc.addUser({ sub, email: uniqueEmail("replay"), emailVerified: true });
      const c = new Client(server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await oidc.authorize(start.body.url, { as: sub });
      const stateCookie = c.cookies.get(STATE_COOKIE) ?? "";
      expect((await c.get(back.toString())).headers.get("location")).toBe("/");
      c.cookies.set(STATE_COOKIE, stateCookie);
      const replay = await c.get(back.toString());
      expect(replay.headers.get("location")).toBe(errorURL(server, "error=state_mismatch"));
    });

    it("refuses a state older than 10 minutes with state_mismatch", async () => {
      const sub = newSub();
      oidc.addUser({ sub, email: uniqueEmail("late"), emailVerified: true });
      const c = new Client(server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await oidc.authorize(start.body.url, { as: sub });
      // move the clock: the stored row and the deadline inside it both say 10 minutes have passed
      const identifier = `auth-state:${back.searchParams.get("state")}`;
      const [row] = await server.database.db.select().from(verification).where(eq(verification.identifier, hashStoredToken(identifier)));
      if (!row) throw new Error("no stored state");
      const past = Date.now() - 1_000;
      const value = { ...(JSON.parse(row.value) as Record<string, unknown>), expiresAt: past };
      await server.database.db
        .update(verification)
        .set({ value: JSON.stringify(value), expiresAt: new Date(past) })
        .where(eq(verification.id, row.id));
      const res = await c.get(back.toString());
      expect(res.headers.get("location")).toBe(errorURL(server, "error=state_mismatch"));
      expect(setCookie(res, "better-auth.session_token")).toBeUndefined();
    });

    it("redirects a callback without code to no_code", async () => {
      const sub = newSub();
      oidc.addUser({ sub, email: uniqueEmail("nocode"), emailVerified: true });
      const c = new Client(server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await oidc.authorize(start.body.url, { as: sub });
      back.searchParams.delete("code");
      const res = await c.get(back.toString());
      expect(res.headers.get("location")).toBe(errorURL(server, "error=no_code"));
      const page = await c.get(res.headers.get("location") ?? "");
      expect(page.text).toContain("Error Code: <code>no_code</code>");
    });

    it("redirects a code the provider does not accept to invalid_code", async () => {
      const sub = newSub();
      oidc.addUser({ sub, email: uniqueEmail("badcode"), emailVerified: true });
      const c = new Client(server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await oidc.authorize(start.body.url, { as: sub });
      back.searchParams.set("code", "not-a-code-the-provider-issued");
      const res = await c.get(back.toString());
      expect(res.headers.get("location")).toBe(errorURL(server, "error=invalid_code"));
    });

    it("passes the provider's access_denied on to the error page, or to errorCallbackURL", async () => {
      const c = new Client(server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await oidc.authorize(start.body.url, { deny: "access_denied" });
      expect(back.searchParams.get("error")).toBe("access_denied");
      const res = await c.get(back.toString());
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(
        errorURL(server, "error=access_denied&error_description=End-User+aborted+interaction"),
      );
      const page = await c.get(res.headers.get("location") ?? "");
      expect(page.text).toContain("Error Code: <code>access_denied</code>");

      const withErrorURL = await c.post<RedirectBody>("/api/auth/sign-in/social", {
        provider: "oidc",
        callbackURL: "/",
        errorCallbackURL: "/sign-in?failed=1",
      });
      const denied = await c.get((await oidc.authorize(withErrorURL.body.url, { deny: "access_denied" })).toString());
      expect(denied.headers.get("location")).toBe(
        "/sign-in?failed=1&error=access_denied&error_description=End-User+aborted+interaction",
      );
    });

    it("turns a form_post callback into the same GET callback", async () => {
      const c = new Client(server.url);
      const res = await c.request("POST", "/api/auth/callback/oidc", { form: { code: "abc", state: "s".repeat(32) } });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(`${server.url}/api/auth/callback/oidc?code=abc&state=${"s".repeat(32)}`);
    });
  });

  describe("linked accounts", () => {
    it("links the provider account of a signed-in email user with the same email and lists both accounts", async () => {
      const email = uniqueEmail("linker");
      const c = new Client(server.url);
      const { user: me } = await c.signUp(email);
      const sub = newSub();
      // the issuer is a trusted provider: its account links even though it does not vouch for the email
      oidc.addUser({ sub, email: email.toUpperCase(), emailVerified: false, name: "Linked" });

      const start = await c.post<RedirectBody>("/api/auth/link-social", { provider: "oidc", callbackURL: "/settings" });
      expect(start.status).toBe(200);
      expect(start.body).toEqual({ url: expect.any(String), redirect: true });
      const res = await finishAtProvider(oidc, c, start, { as: sub });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/settings");

      const list = await accountsOf(c);
      expect(list.map((a) => a.providerId).sort()).toEqual(["credential", "oidc"]);
      const linked = list.find((a) => a.providerId === "oidc");
      expect(linked).toEqual({
        id: expect.any(String),
        providerId: "oidc",
        accountId: sub,
        userId: me.id,
        scopes: ["openid", "email", "profile"],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(new Date(linked?.createdAt ?? "").toISOString()).toBe(linked?.createdAt);
      expect(list.find((a) => a.providerId === "credential")?.scopes).toEqual([]);

      // the provider now signs in the same user
      const other = new Client(server.url);
      expect((await socialSignIn(oidc, other, sub)).headers.get("location")).toBe("/dashboard");
      expect((await other.get<SessionBody>("/api/auth/get-session")).body.user.id).toBe(me.id);
    });

    it("refuses link-social from a foreign origin (Invalid origin) and without a session (401)", async () => {
      const c = new Client(server.url);
      await c.signUp(uniqueEmail("csrf-link"));
      c.origin = "https://evil.example";
      const res = await c.post<ErrorBody>("/api/auth/link-social", { provider: "oidc", callbackURL: "/settings" });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe("Invalid origin");
      const anonymous = await new Client(server.url).post("/api/auth/link-social", { provider: "oidc", callbackURL: "/" });
      expect(anonymous.status).toBe(401);
    });

    it("refuses to link a provider account with a different email (email_does_not_match)", async () => {
      const c = new Client(server.url);
      await c.signUp(uniqueEmail("mine"));
      const sub = newSub();
      oidc.addUser({ sub, email: uniqueEmail("theirs"), emailVerified: true });
      const res = await linkSocial(oidc, c, sub);
      expect(res.headers.get("location")).toBe(errorURL(server, "error=email_does_not_match"));
      expect(await accountsOf(c)).toHaveLength(1);
    });

    it("refuses to link a provider account that belongs to another user", async () => {
      const email = uniqueEmail("owner");
      const sub = newSub();
      oidc.addUser({ sub, email, emailVerified: true });
      await socialSignIn(oidc, new Client(server.url), sub);
      // another local user whose email the provider account also carries is impossible (emails are unique),
      // so change the provider's email to match the second user
      const c = new Client(server.url);
      const second = uniqueEmail("second");
      await c.signUp(second);
      oidc.addUser({ sub, email: second, emailVerified: true });
      const res = await linkSocial(oidc, c, sub);
      expect(res.headers.get("location")).toBe(errorURL(server, "error=account_already_linked_to_different_user"));
    });

    it("links at sign-in only once the local email is verified", async () => {
      const email = uniqueEmail("implicit");
      const c = new Client(server.url);
      const { user: me } = await c.signUp(email);
      const sub = newSub();
      oidc.addUser({ sub, email, emailVerified: true });

      const refused = await socialSignIn(oidc, new Client(server.url), sub);
      expect(refused.headers.get("location")).toBe(errorURL(server, "error=account_not_linked"));

      await verifyEmail(server, c, email);
      const browser = new Client(server.url);
      expect((await socialSignIn(oidc, browser, sub)).headers.get("location")).toBe("/dashboard");
      expect((await browser.get<SessionBody>("/api/auth/get-session")).body.user.id).toBe(me.id);
      expect((await accountsOf(browser)).map((a) => a.providerId).sort()).toEqual(["credential", "oidc"]);
    });

    it("will not unlink the last account, unlinks one of two, and answers Account not found", async () => {
      const sub = newSub();
      oidc.addUser({ sub, email: uniqueEmail("solo"), emailVerified: true });
      const solo = new Client(server.url);
      await socialSignIn(oidc, solo, sub);
      const only = await oidcAccountOf(solo);
      const last = await solo.post<ErrorBody>("/api/auth/unlink-account", { accountId: only.id });
      expect(last.status).toBe(400);
      expect(last.body).toMatchObject({ code: "FAILED_TO_UNLINK_LAST_ACCOUNT", message: "You can't unlink your last account" });

      const email = uniqueEmail("pair");
      const c = new Client(server.url);
      await c.signUp(email);
      const sub2 = newSub();
      oidc.addUser({ sub: sub2, email, emailVerified: true });
      await linkSocial(oidc, c, sub2);
      const linked = await oidcAccountOf(c);

      const missing = await c.post<ErrorBody>("/api/auth/unlink-account", { accountId: only.id });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: "ACCOUNT_NOT_FOUND", message: "Account not found" });

      const ok = await c.post("/api/auth/unlink-account", { accountId: linked.id });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ status: true });
      expect((await accountsOf(c)).map((a) => a.providerId)).toEqual(["credential"]);
    });

    it("also unlinks by providerId (the spec's shape)", async () => {
      const sub = newSub();
      oidc.addUser({ sub, email: uniqueEmail("solo2"), emailVerified: true });
      const solo = new Client(server.url);
      await socialSignIn(oidc, solo, sub);
      const last = await solo.post<ErrorBody>("/api/auth/unlink-account", { providerId: "oidc" });
      expect(last.status).toBe(400);
      expect(last.body.message).toBe("You can't unlink your last account");

      const email = uniqueEmail("pair2");
      const c = new Client(server.url);
      await c.signUp(email);
      const sub2 = newSub();
      oidc.addUser({ sub: sub2, email, emailVerified: true });
      await linkSocial(oidc, c, sub2);
      const missing = await c.post<ErrorBody>("/api/auth/unlink-account", { providerId: "github" });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toBe("Account not found");
      const wrongSub = await c.post<ErrorBody>("/api/auth/unlink-account", { providerId: "oidc", accountId: sub });
      expect(wrongSub.body.message).toBe("Account not found");
      const ok = await c.post("/api/auth/unlink-account", { providerId: "oidc", accountId: sub2 });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ status: true });
      expect((await accountsOf(c)).map((a) => a.providerId)).toEqual(["credential"]);
      const anonymous = await new Client(server.url).post("/api/auth/unlink-account", { providerId: "oidc" });
      expect(anonymous.status).toBe(401);
    });

    it("asks for a fresh session to unlink", async () => {
      const email = uniqueEmail("stale");
      const c = new Client(server.url);
      await c.signUp(email);
      const sub = newSub();
      oidc.addUser({ sub, email, emailVerified: true });
      await linkSocial(oidc, c, sub);
      const linked = await oidcAccountOf(c);
      await server.database.db
        .update(session)
        .set({ createdAt: sql`now() - interval '2 days'` })
        .where(eq(session.token, hashStoredToken(c.sessionToken ?? "")));
      const res = await c.post<ErrorBody>("/api/auth/unlink-account", { accountId: linked.id });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe("Session is not fresh");
    });

    describe("provider tokens", () => {
      let c: Client;
      let linked: LinkedAccount;
      let sub: string;
      const email = uniqueEmail("tokens");
      beforeAll(async () => {
        sub = newSub();
        oidc.addUser({
          sub,
          email,
          emailVerified: true,
          name: "Token Holder",
          picture: "https://images.example/token-holder.png",
        });
        c = new Client(server.url);
        await socialSignIn(oidc, c, sub);
        linked = await oidcAccountOf(c);
      });
      /** The account row as stored: the provider's tokens encrypted with the server secret. */
      const sealed = async () => {
        const [r] = await server.database.db.select().from(account).where(eq(account.id, linked.id));
        if (!r) throw new Error("account row gone");
        return r;
      };
      const open = (data: string | null) => (data ? symmetricDecrypt({ key: TEST_SECRET, data }) : data);
      /** The account row with its tokens decrypted. */
      const row = async () => {
        const r = await sealed();
        return { ...r, accessToken: await open(r.accessToken), refreshToken: await open(r.refreshToken) };
      };

      it("returns the stored access token, which the provider accepts", async () => {
        const res = await c.post<AccessTokenBody>("/api/auth/get-access-token", { accountId: linked.id });
        expect(res.status).toBe(200);
        // the provider's access and refresh tokens are not stored in clear (better-auth keeps the ID token,
        // a signed statement of who signed in, as it came)
        const kept = await sealed();
        expect(kept.accessToken).toMatch(/^[0-9a-f]+$/);
        expect(kept.accessToken).not.toContain(res.body.accessToken);
        expect(kept.refreshToken).toMatch(/^[0-9a-f]+$/);
        const stored = await row();
        expect(res.body).toEqual({
          accessToken: stored.accessToken,
          accessTokenExpiresAt: stored.accessTokenExpiresAt?.toISOString(),
          scopes: ["openid", "email", "profile"],
          idToken: stored.idToken,
        });
        const info = await fetch(`${oidc.issuer}/me`, { headers: { authorization: `Bearer ${res.body.accessToken}` } });
        expect(info.status).toBe(200);
        expect(((await info.json()) as { sub: string }).sub).toBe(sub);
      });

      it("does not refresh a token that is valid for more than 5 seconds", async () => {
        const before = await row();
        await server.database.db
          .update(account)
          .set({ accessTokenExpiresAt: new Date(Date.now() + 60_000) })
          .where(eq(account.id, linked.id));
        const grants = oidc.grants.length;
        const res = await c.post<AccessTokenBody>("/api/auth/get-access-token", { accountId: linked.id });
        expect(res.body.accessToken).toBe(before.accessToken);
        expect(oidc.grants.length).toBe(grants);
      });

      it("refreshes a token that expires within 5 seconds and stores the new one", async () => {
        const before = await row();
        await server.database.db
          .update(account)
          .set({ accessTokenExpiresAt: new Date(Date.now() + 3_000) })
          .where(eq(account.id, linked.id));
        const res = await c.post<AccessTokenBody>("/api/auth/get-access-token", { accountId: linked.id });
        expect(res.status).toBe(200);
        expect(res.body.accessToken).not.toBe(before.accessToken);
        expect(oidc.grants.at(-1)).toBe("refresh_token");
        const after = await row();
        expect(after.accessToken).toBe(res.body.accessToken);
        // the peer issues access tokens for an hour
        expect(after.accessTokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
        expect(new Date(res.body.accessTokenExpiresAt).getTime()).toBe(after.accessTokenExpiresAt!.getTime());
        const info = await fetch(`${oidc.issuer}/me`, { headers: { authorization: `Bearer ${res.body.accessToken}` } });
        expect(info.status).toBe(200);
      });

      it("stores the provider's expires_in, so a short-lived token is refreshed on first use", async () => {
        const shortSub = newSub();
        oidc.addUser({ sub: shortSub, email: uniqueEmail("short"), emailVerified: true });
        const short = new Client(server.url);
        oidc.accessTokenTtl = 3;
        try {
          await socialSignIn(oidc, short, shortSub);
        } finally {
          oidc.accessTokenTtl = 3600;
        }
        const acc = await oidcAccountOf(short);
        const [sealedRow] = await server.database.db.select().from(account).where(eq(account.id, acc.id));
        const issued = sealedRow && { ...sealedRow, accessToken: await open(sealedRow.accessToken) };
        expect(issued?.accessTokenExpiresAt?.getTime()).toBeLessThanOrEqual(Date.now() + 3_000);
        const res = await short.post<AccessTokenBody>("/api/auth/get-access-token", { accountId: acc.id });
        expect(res.status).toBe(200);
        expect(oidc.grants.at(-1)).toBe("refresh_token");
        expect(res.body.accessToken).not.toBe(issued?.accessToken);
        expect(new Date(res.body.accessTokenExpiresAt).getTime()).toBeGreaterThan(Date.now() + 3_500_000);
      });

      it("refreshes on demand with refresh-token and returns the token set", async () => {
        const before = await row();
        const res = await c.post<Record<string, unknown>>("/api/auth/refresh-token", { accountId: linked.id });
        expect(res.status).toBe(200);
        expect(oidc.grants.at(-1)).toBe("refresh_token");
        expect(res.body).toMatchObject({
          accessToken: expect.any(String),
          refreshToken: expect.any(String),
          accessTokenExpiresAt: expect.any(String),
          providerId: "oidc",
          accountId: linked.id,
        });
        expect(res.body.accessToken).not.toBe(before.accessToken);
        expect((await row()).accessToken).toBe(res.body.accessToken);
      });

      it("reads the account's profile from the provider with account-info", async () => {
        const res = await c.get<{ user: Record<string, unknown>; data: Record<string, unknown>; account: unknown }>(
          `/api/auth/account-info?accountId=${linked.id}`,
        );
        expect(res.status).toBe(200);
        // better-auth 1.7.25 gives a generic OIDC user no id (its OAuthMappedUser forbids one): the provider's
        // subject is data.sub and account.accountId
        expect(res.body.user).toEqual({
          name: "Token Holder",
          email,
          emailVerified: true,
          image: "https://images.example/token-holder.png",
        });
        expect(res.body.data).toMatchObject({ sub, email });
        expect(res.body.account).toEqual({ id: linked.id, providerId: "oidc", accountId: sub });
      });

      it("answers Account not found for an account that is not the caller's", async () => {
        const stranger = new Client(server.url);
        await stranger.signUp(uniqueEmail("stranger"));
        for (const path of ["/api/auth/get-access-token", "/api/auth/refresh-token"]) {
          const res = await stranger.post<ErrorBody>(path, { accountId: linked.id });
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({ code: "ACCOUNT_NOT_FOUND", message: "Account not found" });
        }
        const info = await stranger.get<ErrorBody>(`/api/auth/account-info?accountId=${linked.id}`);
        expect(info.status).toBe(400);
        expect(info.body.message).toBe("Account not found");
        const anonymous = await new Client(server.url).post("/api/auth/get-access-token", { accountId: linked.id });
        expect(anonymous.status).toBe(401);
      });

      it("also takes the spec's shape: providerId, and optionally the provider's accountId", async () => {
        const byProvider = await c.post<AccessTokenBody>("/api/auth/get-access-token", { providerId: "oidc" });
        expect(byProvider.status).toBe(200);
        expect(byProvider.body.accessToken).toBe((await row()).accessToken);
        const bySub = await c.post<AccessTokenBody>("/api/auth/get-access-token", { providerId: "oidc", accountId: sub });
        expect(bySub.body.accessToken).toBe(byProvider.body.accessToken);

        const other = await c.post<ErrorBody>("/api/auth/get-access-token", { providerId: "oidc", accountId: "nobody" });
        expect(other.status).toBe(400);
        expect(other.body).toMatchObject({ code: "ACCOUNT_NOT_FOUND", message: "Account not found" });
        const unsupported = await c.post<ErrorBody>("/api/auth/get-access-token", { providerId: "gitlab" });
        expect(unsupported.status).toBe(400);
        expect(unsupported.body.message).toBe("Provider gitlab is not supported.");
        const notFound = await c.post<ErrorBody>("/api/auth/refresh-token", { providerId: "gitlab" });
        expect(notFound.status).toBe(400);
        expect(notFound.body.message).toBe("Provider gitlab not found.");
        const numeric = await c.post<ErrorBody>("/api/auth/get-access-token", { providerId: "oidc", accountId: 5 });
        expect(numeric.status).toBe(400);
        expect(numeric.body.code).toBe("VALIDATION_ERROR");
        const noSession = await new Client(server.url).post("/api/auth/get-access-token", { providerId: "oidc" });
        expect(noSession.status).toBe(401);

        const refreshed = await c.post<Record<string, unknown>>("/api/auth/refresh-token", { providerId: "oidc" });
        expect(refreshed.status).toBe(200);
        expect(oidc.grants.at(-1)).toBe("refresh_token");
        expect(refreshed.body).toMatchObject({ providerId: "oidc", accountId: linked.id });
        expect((await row()).accessToken).toBe(refreshed.body.accessToken);

        const info = await c.post<{ user: Record<string, unknown>; account: unknown }>("/api/auth/account-info", {
          accountId: sub,
        });
        expect(info.status).toBe(200);
        expect(info.body.user).toMatchObject({ email, name: "Token Holder" });
        expect(info.body.account).toEqual({ id: linked.id, providerId: "oidc", accountId: sub });
        const noInfo = await c.post<ErrorBody>("/api/auth/account-info", { accountId: "nobody" });
        expect(noInfo.status).toBe(400);
        expect(noInfo.body.message).toBe("Account not found");
      });

      it("answers Failed to get a valid access token when the provider refuses the refresh token", async () => {
        await server.database.db
          .update(account)
          .set({ refreshToken: "revoked-refresh-token", accessTokenExpiresAt: new Date(Date.now() - 1_000) })
          .where(eq(account.id, linked.id));
        const res = await c.post<ErrorBody>("/api/auth/get-access-token", { accountId: linked.id });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ message: "Failed to get a valid access token" });
        const refresh = await c.post<ErrorBody>("/api/auth/refresh-token", { accountId: linked.id });
        expect(refresh.status).toBe(400);
        expect(refresh.body).toMatchObject({ message: "Failed to refresh access token" });
      });
    });
  });

  describe("GitHub", () => {
    it("answers with a github.com authorize URL for the configured client", async () => {
      const res = await new Client(server.url).post<RedirectBody>("/api/auth/sign-in/social", {
        provider: "github",
        callbackURL: "/dashboard",
      });
      expect(res.status).toBe(200);
      expect(res.body.redirect).toBe(true);
      const url = new URL(res.body.url);
      expect(`${url.origin}${url.pathname}`).toBe("https://github.com/login/oauth/authorize");
      expect(url.searchParams.get("client_id")).toBe(GITHUB.GITHUB_CLIENT_ID);
      expect(url.searchParams.get("redirect_uri")).toBe(`${server.url}/api/auth/callback/github`);
      expect(url.searchParams.get("state")).toHaveLength(32);
      expect(url.searchParams.get("client_secret")).toBeNull();
      expect(setCookie(res, STATE_COOKIE)).toMatch(/; Max-Age=300(;|$)/);
    });
  });
});

describe("an OpenID provider that is not trusted, and no GitHub", () => {
  let oidc: OidcPeer;
  let server: TestServer;
  beforeAll(async () => {
    oidc = await startOidcPeer();
    server = await startServer({ ...oidc.env, TILL_OIDC_TRUSTED: "false" });
  });
  afterAll(async () => {
    await server?.close();
    await oidc?.close();
  });

  it("links only when the provider vouches for the email", async () => {
    const email = uniqueEmail("untrusted");
    const c = new Client(server.url);
    await c.signUp(email);
    const sub = newSub();
    oidc.addUser({ sub, email, emailVerified: false });
    const refused = await linkSocial(oidc, c, sub);
    expect(refused.headers.get("location")).toBe(errorURL(server, "error=unable_to_link_account"));

    oidc.addUser({ sub, email, emailVerified: true });
    expect((await linkSocial(oidc, c, sub)).headers.get("location")).toBe("/settings");
    expect((await accountsOf(c)).map((a) => a.providerId).sort()).toEqual(["credential", "oidc"]);
  });

  it("does not link at sign-in to a verified local user when the provider does not vouch for the email", async () => {
    const email = uniqueEmail("unvouched");
    const c = new Client(server.url);
    const { user: me } = await c.signUp(email);
    await verifyEmail(server, c, email);
    const sub = newSub();
    oidc.addUser({ sub, email, emailVerified: false });
    const refused = await socialSignIn(oidc, new Client(server.url), sub);
    expect(refused.headers.get("location")).toBe(errorURL(server, "error=account_not_linked"));

    oidc.addUser({ sub, email, emailVerified: true });
    const browser = new Client(server.url);
    expect((await socialSignIn(oidc, browser, sub)).headers.get("location")).toBe("/dashboard");
    expect((await browser.get<SessionBody>("/api/auth/get-session")).body.user.id).toBe(me.id);
  });

  it("does not know GitHub without GITHUB_CLIENT_ID/SECRET", async () => {
    const c = new Client(server.url);
    const res = await c.post<ErrorBody>("/api/auth/sign-in/social", { provider: "github", callbackURL: "/" });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "PROVIDER_NOT_FOUND", message: "Provider not found" });
    await c.signUp(uniqueEmail("nogh"));
    const link = await c.post<ErrorBody>("/api/auth/link-social", { provider: "github", callbackURL: "/" });
    expect(link.status).toBe(404);
    expect(link.body.message).toBe("Provider not found");
  });

  it("answers Provider {id} is not supported. for an account of a provider no longer configured", async () => {
    const c = new Client(server.url);
    const { user: me } = await c.signUp(uniqueEmail("formergh"));
    // linked while GitHub was configured; the operator has since removed it
    const [row] = await server.database.db
      .insert(account)
      .values({ userId: me.id, providerId: "github", accountId: "12345", accessToken: "gho_x", refreshToken: "ghr_x" })
      .returning();
    for (const path of ["/api/auth/get-access-token", "/api/auth/refresh-token"]) {
      const res = await c.post<ErrorBody>(path, { accountId: row?.id });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "PROVIDER_NOT_SUPPORTED", message: "Provider github is not supported." });
    }
  });
});

describe("social sign-in configuration", () => {
  const oidcEnv = {
    TILL_OIDC_ISSUER: "http://127.0.0.1:9/",
    TILL_OIDC_CLIENT_ID: "id",
    TILL_OIDC_CLIENT_SECRET: "secret",
  };

  it("refuses a partial TILL_OIDC_* configuration", () => {
    for (const missing of Object.keys(oidcEnv)) {
      const env: Record<string, string> = { ...oidcEnv };
      delete env[missing];
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(
        "set TILL_OIDC_ISSUER, TILL_OIDC_CLIENT_ID and TILL_OIDC_CLIENT_SECRET together",
      );
    }
    expect(() => loadConfig({ TILL_OIDC_ISSUER: "http://127.0.0.1:9/" })).toThrow(ConfigError);
  });

  it("refuses half a GitHub configuration", () => {
    expect(() => loadConfig({ GITHUB_CLIENT_ID: "x" })).toThrow(ConfigError);
    expect(() => loadConfig({ GITHUB_CLIENT_SECRET: "x" })).toThrow(ConfigError);
  });

  it("configures the OIDC provider as trusted unless told otherwise", () => {
    expect(loadConfig({}).oidc).toBeUndefined();
    expect(loadConfig(oidcEnv).oidc).toEqual({
      providerId: "oidc",
      issuer: "http://127.0.0.1:9/",
      clientId: "id",
      clientSecret: "secret",
      scopes: ["openid", "email", "profile"],
      trusted: true,
    });
    expect(loadConfig({ ...oidcEnv, TILL_OIDC_TRUSTED: "false" }).oidc?.trusted).toBe(false);
    expect(() => loadConfig({ ...oidcEnv, TILL_OIDC_TRUSTED: "maybe" })).toThrow(ConfigError);
  });
});
