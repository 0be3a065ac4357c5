// Request rules of the auth service (the product spec's account rules; request, permission and webhook errors):
// trusted origins and callback URLs, TILL_TRUSTED_ORIGINS, and the shape of error codes. Invalid input:
// requests-invalid-input.test.ts; rate limits: requests-rate-limits.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { requestsFixture, PASSWORD, raw } from "./requests-fixtures.js";

const fx = requestsFixture();

const FOREIGN = "https://evil.example";

/** The spec: "An error's code is the upper-cased form of its message". */
const upperCased = (message: string) => message.toUpperCase().replace(/[^A-Z0-9]+/g, "_");

/** A client that carries `from`'s cookies but sends another Origin, like a page on that origin would. */
function sameCookies(from: Client, origin: string): Client {
  const other = new Client(from.base, { origin });
  for (const [k, v] of from.cookies) other.cookies.set(k, v);
  return other;
}

describe("trusted origins", () => {
  it('a cookie-bearing POST from a foreign Origin is 403 "Invalid origin" and changes nothing', async () => {
    const { client, userId } = await fx.signedUp();
    const res = await sameCookies(client, FOREIGN).post("/api/auth/update-user", { name: "Hijacked" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });
    const session = await client.get<{ user: { id: string; name: string } }>("/api/auth/get-session");
    expect(session.body.user).toMatchObject({ id: userId, name: "Test User" });

    const signOut = await sameCookies(client, FOREIGN).post("/api/auth/sign-out");
    expect(signOut.status).toBe(403);
    expect(signOut.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });
    expect((await client.get("/api/auth/get-session")).body).not.toBeNull();
  });

  it('a sign-in posted from a foreign Origin is 403 "Invalid origin" and sets no cookie', async () => {
    const { email } = await fx.signedUp();
    const foreign = new Client(fx.server.url, { origin: FOREIGN });
    const res = await foreign.post("/api/auth/sign-in/email", { email, password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });
    expect(foreign.sessionToken).toBeUndefined();
  });

  it("a cookie-bearing POST with no Origin (nor Referer) is refused; a trusted Referer stands in for Origin", async () => {
    const { client } = await fx.signedUp();
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const bare = await raw(fx.server.url, "POST", "/api/auth/update-user", { "content-type": "application/json", cookie }, "{}");
    expect(bare.status).toBe(403);
    expect(JSON.parse(bare.text)).toEqual({ message: "Missing or null Origin", code: "MISSING_OR_NULL_ORIGIN" });

    const referred = await raw(
      fx.server.url,
      "POST",
      "/api/auth/update-user",
      { "content-type": "application/json", cookie, referer: `${fx.server.url}/settings` },
      JSON.stringify({ name: "Via Referer" }),
    );
    expect(referred.status).toBe(200);
  });

  it("reads (GET) are not origin-checked", async () => {
    const { client, userId } = await fx.signedUp();
    const res = await sameCookies(client, FOREIGN).get<{ user: { id: string } }>("/api/auth/get-session");
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(userId);
  });
});

describe("callback URLs", () => {
  it('a callbackURL on a foreign origin is 403 "Invalid callbackURL"', async () => {
    const { email } = await fx.signedUp();
    for (const callbackURL of [`${FOREIGN}/after`, "//evil.example/after", "javascript:alert(1)"]) {
      const client = new Client(fx.server.url);
      const res = await client.post("/api/auth/sign-in/email", { email, password: PASSWORD, callbackURL });
      expect(res.status, callbackURL).toBe(403);
      expect(res.body).toEqual({ message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" });
      expect(client.sessionToken).toBeUndefined();
    }
  });

  it("a relative callback path or one on the product's own origin is accepted", async () => {
    const { email } = await fx.signedUp();
    for (const callbackURL of ["/dashboard?tab=billing", `${fx.server.url}/welcome`]) {
      const client = new Client(fx.server.url);
      const res = await client.post<{ redirect: boolean; url: string }>("/api/auth/sign-in/email", {
        email,
        password: PASSWORD,
        callbackURL,
      });
      expect(res.status, callbackURL).toBe(200);
      expect(res.body).toMatchObject({ redirect: true, url: callbackURL });
      expect(client.sessionToken).toBeDefined();
    }
  });

  it("other redirect targets are checked the same way", async () => {
    const { email } = await fx.signedUp();
    const reset = await new Client(fx.server.url).post("/api/auth/request-password-reset", {
      email,
      redirectTo: `${FOREIGN}/reset`,
    });
    expect(reset.status).toBe(403);
    expect(reset.body).toEqual({ message: "Invalid redirectURL", code: "INVALID_REDIRECT_URL" });

    const verifyLink = await new Client(fx.server.url).get(`/api/auth/delete-user/callback?token=x&callbackURL=${encodeURIComponent(FOREIGN)}`);
    expect(verifyLink.status).toBe(403);
    expect(verifyLink.body).toEqual({ message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" });
  });
});

describe("TILL_TRUSTED_ORIGINS", () => {
  let extended: TestServer;
  beforeAll(async () => {
    extended = await startServer({ TILL_TRUSTED_ORIGINS: "https://app.example.com, https://*.shops.example" });
  });
  afterAll(async () => extended?.close());

  it("extends the trusted origins for Origin checks", async () => {
    const { client } = await fx.signedUp(extended.url);
    const fromApp = await sameCookies(client, "https://app.example.com").post("/api/auth/update-user", { name: "From App" });
    expect(fromApp.status).toBe(200);
    const fromShop = await sameCookies(client, "https://north.shops.example").post("/api/auth/update-user", { name: "From Shop" });
    expect(fromShop.status).toBe(200);
    const foreign = await sameCookies(client, FOREIGN).post("/api/auth/update-user", { name: "Foreign" });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });

    // the server without the setting still refuses that origin
    const { client: plain } = await fx.signedUp();
    const elsewhere = await sameCookies(plain, "https://app.example.com").post("/api/auth/update-user", { name: "No" });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toEqual({ message: "Invalid origin", code: "INVALID_ORIGIN" });
  });

  it("extends the trusted origins for callback URLs", async () => {
    const { email } = await fx.signedUp(extended.url);
    const ok = await new Client(extended.url).post("/api/auth/sign-in/email", {
      email,
      password: PASSWORD,
      callbackURL: "https://app.example.com/welcome",
    });
    expect(ok.status).toBe(200);
    const refused = await new Client(extended.url).post("/api/auth/sign-in/email", {
      email,
      password: PASSWORD,
      callbackURL: `${FOREIGN}/welcome`,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" });
  });
});

describe("error codes", () => {
  it("are the upper-cased form of their messages", async () => {
    const { email } = await fx.signedUp();
    const wrong = await new Client(fx.server.url).post<{ message: string; code: string }>("/api/auth/sign-in/email", {
      email,
      password: "not-the-password",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: "Invalid email or password", code: "INVALID_EMAIL_OR_PASSWORD" });
    expect(wrong.body.code).toBe(upperCased(wrong.body.message));

    const unknown = await new Client(fx.server.url).post<{ message: string; code: string }>("/api/auth/sign-in/email", {
      email: uniqueEmail("nobody"),
      password: PASSWORD,
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);

    const { client } = await fx.signedUp();
    const origin = await sameCookies(client, FOREIGN).post<{ message: string; code: string }>("/api/auth/sign-out");
    expect(origin.body.code).toBe(upperCased(origin.body.message));
  });
});
