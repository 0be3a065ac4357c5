// The web app in a real Chromium against the real server: serving (page routes, assets, headers, what it
// must not shadow), sign-up and sign-in (email, username, a social provider on loopback, better-auth's
// messages, callbackURL), the device approval page in every state, accepting an organization invitation from
// its email, and the look (dark mode, a phone).
// One browser for the file; each test gets fresh contexts (cookie jars).
import { mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import Fastify from "fastify";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchForPages, PageWatch } from "../helpers/browser.js";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { deviceCode } from "../../server/db/schema/auth.js";
import { webPlugin } from "../../server/http/web.js";
import { safeCallbackURL } from "../../web/src/callback.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startOidcPeer, type OidcPeer } from "../helpers/oidc.js";
import { startServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct-horse-battery";
const CLIENT_ID = "till-cli";
const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";
const GITHUB = { GITHUB_CLIENT_ID: "gh-client", GITHUB_CLIENT_SECRET: "gh-secret" };
const SCREENSHOT_DIR = path.join(os.tmpdir(), "till-web-e2e");

interface CodeResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
}

let server: TestServer;
let oidc: OidcPeer;
let browser: Browser;
/** This test's pages, closed after it; the script and console errors they log fail it. */
const pages = new PageWatch(() => ({ browser, options: { baseURL: server.url }, timeout: 10_000 }));

beforeAll(async () => {
  // genericOAuth reads the issuer's discovery document when the server starts: the peer goes first
  oidc = await startOidcPeer();
  server = await startServer({ ...oidc.env, ...GITHUB });
  browser = await launchForPages();
});

afterEach(async () => {
  expect(await pages.done()).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await oidc?.close();
});

const newPage = (opts: BrowserContextOptions = {}): Promise<Page> => pages.open(opts);

/** A page whose context is signed in already (through the API, sharing the context's cookie jar). */
async function signedInPage(email: string, opts: Parameters<Browser["newContext"]>[0] = {}): Promise<Page> {
  const page = await newPage(opts);
  const res = await page.context().request.post("/api/auth/sign-in/email", {
    data: { email, password: PASSWORD },
    headers: { origin: server.url },
  });
  expect(res.status(), await res.text()).toBe(200);
  return page;
}

async function newUser(tag: string, extra: Record<string, unknown> = {}): Promise<string> {
  const email = uniqueEmail(tag);
  await new Client(server.url).signUp(email, PASSWORD, `${tag} Tester`, extra);
  return email;
}

const alertText = async (page: Page) => (await page.getByRole("alert").textContent())?.trim();
const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true }).waitFor();
const pathOf = (page: Page) => {
  const u = new URL(page.url());
  return `${u.pathname}${u.search}`;
};

