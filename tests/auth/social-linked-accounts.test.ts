// Accounts linked to a till user through a real OpenID Connect provider on loopback: linking, refusals,
// unlinking, and a provider that is not trusted to vouch for emails.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { account, session } from "../../server/db/schema/index.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import {
  oidcFixture, type RedirectBody, type ErrorBody, type SessionBody, GITHUB, newSub, finishAtProvider, socialSignIn, linkSocial,
  accountsOf, oidcAccountOf, verifyEmail, errorURL,
} from "./social-fixtures.js";

describe("social sign-in with an OpenID provider", () => {
  const fx = oidcFixture(GITHUB);

  describe("linked accounts", () => {
    it("links the provider account of a signed-in email user with the same email and lists both accounts", async () => {
      const email = uniqueEmail("linker");
      const c = new Client(fx.server.url);
      const { user: me } = await c.signUp(email);
      const sub = newSub();
      // the issuer is a trusted provider: its account links even though it does not vouch for the email
      fx.oidc.addUser({ sub, email: email.toUpperCase(), emailVerified: false, name: "Linked" });

      const start = await c.post<RedirectBody>("/api/auth/link-social", { provider: "oidc", callbackURL: "/settings" });
      expect(start.status).toBe(200);
      expect(start.body).toEqual({ url: expect.any(String), redirect: true });
      const res = await finishAtProvider(fx.oidc, c, start, { as: sub });
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
      const other = new Client(fx.server.url);
      expect((await socialSignIn(fx.oidc, other, sub)).headers.get("location")).toBe("/dashboard");
      expect((await other.get<SessionBody>("/api/auth/get-session")).body.user.id).toBe(me.id);
    });

    it("refuses link-social from a foreign origin (Invalid origin) and without a session (401)", async () => {
      const c = new Client(fx.server.url);
      await c.signUp(uniqueEmail("csrf-link"));
      c.origin = "https://evil.example";
      const res = await c.post<ErrorBody>("/api/auth/link-social", { provider: "oidc", callbackURL: "/settings" });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe("Invalid origin");
      const anonymous = await new Client(fx.server.url).post("/api/auth/link-social", { provider: "oidc", callbackURL: "/" });
      expect(anonymous.status).toBe(401);
    });

    it("refuses to link a provider account with a different email (email_does_not_match)", async () => {
      const c = new Client(fx.server.url);
      await c.signUp(uniqueEmail("mine"));
      const sub = newSub();
      fx.oidc.addUser({ sub, email: uniqueEmail("theirs"), emailVerified: true });
      const res = await linkSocial(fx.oidc, c, sub);
      expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=email_does_not_match"));
      expect(await accountsOf(c)).toHaveLength(1);
    });

    it("refuses to link a provider account that belongs to another user", async () => {
      const email = uniqueEmail("owner");
      const sub = newSub();
      fx.oidc.addUser({ sub, email, emailVerified: true });
      await socialSignIn(fx.oidc, new Client(fx.server.url), sub);
      // another local user whose email the provider account also carries is impossible (emails are unique),
      // so change the provider's email to match the second user
      const c = new Client(fx.server.url);
      const second = uniqueEmail("second");
      await c.signUp(second);
      fx.oidc.addUser({ sub, email: second, emailVerified: true });
      const res = await linkSocial(fx.oidc, c, sub);
      expect(res.headers.get("location")).toBe(errorURL(fx.server, "error=account_already_linked_to_different_user"));
    });

    it("links at sign-in only once the local email is verified", async () => {
      const email = uniqueEmail("implicit");
      const c = new Client(fx.server.url);
      const { user: me } = await c.signUp(email);
      const sub = newSub();
      fx.oidc.addUser({ sub, email, emailVerified: true });

      const refused = await socialSignIn(fx.oidc, new Client(fx.server.url), sub);
      expect(refused.headers.get("location")).toBe(errorURL(fx.server, "error=account_not_linked"));
      // the page says why and what to do (linking into an unverified account would let whoever set its password in)
      const page = await new Client(fx.server.url).get(refused.headers.get("location") ?? "");
      expect(page.text).toContain("Account not linked - linking not allowed");
      expect(page.text).toContain("its email address is not verified yet");
      expect(page.text).toContain("verify your address from the email we send, then link the provider");

      await verifyEmail(fx.server, c, email);
      const browser = new Client(fx.server.url);
      expect((await socialSignIn(fx.oidc, browser, sub)).headers.get("location")).toBe("/dashboard");
      expect((await browser.get<SessionBody>("/api/auth/get-session")).body.user.id).toBe(me.id);
      expect((await accountsOf(browser)).map((a) => a.providerId).sort()).toEqual(["credential", "oidc"]);
    });

    it("will not unlink the last account, unlinks one of two, and answers Account not found", async () => {
      const sub = newSub();
      fx.oidc.addUser({ sub, email: uniqueEmail("solo"), emailVerified: true });
      const solo = new Client(fx.server.url);
      await socialSignIn(fx.oidc, solo, sub);
      const only = await oidcAccountOf(solo);
      const last = await solo.post<ErrorBody>("/api/auth/unlink-account", { accountId: only.id });
      expect(last.status).toBe(400);
      expect(last.body).toMatchObject({ code: "FAILED_TO_UNLINK_LAST_ACCOUNT", message: "You can't unlink your last account" });

      const email = uniqueEmail("pair");
      const c = new Client(fx.server.url);
      await c.signUp(email);
      const sub2 = newSub();
      fx.oidc.addUser({ sub: sub2, email, emailVerified: true });
      await linkSocial(fx.oidc, c, sub2);
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
      fx.oidc.addUser({ sub, email: uniqueEmail("solo2"), emailVerified: true });
      const solo = new Client(fx.server.url);
      await socialSignIn(fx.oidc, solo, sub);
      const last = await solo.post<ErrorBody>("/api/auth/unlink-account", { providerId: "oidc" });
      expect(last.status).toBe(400);
      expect(last.body.message).toBe("You can't unlink your last account");

      const email = uniqueEmail("pair2");
      const c = new Client(fx.server.url);
      await c.signUp(email);
      const sub2 = newSub();
      fx.oidc.addUser({ sub: sub2, email, emailVerified: true });
      await linkSocial(fx.oidc, c, sub2);
      const missing = await c.post<ErrorBody>("/api/auth/unlink-account", { providerId: "github" });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toBe("Account not found");
      const wrongSub = await c.post<ErrorBody>("/api/auth/unlink-account", { providerId: "oidc", accountId: sub });
      expect(wrongSub.body.message).toBe("Account not found");
      const ok = await c.post("/api/auth/unlink-account", { providerId: "oidc", accountId: sub2 });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ status: true });
      expect((await accountsOf(c)).map((a) => a.providerId)).toEqual(["credential"]);
      const anonymous = await new Client(fx.server.url).post("/api/auth/unlink-account", { providerId: "oidc" });
      expect(anonymous.status).toBe(401);
    });

    it("asks for a fresh session to unlink", async () => {
      const email = uniqueEmail("stale");
      const c = new Client(fx.server.url);
      await c.signUp(email);
      const sub = newSub();
      fx.oidc.addUser({ sub, email, emailVerified: true });
      await linkSocial(fx.oidc, c, sub);
      const linked = await oidcAccountOf(c);
      await fx.server.database.db
        .update(session)
        .set({ createdAt: sql`now() - interval '2 days'` })
        .where(eq(session.token, hashStoredToken(c.sessionToken ?? "")));
      const res = await c.post<ErrorBody>("/api/auth/unlink-account", { accountId: linked.id });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: "Session is not fresh", code: "SESSION_NOT_FRESH" });
    });
  });
});

