// The web app in a real Chromium against the real server: the device approval page in every state, and the
// look (dark mode, a phone).
// One browser for the file; each test gets fresh contexts (cookie jars).
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { hashStoredToken } from "../../server/auth/stored-tokens.js";
import { deviceCode } from "../../server/db/schema/auth.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer } from "../helpers/server.js";
import { webFixture, PASSWORD, alertText, heading, signInThroughForm } from "./web-fixtures.js";

const fx = webFixture();

const CLIENT_ID = "till-cli";
const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";

const SCREENSHOT_DIR = path.join(os.tmpdir(), "till-web-e2e");

interface CodeResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
}

describe("device approval", () => {
  async function requestCode(): Promise<CodeResponse> {
    const res = await new Client(fx.server.url).post<CodeResponse>("/api/auth/device/code", {
      client_id: CLIENT_ID,
      scope: "openid profile",
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  const poll = (code: string) =>
    new Client(fx.server.url).post<{ access_token?: string; error?: string }>("/api/auth/device/token", {
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
      `Code ${formatted(code.user_code)} Client till CLI ${CLIENT_ID} Access Everything you can do: till CLI will act as you in each of your organizations, with your role there, ` +
        `until it signs out. Requested scope: openid profile.`,
    );
  }

  it("sends a signed-out user to sign in and back; Approve gives the device its token", async () => {
    const email = await fx.newUser("deviceApprove");
    const code = await requestCode();
    expect(code.verification_uri_complete).toBe(`${fx.server.url}/device?user_code=${code.user_code}`);

    const page = await fx.newPage();
    await page.goto(code.verification_uri_complete);
    const back = `/device?user_code=${code.user_code}`;
    await page.waitForURL(`${fx.server.url}/sign-in?callbackURL=${encodeURIComponent(back)}`);
    await heading(page, "Sign in");
    await signInThroughForm(page, email);
    await page.waitForURL(`${fx.server.url}${back}`);
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
    const me = await new Client(fx.server.url).get<{ user: { email: string } }>("/api/auth/get-session", {
      authorization: `Bearer ${token.body.access_token}`,
    });
    expect(me.body.user.email).toBe(email.toLowerCase());

    // the redeemed code is gone: the page says it does not know it
    await page.reload();
    await heading(page, "Code not found");
  });

  it("Deny refuses the device: the token endpoint answers access_denied", async () => {
    const email = await fx.newUser("deviceDeny");
    const code = await requestCode();
    const page = await fx.signedInPage(email);
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
    const email = await fx.newUser("deviceTyped");
    const code = await requestCode();
    const page = await fx.signedInPage(email);
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
    const email = await fx.newUser("deviceUnknown");
    const page = await fx.signedInPage(email);
    await page.goto("/device?user_code=ZZZZ2222");
    await heading(page, "Code not found");
    expect(await alertText(page)).toBe(
      "We could not find the code ZZZZ-2222. Check it against your terminal: it may be mistyped or already used.",
    );
    expect(await page.getByLabel("Code", { exact: true }).inputValue()).toBe("ZZZZ2222");
  });

  it("says so for an expired code", async () => {
    const email = await fx.newUser("deviceExpired");
    const code = await requestCode();
    await fx.server.database.db
      .update(deviceCode)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(deviceCode.deviceCode, hashStoredToken(code.device_code)));
    const page = await fx.signedInPage(email);
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

      const page = await fx.newPage({ baseURL: limited.url });
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
    const email = await fx.newUser("deviceUsed");
    const code = await requestCode();
    const page = await fx.signedInPage(email);
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
    const first = await fx.signedInPage(email);
    await first.goto(`/device?user_code=${claimed.user_code}`);
    await review(first, claimed);
    const other = await fx.signedInPage(await fx.newUser("deviceOther"));
    await other.goto(`/device?user_code=${claimed.user_code}`);
    await heading(other, "Code claimed by another account");
    expect(await other.locator("dl.facts").count()).toBe(0);
    // and the first account's answer still counts
    await first.getByRole("button", { name: "Approve" }).click();
    await heading(first, "Device approved");
  });
});

describe("the look", () => {
  it("follows the dark colour scheme and keeps labels, focus and live regions", async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

    const dark = await fx.newPage({ colorScheme: "dark" });
    await dark.goto("/sign-in");
    await heading(dark, "Sign in");
    expect(await background(dark)).toBe("rgb(17, 20, 24)");
    await dark.screenshot({ path: path.join(SCREENSHOT_DIR, "sign-in-dark.png"), fullPage: true });

    const light = await fx.newPage({ colorScheme: "light" });
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
    const email = await fx.newUser("phone");
    const code = await new Client(fx.server.url).post<CodeResponse>("/api/auth/device/code", { client_id: CLIENT_ID });
    const page = await fx.signedInPage(email, { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await page.goto(`/device?user_code=${code.body.user_code}`);
    await heading(page, "Approve this device?");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "device-phone.png"), fullPage: true });
  });
});
