// The settings' payment processor on a server run as in production (no TILL_TEST_PAYMENTS=live): a live
// organization without Stripe is warned that it cannot take payments; its sandbox says the built-in test
// processor takes them. Both pages axe-clean at 375 px.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ TILL_TEST_PAYMENTS: undefined }), launchForPages()]);
  seller = await createSeller(server, "processor");
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

describe("the payment processor's status in the settings", () => {
  it("warns a live organization without Stripe that it cannot take payments; the sandbox uses the test processor", async () => {
    const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems);
    contexts.push(context);
    await page.goto("/settings/payments?mode=live");
    await page.getByRole("note").filter({ hasText: "No Stripe account is connected: this organization cannot take payments" }).waitFor();
    expect(await page.getByText(/built-in test processor/).count()).toBe(0);
    await checkPage(page, "settings-no-processor");

    await page.goto("/settings/payments?mode=sandbox");
    await page.getByText("No Stripe account is connected on this side: checkouts use till's built-in test processor (test cards).").waitFor();
    expect(await page.getByText(/cannot take payments/).count()).toBe(0);
    expect(problems).toEqual([]);
  }, 90_000);
});
