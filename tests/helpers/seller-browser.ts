// The seller web app's page tests' shared steps: a Chromium context signed in as a user (a phone's width unless
// told), and the check every seller page passes — no serious axe finding, nothing wider than the viewport — with
// a full-page photo in the e2e screenshot folder to look at.
import os from "node:os";
import path from "node:path";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { closePages, launchForPages, seriousViolations } from "./browser.js";
import { createSeller, type Seller } from "./seller.js";
import { startServer, type TestServer } from "./server.js";

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

export interface SellerPages {
  readonly server: TestServer;
  readonly browser: Browser;
  /** The signed-up seller with an organization (createSeller). */
  readonly seller: Seller;
  /** The pages' errors, to expect empty at a test's end. */
  readonly problems: string[];
  /** A new signed-in page `width` px wide (900 high), closed after the file's tests. */
  open(width: number, opts?: BrowserContextOptions): Promise<Page>;
}

/**
 * The fixture every seller page test file starts with: a server and Chromium started before its tests, a seller
 * signed up with an organization (`tag` names it), pages opened signed in as them, everything closed after.
 * `start` starts the server instead of a plain startServer() (one against the Stripe stand-in, say).
 * The getters throw until the file's beforeAll has run.
 */
export function useSellerPages(tag: string, defaults: BrowserContextOptions = {}, start: () => Promise<TestServer> = () => startServer()): SellerPages {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  let seller: Seller | undefined;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];
  const ready = <T>(v: T | undefined, name: string): T => {
    if (v === undefined) throw new Error(`useSellerPages: the ${name} is not started yet (use it inside a test or a hook)`);
    return v;
  };
  beforeAll(async () => {
    [server, browser] = await Promise.all([start(), launchForPages()]);
    seller = await createSeller(server, tag);
  }, 150_000);
  afterAll(async () => {
    for (const c of contexts) await c.close();
    if (browser) await closePages(browser);
    await server?.close();
  });
  return {
    get server() {
      return ready(server, "server");
    },
    get browser() {
      return ready(browser, "browser");
    },
    get seller() {
      return ready(seller, "seller");
    },
    problems,
    async open(width, opts = {}) {
      const s = ready(server, "server");
      const signed = await signedInPage(ready(browser, "browser"), s.url, ready(seller, "seller").user.email, problems, {
        viewport: { width, height: 900 },
        ...defaults,
        ...opts,
      });
      contexts.push(signed.context);
      return signed.page;
    },
  };
}
