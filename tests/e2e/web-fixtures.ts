// The set-up the web app's tests share (web.test.ts, web-device.test.ts): a social provider on loopback, a server
// of the file's own configured for it (and GitHub), one Chromium for the file with fresh contexts per test whose
// script and console errors fail it, users signed up through the API, and reads of a page.
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { closePages, launchForPages, PageWatch } from "../helpers/browser.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startOidcPeer, type OidcPeer } from "../helpers/oidc.js";
import { startServer, type TestServer } from "../helpers/server.js";

export const PASSWORD = "correct-horse-battery";
const GITHUB = { GITHUB_CLIENT_ID: "gh-client", GITHUB_CLIENT_SECRET: "gh-secret" };

export interface WebFixture {
  server: TestServer;
  oidc: OidcPeer;
  browser: Browser;
  /** This test's pages, closed after it; the script and console errors they log fail it. */
  pages: PageWatch;
  newPage(opts?: BrowserContextOptions): Promise<Page>;
  /** A page whose context is signed in already (through the API, sharing the context's cookie jar). */
  signedInPage(email: string, opts?: Parameters<Browser["newContext"]>[0]): Promise<Page>;
  /** A user signed up through the API with PASSWORD; returns the email. */
  newUser(tag: string, extra?: Record<string, unknown>): Promise<string>;
}

/** Starts the provider, the file's server and Chromium in beforeAll (closed in afterAll); fields are there after. */
export function webFixture(): WebFixture {
  const pages = new PageWatch(() => ({ browser: fx.browser, options: { baseURL: fx.server.url }, timeout: 10_000 }));
  const fx: WebFixture = {
    pages,
    newPage: (opts = {}) => pages.open(opts),
    signedInPage: async (email, opts = {}) => {
      const page = await fx.newPage(opts);
      const res = await page.context().request.post("/api/auth/sign-in/email", {
        data: { email, password: PASSWORD },
        headers: { origin: fx.server.url },
      });
      expect(res.status(), await res.text()).toBe(200);
      return page;
    },
    newUser: async (tag, extra = {}) => {
      const email = uniqueEmail(tag);
      await new Client(fx.server.url).signUp(email, PASSWORD, `${tag} Tester`, extra);
      return email;
    },
  } as WebFixture;

  beforeAll(async () => {
    // genericOAuth reads the issuer's discovery document when the server starts: the peer goes first
    fx.oidc = await startOidcPeer();
    fx.server = await startServer({ ...fx.oidc.env, ...GITHUB });
    fx.browser = await launchForPages();
  });

  afterEach(async () => {
    expect(await pages.done()).toEqual([]);
  });

  afterAll(async () => {
    await closePages(fx.browser);
    await fx.server?.close();
    await fx.oidc?.close();
  });
  return fx;
}

export const alertText = async (page: Page) => (await page.getByRole("alert").textContent())?.trim();
export const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true }).waitFor();
export const pathOf = (page: Page) => {
  const u = new URL(page.url());
  return `${u.pathname}${u.search}`;
};

export async function signInThroughForm(page: Page, identifier: string, password = PASSWORD): Promise<void> {
  await page.getByLabel("Email or username", { exact: true }).fill(identifier);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}