async function signInThroughForm(page: Page, identifier: string, password = PASSWORD): Promise<void> {
  await page.getByLabel("Email or username", { exact: true }).fill(identifier);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

describe("serving the app", () => {
  it("answers the page routes with the app shell, no-cache and headers that forbid framing", async () => {
    for (const p of ["/", "/sign-in", "/device?user_code=ABCDEFGH", "/reset-password?token=abc", "/accept-invitation/some-id", "/sign-in/"]) {
      const res = await fetch(`${server.url}${p}`);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(await res.text()).toContain('<div id="root"></div>');
    }
  });

  it("serves the hashed assets as immutable and 404s a missing one", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await fetch(`${server.url}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript|^application\/javascript/);
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const css = await fetch(`${server.url}${style}`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);

    const missing = await fetch(`${server.url}/assets/nope-123.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "ResourceNotFound", detail: "No route for GET /assets/nope-123.js" });
  });

  it("leaves /api, /v1, /healthz and unknown paths to the server", async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${server.url}/api/auth/ok`)).json()).toEqual({ ok: true });
    for (const p of ["/api/nope", "/v1/nope/", "/preferences", "/device/extra", "/index.html"]) {
      const res = await fetch(`${server.url}${p}`);
      expect(res.status, p).toBe(404);
      expect(res.headers.get("content-type"), p).toMatch(/^application\/json/);
    }
    const whoami = await fetch(`${server.url}/api/whoami`);
    expect(whoami.status).toBe(401);
  });

  it("answers the page routes with a 503 page while web/dist is not built", async () => {
    const app = Fastify();
    await app.register(webPlugin(server.config, mkdtempSync(path.join(os.tmpdir(), "till-no-dist-"))));
    const res = await app.inject({ method: "GET", url: "/device?user_code=ABCD" });
    expect(res.statusCode).toBe(503);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.body).toContain("<h1>The web app is not built</h1>");
    expect((await app.inject({ method: "GET", url: "/api/providers" })).statusCode).toBe(200);
    await app.close();
  });

  it("tells the pages which ways of signing in are configured", async () => {
    const res = await fetch(`${server.url}/api/providers`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      emailAndPassword: true,
      username: true,
      social: [
        { id: "github", name: "GitHub" },
        { id: "oidc", name: new URL(oidc.issuer).host },
      ],
    });
  });
});

describe("sign-up and sign-in", () => {
  it("signs up through the page and lands on the home page signed in", async () => {
    const email = uniqueEmail("pageSignUp").toLowerCase();
    const page = await newPage();
    await page.goto("/sign-in");
    await heading(page, "Sign in");
    await page.getByRole("button", { name: "Create an account" }).click();
    await heading(page, "Create an account");
    expect(pathOf(page)).toBe("/sign-in?mode=sign-up");
    await page.getByLabel("Name", { exact: true }).fill("Ada Page");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Username (optional)").fill(`ada${Date.now().toString(36)}`);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(`${server.url}/`);
    await page.getByText(`Signed in as Ada Page (${email}).`).waitFor();

    // and out again
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("link", { name: "Sign in" }).waitFor();
    const session = await page.context().request.get("/api/auth/get-session");
    expect(await session.json()).toBeNull();
  });

  it("signs in with email or with username and goes on to the callbackURL", async () => {
    const username = `user${Date.now().toString(36)}`;
    const email = await newUser("pageSignIn", { username });

    const byEmail = await newPage();
    await byEmail.goto(`/sign-in?callbackURL=${encodeURIComponent("/device")}`);
    await byEmail.getByText("Sign in to approve the sign-in request from your device.").waitFor();
    await signInThroughForm(byEmail, email);
    await byEmail.waitForURL(`${server.url}/device`);
    await heading(byEmail, "Connect a device");

    const byUsername = await newPage();
    await byUsername.goto("/sign-in");
    await signInThroughForm(byUsername, username);
    await byUsername.waitForURL(`${server.url}/`);
    await byUsername.getByText(`Signed in as pageSignIn Tester (${email.toLowerCase()}).`).waitFor();

    // a signed-in visitor of /sign-in is offered to go on, or to sign out
    await byUsername.goto("/sign-in?callbackURL=%2Fdevice%3Fuser_code%3DABCD");
    await byUsername.getByText(`You are signed in as pageSignIn Tester`).waitFor();
    expect(await byUsername.getByRole("link", { name: "Continue" }).getAttribute("href")).toBe("/device?user_code=ABCD");
  });

  it("shows better-auth's messages as an alert", async () => {
    const username = `taken${Date.now().toString(36)}`;
    const email = await newUser("pageErrors", { username });
    const page = await newPage();
    await page.goto("/sign-in");

    await signInThroughForm(page, email, "wrong-password-123");
    await page.getByRole("alert").waitFor();
    expect(await alertText(page)).toBe("Invalid email or password");

    await signInThroughForm(page, username, "wrong-password-123");
    await page.getByText("Invalid username or password").waitFor();
    expect(await alertText(page)).toBe("Invalid username or password");

    await page.goto("/sign-in?mode=sign-up");
    await page.getByLabel("Name", { exact: true }).fill("Short");
    await page.getByLabel("Email", { exact: true }).fill(uniqueEmail("short"));
    await page.getByLabel("Password", { exact: true }).fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("alert").waitFor();
    expect(await alertText(page)).toBe("Password too short");

    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("User already exists. Use another email.").waitFor();
    expect(await alertText(page)).toBe("User already exists. Use another email.");
    expect(page.url()).toBe(`${server.url}/sign-in?mode=sign-up`);
  });

  it("never leaves the site for a callbackURL of another origin", async () => {
    const email = await newUser("pageCallback");
    for (const callback of ["https://evil.example/steal", "//evil.example/steal"]) {
      const page = await newPage();
      await page.goto(`/sign-in?callbackURL=${encodeURIComponent(callback)}`);
      await signInThroughForm(page, email);
      await page.waitForURL(`${server.url}/`);
    }
  });

  it("accepts only same-site paths as callbackURL", () => {
    const origin = "https://till.example";
    expect(safeCallbackURL("/device?user_code=AB#x", origin)).toBe("/device?user_code=AB#x");
    expect(safeCallbackURL("/a/../b", origin)).toBe("/b");
    for (const bad of [
      null,
      "",
      "device",
      "https://evil.example/",
      "https://till.example/device",
      "//evil.example",
      "/\\evil.example",
      "/\t/evil.example",
      "javascript:alert(1)",
    ]) {
      expect(safeCallbackURL(bad, origin), String(bad)).toBe("/");
    }
  });

  it("offers the configured social providers and signs in through the OpenID provider", async () => {
    const sub = `page-${Date.now().toString(36)}`;
    const email = uniqueEmail("pageOidc").toLowerCase();
    oidc.addUser({ sub, email, emailVerified: true, name: "Olga Oidc" });
    // the provider's test interaction signs in the user this header names
    const page = await newPage({ extraHTTPHeaders: { "x-test-login": sub } });
    await page.goto(`/sign-in?callbackURL=${encodeURIComponent("/device")}`);
    await page.getByRole("button", { name: "Continue with GitHub" }).waitFor();
    await page.getByRole("button", { name: `Continue with ${new URL(oidc.issuer).host}` }).click();
    await page.waitForURL(`${server.url}/device`);
    await page.getByText(`Signed in as ${email}.`).waitFor();
  });
});

describe("password reset", () => {
  it("mails a link from the sign-in page, takes the new password twice, and the old one stops working", async () => {
    const email = (await newUser("pageReset")).toLowerCase();
    const page = await newPage();
    await page.goto("/sign-in");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await heading(page, "Reset your password");
    expect(pathOf(page)).toBe("/reset-password");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await heading(page, "Check your email");
    await page.getByText("If this email exists in our system, check your email for the reset link.").waitFor();

    const mail = await server.mailbox.waitFor(email, /^Reset your password$/);
    const link = mail.links[0] ?? "";
    expect(new URL(link).searchParams.get("callbackURL")).toBe("/reset-password");
    await page.goto(link);
    await heading(page, "Choose a new password");
    const token = new URL(page.url()).searchParams.get("token");
    expect(pathOf(page)).toBe(`/reset-password?token=${token}`);

    const choose = async (password: string, again = password) => {
      await page.getByLabel("New password", { exact: true }).fill(password);
      await page.getByLabel("New password again", { exact: true }).fill(again);
      await page.getByRole("button", { name: "Change password" }).click();
    };
    await choose("a-new-password-1", "a-new-password-2");
    await page.getByRole("alert").waitFor();
    expect(await alertText(page)).toBe("The two passwords are not the same. Type the new password twice.");
    await choose("short");
    await page.getByText("Password too short").waitFor();
    expect(await alertText(page)).toBe("Password too short");
    await choose("a-brand-new-password");
    await heading(page, "Password changed");
    expect(pathOf(page)).toBe("/reset-password"); // the spent token is not kept in the address bar

    await page.getByRole("link", { name: "Sign in" }).click();
    await heading(page, "Sign in");
    await signInThroughForm(page, email, PASSWORD);
    await page.getByRole("alert").waitFor();
    expect(await alertText(page)).toBe("Invalid email or password");
    await signInThroughForm(page, email, "a-brand-new-password");
    await page.waitForURL(`${server.url}/`);

    // the used link now lands on the request form with the reason, and a new link can be asked for there
    const again = await newPage();
    await again.goto(link);
    await heading(again, "Reset your password");
    expect(pathOf(again)).toBe("/reset-password?error=INVALID_TOKEN");
    expect(await alertText(again)).toBe("This reset link is invalid, used already or expired. Ask for a new one below.");
  });

  it("sends a token that went bad while the form was open back to the request form", async () => {
    const email = (await newUser("pageResetStale")).toLowerCase();
    const res = await new Client(server.url).post("/api/auth/request-password-reset", { email });
    expect(res.status, res.text).toBe(200);
    const link = (await server.mailbox.waitFor(email, /^Reset your password$/)).links[0] ?? "";
    const page = await newPage();
    await page.goto(link);
    await heading(page, "Choose a new password");
    const token = new URL(page.url()).searchParams.get("token") ?? "";
    // spent elsewhere (another tab) before this form is sent
    const spent = await new Client(server.url).post("/api/auth/reset-password", { newPassword: "spent-elsewhere-1", token });
    expect(spent.status, spent.text).toBe(200);
    await page.getByLabel("New password", { exact: true }).fill("a-brand-new-password");
    await page.getByLabel("New password again", { exact: true }).fill("a-brand-new-password");
    await page.getByRole("button", { name: "Change password" }).click();
    await heading(page, "Reset your password");
    expect(await alertText(page)).toBe("This reset link is invalid, used already or expired. Ask for a new one below.");
    expect(pathOf(page)).toBe("/reset-password");
  });
});

describe("device approval", () => {
  async function requestCode(): Promise<CodeResponse> {
    const res = await new Client(server.url).post<CodeResponse>("/api/auth/device/code", {
      client_id: CLIENT_ID,
      scope: "openid profile",
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  const poll = (code: string) =>
    new Client(server.url).post<{ access_token?: string; error?: string }>("/api/auth/device/token", {
      grant_type: GRANT_TYPE,
      device_code: code,
      client_id: CLIENT_ID,
    });

  const formatted = (userCode: string) => `${userCode.slice(0, 4)}-${userCode.slice(4)}`;

  async function review(page: Page, code: CodeResponse): Promise<void> {
    await heading(page, "Approve this device?");
    const facts = (await page.locator("dl.facts").innerText()).replace(/\s+/g, " ").trim();
    // the registered client's name, then its id
    expect(facts).toBe(
      `Code ${formatted(code.user_code)} Client till CLI ${CLIENT_ID} Access Everything you can do: till CLI will act as you in each of your organizations, with your role there, until it signs out. Requested scope: openid profile.`,
    );
  }

  it("sends a signed-out user to sign in and back; Approve gives the device its token", async () => {
    const email = await newUser("deviceApprove");
    const code = await requestCode();
    expect(code.verification_uri_complete).toBe(`${server.url}/device?user_code=${code.user_code}`);

    const page = await newPage();
    await page.goto(code.verification_uri_complete);
    const back = `/device?user_code=${code.user_code}`;
    await page.waitForURL(`${server.url}/sign-in?callbackURL=${encodeURIComponent(back)}`);
    await heading(page, "Sign in");
    await signInThroughForm(page, email);
    await page.waitForURL(`${server.url}${back}`);
    await review(page, code);
    await page.getByText(`Signed in as ${email.toLowerCase()}.`).waitFor();

    await page.getByRole("button", { name: "Approve" }).click();
    await heading(page, "Device approved");
    expect((await page.getByRole("status").textContent())?.trim()).toBe(
      "Device approved — you can return to your terminal.",
    );
    // the new state's heading takes the focus, so a screen reader starts there
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1");

    const token = await poll(code.device_code);
    expect(token.status, token.text).toBe(200);
    expect(token.body.access_token).toEqual(expect.any(String));
    const me = await new Client(server.url).get<{ user: { email: string } }>("/api/auth/get-session", {
      authorization: `Bearer ${token.body.access_token}`,
    });
    expect(me.body.user.email).toBe(email.toLowerCase());

    // the redeemed code is gone: the page says it does not know it
    await page.reload();
    await heading(page, "Code not found");
  });

  it("Deny refuses the device: the token endpoint answers access_denied", async () => {
    const email = await newUser("deviceDeny");
    const code = await requestCode();
    const page = await signedInPage(email);
    await page.goto(`/device?user_code=${code.user_code}`);
    await review(page, code);
    await page.getByRole("button", { name: "Deny" }).click();
    await heading(page, "Request denied");
    const denied = page.getByText("Request denied — the device was not signed in. You can close this page.");
    await denied.waitFor();
    // a denial, not a success: its own class and the error colours
    expect(await denied.getAttribute("class")).toBe("status denied");
    const colours = await denied.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(colours).toBe(await page.evaluate(() => {
      const probe = document.createElement("div");
      probe.style.backgroundColor = "var(--error-bg)";
      document.body.append(probe);
      return getComputedStyle(probe).backgroundColor;
    }));

    const token = await poll(code.device_code);
    expect(token.status).toBe(400);
    expect(token.body).toMatchObject({ error: "access_denied" });
  });

  it("takes a code typed by hand, in any case and with the dash", async () => {
    const email = await newUser("deviceTyped");
    const code = await requestCode();
    const page = await signedInPage(email);
    await page.goto("/device");
    await heading(page, "Connect a device");
    await page.getByLabel("Code", { exact: true }).fill(formatted(code.user_code).toLowerCase());
    await page.getByRole("button", { name: "Continue" }).click();
    await heading(page, "Approve this device?");
    await page.getByRole("button", { name: "Approve" }).click();
    await heading(page, "Device approved");
    expect((await poll(code.device_code)).status).toBe(200);
  });

  it("says so for an unknown code and lets the user type another", async () => {
    const email = await newUser("deviceUnknown");
    const page = await signedInPage(email);
    await page.goto("/device?user_code=ZZZZ2222");
    await heading(page, "Code not found");
    expect(await alertText(page)).toBe(
      "We could not find the code ZZZZ-2222. Check it against your terminal: it may be mistyped or already used.",
    );
    expect(await page.getByLabel("Code", { exact: true }).inputValue()).toBe("ZZZZ2222");
  });

  it("says so for an expired code", async () => {
    const email = await newUser("deviceExpired");
    const code = await requestCode();
    await server.database.db
      .update(deviceCode)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(deviceCode.deviceCode, hashStoredToken(code.device_code)));
    const page = await signedInPage(email);
    await page.goto(`/device?user_code=${code.user_code}`);
    await heading(page, "Code expired");
    expect(await alertText(page)).toBe(
      "This code has expired. Start the sign-in again in your terminal to get a new code.",
    );
  });

  it("passes on the rate limiter's answer, with the wait in words", async () => {
    // better-auth allows 5 GET /device per client address per code lifetime (30 minutes) when rate limits are on
    const limited = await startServer({ TILL_RATE_LIMIT: "true" });
    try {
      const email = uniqueEmail("deviceLimited");
      const c = new Client(limited.url);
      await c.signUp(email, PASSWORD);
      const code = await c.post<CodeResponse>("/api/auth/device/code", { client_id: CLIENT_ID });
      for (let i = 0; i < 5; i++) expect((await c.get(`/api/auth/device?user_code=${code.body.user_code}`)).status).toBe(200);

      const page = await newPage({ baseURL: limited.url });
      const signIn = await page.context().request.post("/api/auth/sign-in/email", {
        data: { email, password: PASSWORD },
        headers: { origin: limited.url },
      });
      expect(signIn.status()).toBe(200);
      await page.goto(`/device?user_code=${code.body.user_code}`);
      await heading(page, "Something went wrong");
      expect(await alertText(page)).toBe("Too many requests. Please try again later. You can try again in 30 minutes.");
    } finally {
      await limited.close();
    }
  });

  it("says so for a code already approved, and for a code another account claimed", async () => {
    const email = await newUser("deviceUsed");
    const code = await requestCode();
    const page = await signedInPage(email);
    await page.goto(`/device?user_code=${code.user_code}`);
    await page.getByRole("button", { name: "Approve" }).click();
    await heading(page, "Device approved");
    await page.reload();
    await heading(page, "Code already used");
    expect(await alertText(page)).toBe(
      "This code has already been approved. Start the sign-in again in your terminal if you need a new code.",
    );

    // the first account to open a code claims it; another one is told, and not shown the client
    const claimed = await requestCode();
    const first = await signedInPage(email);
    await first.goto(`/device?user_code=${claimed.user_code}`);
    await review(first, claimed);
    const other = await signedInPage(await newUser("deviceOther"));
    await other.goto(`/device?user_code=${claimed.user_code}`);
    await heading(other, "Code claimed by another account");
    expect(await other.locator("dl.facts").count()).toBe(0);
    // and the first account's answer still counts
    await first.getByRole("button", { name: "Approve" }).click();
    await heading(first, "Device approved");
  });
});

describe("organization invitations", () => {
  /** An organization of a fresh owner, and the link of the invitation email it sent to `email`. */
  async function invite(email: string, name = "Acme"): Promise<{ link: string; invitationId: string; from: string }> {
    const owner = new Client(server.url);
    const from = uniqueEmail("owner").toLowerCase();
    await owner.signUp(from, PASSWORD, "Olive Owner");
    const slug = `${name.toLowerCase()}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    const org = await owner.post<{ id: string }>("/api/auth/organization/create", { name, slug });
    expect(org.status, org.text).toBe(200);
    const inv = await owner.post<{ id: string }>("/api/auth/organization/invite-member", {
      email,
      role: "admin",
      organizationId: org.body.id,
    });
    expect(inv.status, inv.text).toBe(200);
    const mail = await server.mailbox.waitFor(email, /invited you to/);
    const link = mail.links.find((l) => l.includes("/accept-invitation/"));
    expect(link).toBe(`${server.url}/accept-invitation/${inv.body.id}`);
    return { link: link ?? "", invitationId: inv.body.id, from };
  }

  it("takes a new invitee from the email link through creating the account to membership", async () => {
    const email = uniqueEmail("invitee").toLowerCase();
    const { link, invitationId, from } = await invite(email);
    const page = await newPage();
    await page.goto(link);
    const back = `/accept-invitation/${invitationId}`;
    await page.waitForURL(`${server.url}/sign-in?callbackURL=${encodeURIComponent(back)}`);
    await page.getByRole("button", { name: "Create an account" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Ivy Invitee");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(`${server.url}${back}`);
    await heading(page, "Join the organization?");
    expect((await page.locator("p.lead").innerText()).trim()).toBe(`${from} invited ${email} to join Acme as admin.`);
    await page.getByRole("button", { name: "Accept" }).click();
    await heading(page, "Invitation accepted");
    await page.getByText("You are now a member of Acme.").waitFor();
    const orgs = await page.context().request.get("/api/auth/organization/list");
    expect(((await orgs.json()) as { name: string }[]).map((o) => o.name)).toEqual(["Acme"]);
  });

  it("tells another account it is not the recipient, and a declined invitation is gone", async () => {
    const email = await newUser("inviteeDecline");
    const { link } = await invite(email.toLowerCase(), "Globex");

    const stranger = await signedInPage(await newUser("stranger"));
    await stranger.goto(link);
    await heading(stranger, "Invitation not available");
    expect(await alertText(stranger)).toBe(
      "You are not the recipient of the invitation. Sign in with the address the invitation was sent to.",
    );

    const page = await signedInPage(email);
    await page.goto(link);
    await heading(page, "Join the organization?");
    await page.getByRole("button", { name: "Decline" }).click();
    await heading(page, "Invitation declined");
    await page.getByText("You declined the invitation to Globex.").waitFor();
    await page.reload();
    await heading(page, "Invitation not available");
    expect(await alertText(page)).toBe(
      "Invitation not found. It may have expired, been answered already, or been cancelled. Ask for a new invitation.",
    );
  });
});

describe("the look", () => {
  it("follows the dark colour scheme and keeps labels, focus and live regions", async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

    const dark = await newPage({ colorScheme: "dark" });
    await dark.goto("/sign-in");
    await heading(dark, "Sign in");
    expect(await background(dark)).toBe("rgb(17, 20, 24)");
    await dark.screenshot({ path: path.join(SCREENSHOT_DIR, "sign-in-dark.png"), fullPage: true });

    const light = await newPage({ colorScheme: "light" });
    await light.goto("/sign-in");
    await heading(light, "Sign in");
    expect(await background(light)).toBe("rgb(246, 247, 249)");

    // every input has a label; the status region exists before anything is announced
    expect(await dark.$$eval("input", (els) => els.every((e) => (e as HTMLInputElement).labels?.length === 1))).toBe(true);
    expect(await dark.locator('[role="status"][aria-live="polite"]').count()).toBe(1);
    // keyboard focus is visible
    await dark.keyboard.press("Tab");
    const outline = await dark.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
    expect(outline).toBe("solid");
  });

  it("fits a phone screen", async () => {
    const email = await newUser("phone");
    const code = await new Client(server.url).post<CodeResponse>("/api/auth/device/code", { client_id: CLIENT_ID });
    const page = await signedInPage(email, { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await page.goto(`/device?user_code=${code.body.user_code}`);
    await heading(page, "Approve this device?");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "device-phone.png"), fullPage: true });
  });
});
