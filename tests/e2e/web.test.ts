// The web app in a real Chromium against the real server: serving (page routes, assets, headers, what it
// must not shadow), sign-up and sign-in (email, username, a social provider on loopback, better-auth's
// messages, callbackURL), password reset, and accepting an organization invitation from its email.
// The device approval page and the look: web-device.test.ts.
// One browser for the file; each test gets fresh contexts (cookie jars).
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { invitation } from "../../server/db/schema/index.js";
import { webPlugin } from "../../server/http/web.js";
import { safeCallbackURL } from "../../web/src/callback.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { webFixture, PASSWORD, alertText, heading, pathOf, signInThroughForm } from "./web-fixtures.js";

const fx = webFixture();

describe("serving the app", () => {
  it("answers the page routes with the app shell, no-cache and headers that forbid framing", async () => {
    for (const p of ["/", "/sign-in", "/device?user_code=ABCDEFGH", "/reset-password?token=abc", "/accept-invitation/some-id", "/sign-in/"]) {
      const res = await fetch(`${fx.server.url}${p}`);
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
    const html = await (await fetch(`${fx.server.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await fetch(`${fx.server.url}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript|^application\/javascript/);
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const css = await fetch(`${fx.server.url}${style}`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);

    const missing = await fetch(`${fx.server.url}/assets/nope-123.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "ResourceNotFound", detail: "No route for GET /assets/nope-123.js" });
  });

  it("leaves /api, /v1, /healthz and unknown paths to the server", async () => {
    expect(await (await fetch(`${fx.server.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${fx.server.url}/api/auth/ok`)).json()).toEqual({ ok: true });
    for (const p of ["/api/nope", "/v1/nope/", "/preferences", "/device/extra", "/index.html"]) {
      const res = await fetch(`${fx.server.url}${p}`);
      expect(res.status, p).toBe(404);
      expect(res.headers.get("content-type"), p).toMatch(/^application\/json/);
    }
    const whoami = await fetch(`${fx.server.url}/api/whoami`);
    expect(whoami.status).toBe(401);
  });

  it("answers the page routes with a 503 page while web/dist is not built", async () => {
    const app = Fastify();
    await app.register(webPlugin(fx.server.config, mkdtempSync(path.join(os.tmpdir(), "till-no-dist-"))));
    const res = await app.inject({ method: "GET", url: "/device?user_code=ABCD" });
    expect(res.statusCode).toBe(503);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.body).toContain("<h1>The web app is not built</h1>");
    expect((await app.inject({ method: "GET", url: "/api/providers" })).statusCode).toBe(200);
    await app.close();
  });

  it("tells the pages which ways of signing in are configured", async () => {
    const res = await fetch(`${fx.server.url}/api/providers`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      emailAndPassword: true,
      username: true,
      social: [
        { id: "github", name: "GitHub" },
        { id: "oidc", name: new URL(fx.oidc.issuer).host },
      ],
    });
  });
});

describe("sign-up and sign-in", () => {
  it("signs up through the page and lands on the home page signed in", async () => {
    const email = uniqueEmail("pageSignUp").toLowerCase();
    const page = await fx.newPage();
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
    await page.waitForURL(`${fx.server.url}/`);
    await page.getByText(`Signed in as Ada Page (${email}).`).waitFor();

    // and out again
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("link", { name: "Sign in" }).waitFor();
    const session = await page.context().request.get("/api/auth/get-session");
    expect(await session.json()).toBeNull();
  });

  it("signs in with email or with username and goes on to the callbackURL", async () => {
    const username = `user${Date.now().toString(36)}`;
    const email = await fx.newUser("pageSignIn", { username });

    const byEmail = await fx.newPage();
    await byEmail.goto(`/sign-in?callbackURL=${encodeURIComponent("/device")}`);
    await byEmail.getByText("Sign in to approve the sign-in request from your device.").waitFor();
    await signInThroughForm(byEmail, email);
    await byEmail.waitForURL(`${fx.server.url}/device`);
    await heading(byEmail, "Connect a device");

    const byUsername = await fx.newPage();
    await byUsername.goto("/sign-in");
    await signInThroughForm(byUsername, username);
    await byUsername.waitForURL(`${fx.server.url}/`);
    await byUsername.getByText(`Signed in as pageSignIn Tester (${email.toLowerCase()}).`).waitFor();

    // a signed-in visitor of /sign-in is offered to go on, or to sign out
    await byUsername.goto("/sign-in?callbackURL=%2Fdevice%3Fuser_code%3DABCD");
    await byUsername.getByText(`You are signed in as pageSignIn Tester`).waitFor();
    expect(await byUsername.getByRole("link", { name: "Continue" }).getAttribute("href")).toBe("/device?user_code=ABCD");
  });

  it("shows better-auth's messages as an alert", async () => {
    const username = `taken${Date.now().toString(36)}`;
    const email = await fx.newUser("pageErrors", { username });
    const page = await fx.newPage();
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
    expect(page.url()).toBe(`${fx.server.url}/sign-in?mode=sign-up`);
  });

  it("never leaves the site for a callbackURL of another origin", async () => {
    const email = await fx.newUser("pageCallback");
    for (const callback of ["https://evil.example/steal", "//evil.example/steal"]) {
      const page = await fx.newPage();
      await page.goto(`/sign-in?callbackURL=${encodeURIComponent(callback)}`);
      await signInThroughForm(page, email);
      await page.waitForURL(`${fx.server.url}/`);
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
    fx.oidc.addUser({ sub, email, emailVerified: true, name: "Olga Oidc" });
    // the provider's test interaction signs in the user this header names
    const page = await fx.newPage({ extraHTTPHeaders: { "x-test-login": sub } });
    await page.goto(`/sign-in?callbackURL=${encodeURIComponent("/device")}`);
    await page.getByRole("button", { name: "Continue with GitHub" }).waitFor();
    await page.getByRole("button", { name: `Continue with ${new URL(fx.oidc.issuer).host}` }).click();
    await page.waitForURL(`${fx.server.url}/device`);
    await page.getByText(`Signed in as ${email}.`).waitFor();
  });
});

describe("password reset", () => {
  it("mails a link from the sign-in page, takes the new password twice, and the old one stops working", async () => {
    const email = (await fx.newUser("pageReset")).toLowerCase();
    const page = await fx.newPage();
    await page.goto("/sign-in");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await heading(page, "Reset your password");
    expect(pathOf(page)).toBe("/reset-password");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await heading(page, "Check your email");
    await page.getByText("If this email exists in our system, check your email for the reset link.").waitFor();

    const mail = await fx.server.mailbox.waitFor(email, /^Reset your password$/);
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
    await page.waitForURL(`${fx.server.url}/`);

    // the used link now lands on the request form with the reason, and a new link can be asked for there
    const again = await fx.newPage();
    await again.goto(link);
    await heading(again, "Reset your password");
    expect(pathOf(again)).toBe("/reset-password?error=INVALID_TOKEN");
    expect(await alertText(again)).toBe("This reset link is invalid, used already or expired. Ask for a new one below.");
  });

  it("sends a token that went bad while the form was open back to the request form", async () => {
    const email = (await fx.newUser("pageResetStale")).toLowerCase();
    const res = await new Client(fx.server.url).post("/api/auth/request-password-reset", { email });
    expect(res.status, res.text).toBe(200);
    const link = (await fx.server.mailbox.waitFor(email, /^Reset your password$/)).links[0] ?? "";
    const page = await fx.newPage();
    await page.goto(link);
    await heading(page, "Choose a new password");
    const token = new URL(page.url()).searchParams.get("token") ?? "";
    // spent elsewhere (another tab) before this form is sent
    const spent = await new Client(fx.server.url).post("/api/auth/reset-password", { newPassword: "spent-elsewhere-1", token });
    expect(spent.status, spent.text).toBe(200);
    await page.getByLabel("New password", { exact: true }).fill("a-brand-new-password");
    await page.getByLabel("New password again", { exact: true }).fill("a-brand-new-password");
    await page.getByRole("button", { name: "Change password" }).click();
    await heading(page, "Reset your password");
    expect(await alertText(page)).toBe("This reset link is invalid, used already or expired. Ask for a new one below.");
    expect(pathOf(page)).toBe("/reset-password");
  });
});

describe("organization invitations", () => {
  /** An organization of a fresh owner, and the link of the invitation email it sent to `email`. */
  async function invite(email: string, name = "Acme"): Promise<{ link: string; invitationId: string; from: string }> {
    const owner = new Client(fx.server.url);
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
    const mail = await fx.server.mailbox.waitFor(email, /invited you to/);
    const link = mail.links.find((l) => l.includes("/accept-invitation/"));
    expect(link).toBe(`${fx.server.url}/accept-invitation/${inv.body.id}`);
    return { link: link ?? "", invitationId: inv.body.id, from };
  }

  it("takes a new invitee from the email link through creating the account to membership", async () => {
    const email = uniqueEmail("invitee").toLowerCase();
    const { link, invitationId, from } = await invite(email);
    const page = await fx.newPage();
    await page.goto(link);
    const back = `/accept-invitation/${invitationId}`;
    await page.waitForURL(`${fx.server.url}/sign-in?callbackURL=${encodeURIComponent(back)}`);
    await page.getByRole("button", { name: "Create an account" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Ivy Invitee");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(`${fx.server.url}${back}`);
    await heading(page, "Join the organization?");
    expect((await page.locator("p.lead").innerText()).trim()).toBe(`${from} invited ${email} to join Acme as admin.`);
    await page.getByRole("button", { name: "Accept" }).click();
    await heading(page, "Invitation accepted");
    await page.getByText("You are now a member of Acme.").waitFor();
    const orgs = await page.context().request.get("/api/auth/organization/list");
    expect(((await orgs.json()) as { name: string }[]).map((o) => o.name)).toEqual(["Acme"]);
  });

  it("tells another account it is not the recipient, and a declined invitation is gone", async () => {
    const email = await fx.newUser("inviteeDecline");
    const { link } = await invite(email.toLowerCase(), "Globex");

    const stranger = await fx.signedInPage(await fx.newUser("stranger"));
    await stranger.goto(link);
    await heading(stranger, "Invitation not available");
    expect(await alertText(stranger)).toBe(
      "You are not the recipient of the invitation. Sign in with the address the invitation was sent to.",
    );

    const page = await fx.signedInPage(email);
    await page.goto(link);
    await heading(page, "Join the organization?");
    await page.getByRole("button", { name: "Decline" }).click();
    await heading(page, "Invitation declined");
    await page.getByText("You declined the invitation to Globex.").waitFor();
    await page.reload();
    await heading(page, "Invitation not available");
    expect(await alertText(page)).toBe(
      "Invitation not found. It may have expired, been answered already, or been canceled. Ask for a new invitation.",
    );
  });

  it("tells the invitee an invitation past its expiry has expired", async () => {
    const email = await fx.newUser("inviteeLate");
    const { link, invitationId } = await invite(email.toLowerCase(), "Initech");
    await fx.server.database.db.update(invitation).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(invitation.id, invitationId));
    const page = await fx.signedInPage(email);
    await page.goto(link);
    await heading(page, "Invitation not available");
    expect(await alertText(page)).toBe("Invitation expired. Ask whoever invited you for a new invitation.");
  });
});
