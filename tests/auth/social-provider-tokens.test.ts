// The tokens a linked OpenID Connect account holds (a real provider on loopback): reading, refreshing and
// storing them.
import { symmetricDecrypt } from "better-auth/crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { account } from "../../server/db/schema/index.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { TEST_SECRET } from "../helpers/server.js";
import { oidcFixture, type ErrorBody, type LinkedAccount, type AccessTokenBody, GITHUB, newSub, socialSignIn, oidcAccountOf } from "./social-fixtures.js";

describe("social sign-in with an OpenID provider", () => {
  const fx = oidcFixture(GITHUB);

  describe("linked accounts", () => {
    describe("provider tokens", () => {
      let c: Client;
      let linked: LinkedAccount;
      let sub: string;
      const email = uniqueEmail("tokens");
      beforeAll(async () => {
        sub = newSub();
        fx.oidc.addUser({
          sub,
          email,
          emailVerified: true,
          name: "Token Holder",
          picture: "https://images.example/token-holder.png",
        });
        c = new Client(fx.server.url);
        await socialSignIn(fx.oidc, c, sub);
        linked = await oidcAccountOf(c);
      });
      /** The account row as stored: the provider's tokens encrypted with the server secret. */
      const sealed = async () => {
        const [r] = await fx.server.database.db.select().from(account).where(eq(account.id, linked.id));
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
        const info = await fetch(`${fx.oidc.issuer}/me`, { headers: { authorization: `Bearer ${res.body.accessToken}` } });
        expect(info.status).toBe(200);
        expect(((await info.json()) as { sub: string }).sub).toBe(sub);
      });

      it("does not refresh a token that is valid for more than 5 seconds", async () => {
        const before = await row();
        await fx.server.database.db
          .update(account)
          .set({ accessTokenExpiresAt: new Date(Date.now() + 60_000) })
          .where(eq(account.id, linked.id));
        const grants = fx.oidc.grants.length;
        const res = await c.post<AccessTokenBody>("/api/auth/get-access-token", { accountId: linked.id });
        expect(res.body.accessToken).toBe(before.accessToken);
        expect(fx.oidc.grants.length).toBe(grants);
      });

      it("refreshes a token that expires within 5 seconds and stores the new one", async () => {
        const before = await row();
        await fx.server.database.db
          .update(account)
          .set({ accessTokenExpiresAt: new Date(Date.now() + 3_000) })
          .where(eq(account.id, linked.id));
        const res = await c.post<AccessTokenBody>("/api/auth/get-access-token", { accountId: linked.id });
        expect(res.status).toBe(200);
        expect(res.body.accessToken).not.toBe(before.accessToken);
        expect(fx.oidc.grants.at(-1)).toBe("refresh_token");
        const after = await row();
        expect(after.accessToken).toBe(res.body.accessToken);
        // the peer issues access tokens for an hour
        expect(after.accessTokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
        expect(new Date(res.body.accessTokenExpiresAt).getTime()).toBe(after.accessTokenExpiresAt!.getTime());
        const info = await fetch(`${fx.oidc.issuer}/me`, { headers: { authorization: `Bearer ${res.body.accessToken}` } });
        expect(info.status).toBe(200);
      });

      it("stores the provider's expires_in, so a short-lived token is refreshed on first use", async () => {
        const shortSub = newSub();
        fx.oidc.addUser({ sub: shortSub, email: uniqueEmail("short"), emailVerified: true });
        const short = new Client(fx.server.url);
        fx.oidc.accessTokenTtl = 3;
        try {
          await socialSignIn(fx.oidc, short, shortSub);
        } finally {
          fx.oidc.accessTokenTtl = 3600;
        }
        const acc = await oidcAccountOf(short);
        const [sealedRow] = await fx.server.database.db.select().from(account).where(eq(account.id, acc.id));
        const issued = sealedRow && { ...sealedRow, accessToken: await open(sealedRow.accessToken) };
        expect(issued?.accessTokenExpiresAt?.getTime()).toBeLessThanOrEqual(Date.now() + 3_000);
        const res = await short.post<AccessTokenBody>("/api/auth/get-access-token", { accountId: acc.id });
        expect(res.status).toBe(200);
        expect(fx.oidc.grants.at(-1)).toBe("refresh_token");
        expect(res.body.accessToken).not.toBe(issued?.accessToken);
        expect(new Date(res.body.accessTokenExpiresAt).getTime()).toBeGreaterThan(Date.now() + 3_500_000);
      });

      it("refreshes on demand with refresh-token and returns the token set", async () => {
        const before = await row();
        const res = await c.post<Record<string, unknown>>("/api/auth/refresh-token", { accountId: linked.id });
        expect(res.status).toBe(200);
        expect(fx.oidc.grants.at(-1)).toBe("refresh_token");
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
        // the spec: the user has the provider account's id (better-auth 1.7.25 gives a generic OIDC user none: till
        // takes the subject, account.accountId) and an image
        expect(res.body.user).toEqual({
          id: sub,
          name: "Token Holder",
          email,
          emailVerified: true,
          image: "https://images.example/token-holder.png",
        });
        expect(res.body.data).toMatchObject({ sub, email });
        expect(res.body.account).toEqual({ id: linked.id, providerId: "oidc", accountId: sub });
      });

      it("answers Account not found for an account that is not the caller's", async () => {
        const stranger = new Client(fx.server.url);
        await stranger.signUp(uniqueEmail("stranger"));
        for (const path of ["/api/auth/get-access-token", "/api/auth/refresh-token"]) {
          const res = await stranger.post<ErrorBody>(path, { accountId: linked.id });
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({ code: "ACCOUNT_NOT_FOUND", message: "Account not found" });
        }
        const info = await stranger.get<ErrorBody>(`/api/auth/account-info?accountId=${linked.id}`);
        expect(info.status).toBe(400);
        expect(info.body.message).toBe("Account not found");
        const anonymous = await new Client(fx.server.url).post<ErrorBody>("/api/auth/get-access-token", { accountId: linked.id });
        expect(anonymous.status).toBe(400);
        expect(anonymous.body).toEqual({ message: "Either userId or session is required", code: "USER_ID_OR_SESSION_REQUIRED" });
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
        const noSession = await new Client(fx.server.url).post<ErrorBody>("/api/auth/get-access-token", { providerId: "oidc" });
        expect(noSession.status).toBe(400);
        expect(noSession.body).toEqual({ message: "Either userId or session is required", code: "USER_ID_OR_SESSION_REQUIRED" });

        const refreshed = await c.post<Record<string, unknown>>("/api/auth/refresh-token", { providerId: "oidc" });
        expect(refreshed.status).toBe(200);
        expect(fx.oidc.grants.at(-1)).toBe("refresh_token");
        expect(refreshed.body).toMatchObject({ providerId: "oidc", accountId: linked.id });
        expect((await row()).accessToken).toBe(refreshed.body.accessToken);

        const info = await c.post<{ user: Record<string, unknown>; account: unknown }>("/api/auth/account-info", {
          accountId: sub,
        });
        expect(info.status).toBe(200);
        expect(info.body.user).toMatchObject({ id: sub, email, name: "Token Holder", image: expect.any(String) });
        expect(info.body.account).toEqual({ id: linked.id, providerId: "oidc", accountId: sub });
        const noInfo = await c.post<ErrorBody>("/api/auth/account-info", { accountId: "nobody" });
        expect(noInfo.status).toBe(400);
        expect(noInfo.body.message).toBe("Account not found");
      });

      it("answers Failed to get a valid access token when the provider refuses the refresh token", async () => {
        await fx.server.database.db
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
});
