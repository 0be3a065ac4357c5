// /api/reference in Chromium: Scalar's viewer loads from the server itself (no request leaves loopback) and
// renders the generated document's operations, /v1 and /api/auth alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { closePages, launchForPages } from "../helpers/browser.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launchForPages();
});
afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

describe("/api/reference", () => {
  it("renders the operations of /api/openapi.json, with nothing fetched from outside", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    await page.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.protocol === "data:" || url.protocol === "blob:") return route.continue();
      outside.push(url.href);
      return route.abort();
    });
    await page.goto(`${server.url}/api/reference`);
    // the first group's operations, by their summaries, and the groups of the others
    await page.getByText("List organizations").first().waitFor({ timeout: 60_000 });
    // the sidebar comes first: wait for the operation's own path in the main content before reading the page
    await expect.poll(() => page.locator("body").innerText(), { timeout: 60_000 }).toMatch(/GET\s+\/v1\/organizations\//);
    const text = await page.locator("body").innerText();
    expect(text).toContain("till API");
    expect(text).toMatch(/GET\s+\/v1\/organizations\//);
    for (const group of ["products", "checkouts", "subscriptions", "customer-portal"]) expect(text).toContain(group);
    // the operations by their summaries; "Try it" starts with the organization token, and no toolbar offers to
    // share the document through Scalar's servers
    for (const summary of ["Create an organization", "Get an organization"]) expect(text).toContain(summary);
    expect(text).not.toContain("No authentication selected");
    expect(text).not.toMatch(/\bShare\b|\bDeploy\b/);
    if (process.env.TILL_SCREENSHOT) await page.screenshot({ path: process.env.TILL_SCREENSHOT });
    expect(outside).toEqual([]);
  }, 120_000);
});
