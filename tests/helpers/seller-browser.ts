// The seller web app's page tests' shared steps: a Chromium context signed in as a user (a phone's width unless
// told), and the check every seller page passes — no serious axe finding, nothing wider than the viewport — with
// a full-page photo in the e2e screenshot folder to look at.
import os from "node:os";
import path from "node:path";
import { mkdirSync } from "node:fs";
import { expect } from "vitest";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { seriousViolations } from "./browser.js";

export const PASSWORD = "correct-horse-battery";
export const SCREENSHOT_DIR = path.join(os.tmpdir(), "till-web-e2e");

export interface SignedIn {
  page: Page;
  context: BrowserContext;
}

/** A new context signed in as `email` (password PASSWORD), 375 px wide unless `opts` say otherwise. */
export async function signedInPage(browser: Browser, baseURL: string, email: string, problems: string[], opts: BrowserContextOptions = {}): Promise<SignedIn> {
  const context = await browser.newContext({ baseURL, viewport: { width: 375, height: 800 }, ...opts });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  const res = await context.request.post("/api/auth/sign-in/email", { data: { email, password: PASSWORD }, headers: { origin: baseURL } });
  expect(res.status(), await res.text()).toBe(200);
  return { page, context };
}

/** axe finds nothing serious, nothing is wider than the viewport, and a full-page photo named `seller-<name>.png`. */
export async function checkPage(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  expect(await seriousViolations(page), name).toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${name} is wider than the viewport`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `seller-${name}.png`), fullPage: true });
}
