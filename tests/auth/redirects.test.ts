// Open redirects: every callback and redirect target /api/auth takes is normalised in one place
// before better-auth follows it, and the Location of every redirect the mount answers is checked last, so
// no spelling of another host — dot segments, encoded dots, backslashes, controls, scheme tricks — and no
// target stored earlier can send a browser away from this origin or a trusted one.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { verification } from "../../server/db/schema/index.js";
import { Client, uniqueEmail, type Res } from "../helpers/client.js";
import { startOidcPeer, type OidcPeer } from "../helpers/oidc.js";
import { startServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct-horse-battery";
const TRUSTED = "https://app.example.com";

/** Spellings of evil.com that a browser, a router or better-auth's own path check may read as a host. */
const TRICKS = [
  "/..//evil.com",
  "/.//evil.com",
  "/a/..//evil.com",
  "/a/b/../..//evil.com",
  "/%2e%2e//evil.com",
  "/%2E%2E//evil.com",
  "/.%2e//evil.com",
  "/%2e//evil.com",
  "/\\evil.com",
  "/\\/evil.com",
  "\\\\evil.com",
  "/\t/evil.com",
  "/\n/evil.com",
  "/\r\n/evil.com",
  "/%09/evil.com",
  "%2f%2fevil.com",
  "/%2f/evil.com",
  "/%2F%2Fevil.com",
  "/%5cevil.com",
  "//evil.com",
  "///evil.com",
  " //evil.com",
  "https:evil.com",
  "https:/evil.com",
  "HTTPS://evil.com",
  "hTtP://evil.com/x",
  "https://evil.com",
  "https://app.example.com@evil.com",
  "https://evil.com#@app.example.com",
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  "java\tscript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "evil.com",
];

let server: TestServer;
let oidc: OidcPeer;
beforeAll(async () => {
  oidc = await startOidcPeer();
  server = await startServer({ ...oidc.env, TILL_TRUSTED_ORIGINS: TRUSTED });
});
afterAll(async () => {
  await server?.close();
  await oidc?.close();
});

/** Where a browser goes for this Location (or JSON url) of an answer from `server`. */
function destination(location: string): URL {
  return new URL(location, `${server.url}/api/auth/x`);
}

/** The answer keeps the browser here or on the trusted origin: no Location, or one that resolves there. */
function expectStaysHome(res: Res<unknown>, what: string): void {
  const location = res.headers.get("location");
  const body = res.body as { url?: unknown } | null;
  for (const target of [location, typeof body?.url === "string" ? body.url : null]) {
    if (target === null) continue;
    expect([new URL(server.url).origin, TRUSTED], `${what} → ${target}`).toContain(destination(target).origin);
    // a path beginning with "//" is a host to whoever later drops the origin
    expect(target.startsWith("//") || target.includes("\\"), `${what} → ${target}`).toBe(false);
  }
}

function expectRefused(res: Res<unknown>, code: string, what: string): void {
  expect(res.status, `${what}: ${res.text}`).toBe(403);
  expect(res.body, what).toMatchObject({ code });
}

async function signedUp(): Promise<{ client: Client; email: string }> {
  const client = new Client(server.url);
  const email = uniqueEmail("redirects");
  await client.signUp(email, PASSWORD);
  return { client, email };
}

describe("callback targets in links (GET)", () => {
  const routes = [
    (t: string) => `/api/auth/verify-email?token=x&callbackURL=${encodeURIComponent(t)}`,
    (t: string) => `/api/auth/reset-password/not-a-token?callbackURL=${encodeURIComponent(t)}`,
    (t: string) => `/api/auth/delete-user/callback?token=x&callbackURL=${encodeURIComponent(t)}`,
  ];

  it("refuses every trick with 403 INVALID_CALLBACK_URL and never answers a Location off this origin", async () => {
    const c = new Client(server.url);
    for (const trick of TRICKS) {
      for (const route of routes) {
        const res = await c.get(route(trick));
        const what = `${route("T")} with ${JSON.stringify(trick)}`;
        expectStaysHome(res, what);
        expectRefused(res, "INVALID_CALLBACK_URL", what);
      }
    }
  });

  it("follows local paths in their resolved form, and trusted origins", async () => {
    const c = new Client(server.url);
    const cases: [string, string][] = [
      ["/welcome", "/welcome?error=invalid_token"],
      ["/a/../welcome", "/welcome?error=invalid_token"],
      ["/%2e%2e/welcome", "/welcome?error=invalid_token"],
      ["/settings?tab=email#top", "/settings?tab=email&error=invalid_token#top"],
      [`${TRUSTED}/after`, `${TRUSTED}/after?error=invalid_token`],
    ];
    for (const [target, location] of cases) {
      const res = await c.get(`/api/auth/verify-email?token=x&callbackURL=${encodeURIComponent(target)}`);
      expect(res.status, target).toBe(302);
      expect(res.headers.get("location"), target).toBe(location);
    }
  });
});

describe("callback targets in bodies (POST)", () => {
  it("sign-in, sign-up, password reset, verification mail, email change and social sign-in refuse every trick", async () => {
    const { client, email } = await signedUp();
    const anonymous = new Client(server.url);
    for (const trick of TRICKS) {
      const calls: [string, Promise<Res<unknown>>, string][] = [
        ["sign-in/email", anonymous.post("/api/auth/sign-in/email", { email, password: PASSWORD, callbackURL: trick }), "INVALID_CALLBACK_URL"],
        [
          "sign-up/email",
          anonymous.post("/api/auth/sign-up/email", { email: uniqueEmail("r"), password: PASSWORD, name: "R", callbackURL: trick }),
          "INVALID_CALLBACK_URL",
        ],
        ["request-password-reset", anonymous.post("/api/auth/request-password-reset", { email, redirectTo: trick }), "INVALID_REDIRECT_URL"],
        ["send-verification-email", anonymous.post("/api/auth/send-verification-email", { email, callbackURL: trick }), "INVALID_CALLBACK_URL"],
        ["change-email", client.post("/api/auth/change-email", { newEmail: uniqueEmail("n"), callbackURL: trick }), "INVALID_CALLBACK_URL"],
        ["sign-in/social callbackURL", anonymous.post("/api/auth/sign-in/social", { provider: "oidc", callbackURL: trick }), "INVALID_CALLBACK_URL"],
        [
          "sign-in/social errorCallbackURL",
          anonymous.post("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/", errorCallbackURL: trick }),
          "INVALID_ERROR_CALLBACK_URL",
        ],
        [
          "sign-in/social newUserCallbackURL",
          anonymous.post("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/", newUserCallbackURL: trick }),
          "INVALID_NEW_USER_CALLBACK_URL",
        ],
      ];
      for (const [what, call, code] of calls) {
        const res = await call;
        const label = `${what} with ${JSON.stringify(trick)}`;
        if (what.startsWith("sign-in/social")) {
          // its 200 carries the provider's URL; refusal must come first
          expectRefused(res, code, label);
          continue;
        }
        expectStaysHome(res, label);
        expectRefused(res, code, label);
      }
    }
    // nobody got signed in along the way
    expect(anonymous.sessionToken).toBeUndefined();
  });

  it("a local callbackURL comes back resolved in the sign-in answer", async () => {
    const { email } = await signedUp();
    const res = await new Client(server.url).post<{ url: string }>("/api/auth/sign-in/email", {
      email,
      password: PASSWORD,
      callbackURL: "/a/./b/../dashboard?tab=billing",
    });
    expect(res.status).toBe(200);
    expect(res.body.url).toBe("/a/dashboard?tab=billing");
  });
});

describe("the last check on every redirect of the mount", () => {
  it("a target stored before (a tampered OAuth state naming another host) lands on the error page", async () => {
    const sub = `sub-${Date.now().toString(36)}`;
    oidc.addUser({ sub, email: uniqueEmail("stored"), emailVerified: true });
    const c = new Client(server.url);
    const start = await c.post<{ url: string }>("/api/auth/sign-in/social", { provider: "oidc", callbackURL: "/dashboard" });
    expect(start.status).toBe(200);
    const back = await oidc.authorize(start.body.url, { as: sub });
    const identifier = `auth-state:${back.searchParams.get("state")}`;
    const [row] = await server.database.db.select().from(verification).where(eq(verification.identifier, hashStoredToken(identifier)));
    if (!row) throw new Error("no stored state");
    const value = { ...(JSON.parse(row.value) as Record<string, unknown>), callbackURL: "//evil.com/landing", newUserCallbackURL: "//evil.com/new" };
    await server.database.db.update(verification).set({ value: JSON.stringify(value) }).where(eq(verification.id, row.id));

    const res = await c.get(back.toString());
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${server.url}/api/auth/error?error=invalid_redirect`);
  });
});
