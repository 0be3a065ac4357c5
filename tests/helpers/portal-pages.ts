// The customer portal page tests' shared set-up: the seller pages' fixture (a server and Chromium of the file's own,
// a seller with an organization), and a customer signed in to the portal by a customer session, on a page watched
// for script and console errors (en-US, UTC); plus the reads of the portal's sections those tests share.
import type { BrowserContextOptions, Page } from "playwright-core";
import { afterEach, expect } from "vitest";
import { rawRequest } from "./api.js";
import { PageWatch } from "./browser.js";
import { useSellerPages, type SellerPages } from "./seller-browser.js";

export interface PortalPages extends Pick<SellerPages, "server" | "seller"> {
  /** A request to the server's API with the seller's token (the fields the SDKs drop are read here). */
  api(method: string, path: string, body?: unknown): ReturnType<typeof rawRequest>;
  /**
   * A customer session of `customerId` and a new page (a context of its own, `options` over en-US and UTC) at its
   * portal URL; the page's script and console errors fail the test after it.
   */
  open(customerId: string, options?: BrowserContextOptions): Promise<{ page: Page; session: { token: string; customerPortalUrl: string } }>;
}

/**
 * The fixture a portal page test file starts with: server, Chromium and a seller (`tag` names it) before its tests
 * (useSellerPages), each test's portal pages closed after it (their errors fail it). The getters throw until the
 * file's beforeAll has run.
 */
export function usePortalPages(tag: string): PortalPages {
  const base = useSellerPages(tag);
  const pages = new PageWatch(() => ({ browser: base.browser, options: { baseURL: base.server.url, locale: "en-US", timezoneId: "UTC" }, timeout: 15_000 }));
  afterEach(async () => expect(await pages.done()).toEqual([]));
  return {
    get server() {
      return base.server;
    },
    get seller() {
      return base.seller;
    },
    api: (method, path, body) => rawRequest(base.server.url, base.seller.token, method, path, body),
    async open(customerId, options = {}) {
      const session = await base.seller.sdk.customerSessions.create({ customerId });
      const page = await pages.open(options);
      await page.goto(session.customerPortalUrl);
      return { page, session };
    },
  };
}

/** A region of the portal page by its exact name (a section's heading). */
export const section = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
/** An element's text with its white space collapsed. */
export const text = async (l: { textContent(): Promise<string | null> }) => (await l.textContent())?.replace(/\s+/g, " ").trim();
/** An amount in cents as the en-US portal writes it. */
export const usd = (minor: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);
