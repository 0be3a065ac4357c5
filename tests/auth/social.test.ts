// Social sign-in against a real OpenID Connect provider on loopback (oidc-provider): the sign-in, the callback's
// errors, GitHub configured from the environment (only its authorize URL: github.com is never contacted), and
// the configuration. Linked accounts: social-linked-accounts.test.ts; provider tokens: social-provider-tokens.test.ts.
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { account, verification } from "../../server/db/schema/index.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { oidcFixture, type RedirectBody, type ErrorBody, type SessionBody, GITHUB, STATE_COOKIE, newSub, setCookie, socialSignIn, errorURL } from "./social-fixtures.js";

describe("social sign-in with an OpenID provider", () => {
  const fx = oidcFixture(GITHUB);

  describe("sign-in", () => {
    it("answers with the provider's authorization URL, a 5-minute state cookie and a state stored for 10 minutes", async () => {
      const c = new Client(fx.server.url);
      const res = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/dashboard" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: expect.any(String), redirect: true });
      expect(res.headers.get("location")).toBe(res.body.url);

      const url = new URL(res.body.url);
      expect(`${url.origin}${url.pathname}`).toBe(`${fx.oidc.issuer}/auth`);
      const q = url.searchParams;
      expect(q.get("client_id")).toBe(fx.oidc.clientId);
      expect(q.get("response_type")).toBe("code");
      expect(q.get("redirect_uri")).toBe(`${fx.server.url}/api/auth/callback/oidc`);
      expect(q.get("scope")?.split(" ")).toEqual(["openid", "email", "profile"]);
      expect(q.get("code_challenge_method")).toBe("S256");
      const state = q.get("state") ?? "";
      expect(state).toHaveLength(32);

      const cookie = setCookie(res, STATE_COOKIE) ?? "";
      expect(cookie).toMatch(new RegExp(`^${STATE_COOKIE}=${state}\\.`));
      expect(cookie).toMatch(/; Max-Age=300(;|$)/);
      expect(cookie).toMatch(/; HttpOnly/);

      const [row] = await fx.server.database.db
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
      fx.oidc.addUser({ sub, email, emailVerified: true, name: "Ada Provider" });
      const c = new Client(fx.server.url);

      const first = await socialSignIn(fx.oidc, c, sub, { newUserCallbackURL: "/welcome" });
      expect(first.status).toBe(302);
      expect(first.headers.get("location")).toBe("/welcome");
      expect(setCookie(first, "better-auth.session_token")).toMatch(/; Max-Age=604800/);
      expect(setCookie(first, STATE_COOKIE)).toMatch(/; Max-Age=0/);

      const me = await c.get<SessionBody>("/api/auth/get-session");
      expect(me.body.user).toMatchObject({ email: email.toLowerCase(), name: "Ada Provider", emailVerified: true });

      const rows = await fx.server.database.db.select().from(account).where(eq(account.userId, me.body.user.id));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ providerId: "oidc", accountId: sub, password: null });
      expect(rows[0]?.accessToken).toBeTruthy();
      expect(rows[0]?.refreshToken).toBeTruthy();
      expect(rows[0]?.idToken).toBeTruthy();
      expect(fx.oidc.grants.at(-1)).toBe("authorization_code");

      // a second sign-in finds the same user and account, and goes to callbackURL
      const again = new Client(fx.server.url);
      const second = await socialSignIn(fx.oidc, again, sub, { newUserCallbackURL: "/welcome" });
      expect(second.headers.get("location")).toBe("/dashboard");
      const me2 = await again.get<SessionBody>("/api/auth/get-session");
      expect(me2.body.user.id).toBe(me.body.user.id);
      expect(await fx.server.database.db.select().from(account).where(eq(account.userId, me.body.user.id))).toHaveLength(1);
    });

    it("refuses a callbackURL that is not a trusted origin", async () => {
      const c = new Client(fx.server.url);
      const res = await c.post<ErrorBody>("/api/auth/sign-in/social", {
        provider: "oidc",
        callbackURL: "https://evil.example/steal",
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe("Invalid callbackURL");
    });

    it("answers 404 Provider not found for a provider that is not configured", async () => {
      const res = await new Client(fx.server.url).post<ErrorBody>("/api/auth/sign-in/social", {
        provider: "gitlab",
        callbackURL: "/",
      });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "PROVIDER_NOT_FOUND", message: "Provider not found" });
    });

    it("sends a provider without an email back with email_not_found", async () => {
      const sub = newSub();
      fx.oidc.addUser({ sub, name: "No Mail" });
      const res = await socialSignIn(fx.oidc, new Client(fx.server.url), sub);
      expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=email_not_found"));
    });
  });

  describe("callback errors", () => {
    it("redirects a callback without state to the error page with state_not_found", async () => {
      const c = new Client(fx.server.url);
      const res = await c.get("/api/auth/callback/oidc?code=abc");
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=state_not_found"));
      const page = await c.get(res.headers.get("location") ?? "");
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(page.text).toContain("<title>Authentication Error</title>");
      expect(page.text).toContain("Error Code: <code>state_not_found</code>");
    });

    it("redirects an unknown state to state_mismatch", async () => {
      const res = await new Client(fx.server.url).get("/api/auth/callback/oidc?code=abc&state=" + "x".repeat(32));
      expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=state_mismatch"));
    });

    it("answers state_mismatch for a state that cannot be one till issued (no internal_server_error)", async () => {
      const c = new Client(fx.server.url);
      for (const state of ["%00", "abc%00def", "%FF%FE", "a%20b", "%E2%80%AE"]) {
        const res = await c.get(`/api/auth/callback/oidc?code=abc&state=${state}`);
        expect(res.status).toBe(302);
        expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=state_mismatch"));
      }
    });

    it("refuses a state returned to another browser (no state cookie) with state_mismatch", async () => {
      const sub = newSub();
      fx.oidc.addUser({ sub, email: uniqueEmail("csrf"), emailVerified: true });
      const victim = new Client(fx.server.url);
      const start = await victim.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await fx.oidc.authorize(start.body.url, { as: sub });
      const res = await new Client(fx.server.url).get(back.toString());
      expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=state_mismatch"));
      expect(setCookie(res, "better-auth.session_token")).toBeUndefined();
    });

    it("refuses a callback replayed after it was used", async () => {
      const sub = newSub();
      fx.oidc.addUser({ sub, email: uniqueEmail("replay"), emailVerified: true });
      const c = new Client(fx.server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await fx.oidc.authorize(start.body.url, { as: sub });
      const stateCookie = c.cookies.get(STATE_COOKIE) ?? "";
      expect((await c.get(back.toString())).headers.get("location")).toBe("/");
      c.cookies.set(STATE_COOKIE, stateCookie);
      const replay = await c.get(back.toString());
      expect(replay.headers.get("location")).toBe(errorURL(fx.server, "error=state_mismatch"));
    });

    it("refuses a state older than 10 minutes with state_mismatch", async () => {
      const sub = newSub();
      fx.oidc.addUser({ sub, email: uniqueEmail("late"), emailVerified: true });
      const c = new Client(fx.server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await fx.oidc.authorize(start.body.url, { as: sub });
      // move the clock: the stored row and the deadline inside it both say 10 minutes have passed
      const identifier = `auth-state:${back.searchParams.get("state")}`;
      const [row] = await fx.server.database.db.select().from(verification).where(eq(verification.identifier, hashStoredToken(identifier)));
      if (!row) throw new Error("no stored state");
      const past = Date.now() - 1_000;
      const value = { ...(JSON.parse(row.value) as Record<string, unknown>), expiresAt: past };
      await fx.server.database.db
        .update(verification)
        .set({ value: JSON.stringify(value), expiresAt: new Date(past) })
        .where(eq(verification.id, row.id));
      const res = await c.get(back.toString());
      expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=state_mismatch"));
      expect(setCookie(res, "better-auth.session_token")).toBeUndefined();
    });

    it("redirects a callback without code to no_code", async () => {
      const sub = newSub();
      fx.oidc.addUser({ sub, email: uniqueEmail("nocode"), emailVerified: true });
      const c = new Client(fx.server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await fx.oidc.authorize(start.body.url, { as: sub });
      back.searchParams.delete("code");
      const res = await c.get(back.toString());
      expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=no_code"));
      const page = await c.get(res.headers.get("location") ?? "");
      expect(page.text).toContain("Error Code: <code>no_code</code>");
    });

    it("redirects a code the provider does not accept to invalid_code", async () => {
      const sub = newSub();
      fx.oidc.addUser({ sub, email: uniqueEmail("badcode"), emailVerified: true });
      const c = new Client(fx.server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await fx.oidc.authorize(start.body.url, { as: sub });
      back.searchParams.set("code", "not-a-code-the-provider-issued");
      const res = await c.get(back.toString());
      expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=invalid_code"));
    });

    it("passes the provider's access_denied on to the error page, or to errorCallbackURL", async () => {
      const c = new Client(fx.server.url);
      const start = await c.post<RedirectBody>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/" });
      const back = await fx.oidc.authorize(start.body.url, { deny: "access_denied" });
      expect(back.searchParams.get("error")).toBe("access_denied");
      const res = await c.get(back.toString());
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(
        errorURL(fx.server, "error=access_denied&error_description=End-User+aborted+interaction"),
      );
      const page = await c.get(res.headers.get("location") ?? "");
      expect(page.text).toContain("Error Code: <code>access_denied</code>");

      const withErrorURL = await c.post<RedirectBody>("/api/auth/sign-in/social", {
        provider: "oidc",
        callbackURL: "/",
        errorCallbackURL: "/sign-in?failed=1",
      });
      const denied = await c.get((await fx.oidc.authorize(withErrorURL.body.url, { deny: "access_denied" })).toString());
      expect(denied.headers.get("location")).toBe(
        "/sign-in?failed=1&error=access_denied&error_description=End-User+aborted+interaction",
      );
    });

    it("turns a form_post callback into the same GET callback", async () => {
      const c = new Client(fx.server.url);
      const res = await c.request("POST", "/api/auth/callback/oidc", { form: { code: "abc", state: "s".repeat(32) } });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(`${fx.server.url}/api/auth/callback/oidc?code=abc&state=${"s".repeat(32)}`);
    });
  });

  describe("GitHub", () => {
    it("answers with a github.com authorize URL for the configured client", async () => {
      const res = await new Client(fx.server.url).post<RedirectBody>("/api/auth/sign-in/social", {
        provider: "github",
        callbackURL: "/dashboard",
      });
      expect(res.status).toBe(200);
      expect(res.body.redirect).toBe(true);
      const url = new URL(res.body.url);
      expect(`${url.origin}${url.pathname}`).toBe("https://github.com/login/oauth/authorize");
      expect(url.searchParams.get("client_id")).toBe(GITHUB.GITHUB_CLIENT_ID);
      expect(url.searchParams.get("redirect_uri")).toBe(`${fx.server.url}/api/auth/callback/github`);
      expect(url.searchParams.get("state")).toHaveLength(32);
      expect(url.searchParams.get("client_secret")).toBeNull();
      expect(setCookie(res, STATE_COOKIE)).toMatch(/; Max-Age=300(;|$)/);
    });
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
