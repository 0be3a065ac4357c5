// `till login` end to end: the CLI runs the device flow as a child process, a person approves on the
// real /device page in headless Chromium, and the CLI ends signed in (then signs out again).
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages } from "../helpers/browser.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { spawnTill, tempConfigDir, till, waitForUserCode } from "../cli/till.js";

const PASSWORD = "correct-horse-battery";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  browser = await launchForPages();
  server = await startServer();
});

afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

describe("till login with approval in the browser", () => {
  it("signs the CLI in once the user approves the code on /device, and out again", async () => {
    const email = uniqueEmail("cli-browser");
    const seller = new Client(server.url);
    await seller.signUp(email, PASSWORD, "CLI Browser");
    await seller.post("/api/auth/organization/create", { name: "Browser Org", slug: `browser-${Date.now().toString(36)}` });

    const configDir = tempConfigDir();
    const child = spawnTill(["login", "--server", server.url, "--no-browser"], { configDir });
    const userCode = await waitForUserCode(child);

    const context = await browser.newContext({ baseURL: server.url });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(`/device?user_code=${userCode}`);
    // signed out: the page sends the person to sign in and back
    await page.getByLabel("Email or username", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Approve this device?" }).waitFor();
    expect(await page.locator("dl.facts").innerText()).toContain(`${userCode.slice(0, 4)}-${userCode.slice(4)}`);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { level: 1, name: "Device approved" }).waitFor();
    await context.close();

    const result = await child;
    expect(result.exitCode, String(result.stderr)).toBe(0);

    const status = await till(["auth", "status", "--json"], { configDir });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ user: { email: email.toLowerCase() } });

    const out = await till(["logout"], { configDir });
    expect(out.exitCode, out.stderr).toBe(0);
    const after = await till(["auth", "status"], { configDir });
    expect(after.exitCode).toBe(4);
  });

  it("ends with a clear message and exit 1 when the user denies the code", async () => {
    const email = uniqueEmail("cli-deny");
    await new Client(server.url).signUp(email, PASSWORD, "CLI Deny");
    const configDir = tempConfigDir();
    const child = spawnTill(["login", "--server", server.url, "--no-browser"], { configDir });
    const userCode = await waitForUserCode(child);

    const context = await browser.newContext({ baseURL: server.url });
    context.setDefaultTimeout(15_000);
    const res = await context.request.post("/api/auth/sign-in/email", { data: { email, password: PASSWORD }, headers: { origin: server.url } });
    expect(res.status()).toBe(200);
    const page = await context.newPage();
    await page.goto(`/device?user_code=${userCode}`);
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByRole("heading", { level: 1 }).filter({ hasText: /denied/i }).waitFor();
    await context.close();

    const result = await child;
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr)).toMatch(/denied/i);
  });
});