describe("an OpenID provider that is not trusted, and no GitHub", () => {
  const fx = oidcFixture({ TILL_OIDC_TRUSTED: "false" });

  it("links only when the provider vouches for the email", async () => {
    const email = uniqueEmail("untrusted");
    const c = new Client(fx.server.url);
    await c.signUp(email);
    const sub = newSub();
    fx.oidc.addUser({ sub, email, emailVerified: false });
    const refused = await linkSocial(fx.oidc, c, sub);
    expect(refused.headers.get("location")).toBe(errorURL(fx.server, "error=unable_to_link_account"));

    fx.oidc.addUser({ sub, email, emailVerified: true });
    expect((await linkSocial(fx.oidc, c, sub)).headers.get("location")).toBe("/settings");
    expect((await accountsOf(c)).map((a) => a.providerId).sort()).toEqual(["credential", "oidc"]);
  });

  it("does not link at sign-in to a verified local user when the provider does not vouch for the email", async () => {
    const email = uniqueEmail("unvouched");
    const c = new Client(fx.server.url);
    const { user: me } = await c.signUp(email);
    await verifyEmail(fx.server, c, email);
    const sub = newSub();
    fx.oidc.addUser({ sub, email, emailVerified: false });
    const refused = await socialSignIn(fx.oidc, new Client(fx.server.url), sub);
    expect(refused.headers.get("location")).toBe(errorURL(fx.server, "error=account_not_linked"));

    fx.oidc.addUser({ sub, email, emailVerified: true });
    const browser = new Client(fx.server.url);
    expect((await socialSignIn(fx.oidc, browser, sub)).headers.get("location")).toBe("/dashboard");
    expect((await browser.get<SessionBody>("/api/auth/get-session")).body.user.id).toBe(me.id);
  });

  it("does not know GitHub without GITHUB_CLIENT_ID/SECRET", async () => {
    const c = new Client(fx.server.url);
    const res = await c.post<ErrorBody>("/api/auth/sign-in/social", { provider: "github", callbackURL: "/" });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "PROVIDER_NOT_FOUND", message: "Provider not found" });
    await c.signUp(uniqueEmail("nogh"));
    const link = await c.post<ErrorBody>("/api/auth/link-social", { provider: "github", callbackURL: "/" });
    expect(link.status).toBe(404);
    expect(link.body.message).toBe("Provider not found");
  });

  it("answers Provider {id} is not supported. for an account of a provider no longer configured", async () => {
    const c = new Client(fx.server.url);
    const { user: me } = await c.signUp(uniqueEmail("formergh"));
    // linked while GitHub was configured; the operator has since removed it
    const [row] = await fx.server.database.db
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
