// The organization's status in the settings and the platform admins' queue, in Chromium, on a server that
// requires review and runs as in production (no TILL_TEST_PAYMENTS=live): the seller reads its status and next
// step and submits its business details; a platform admin denies them from /admin with a reason the seller then
// reads. Pages axe-clean at 375 px.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { user } from "../../server/db/schema/index.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
let admin: Seller;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ TILL_TEST_PAYMENTS: undefined, TILL_ORG_REVIEW: "required" }), launchForPages()]);
  [seller, admin] = await Promise.all([createSeller(server, "web-status"), createSeller(server, "web-admin")]);
  await server.database.db.update(user).set({ role: "admin" }).where(eq(user.id, admin.user.id));
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

describe("the organization's status and the review queue", () => {
  it("shows the seller its status and next step, takes the business details; the admin denies; the seller reads why", async () => {
    const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems);
    contexts.push(context);
    await page.goto("/settings?mode=live");
    await page.getByTestId("org-status").filter({ hasText: "Created" }).waitFor();
    expect(await page.getByTestId("next-step").textContent()).toContain("Submit your business details");
    expect(await page.getByRole("link", { name: "Review organizations" }).count()).toBe(0);
    await checkPage(page, "settings-status-created");
    await page.getByLabel("About your business").fill("We make invoicing tools.");
    await page.getByLabel("What you sell").fill("A hosted invoicing app, monthly.");
    await page.getByLabel("How you will use till").fill("Subscriptions for small businesses.");
    await page.getByRole("button", { name: "Submit business details" }).click();
    await page.getByTestId("org-status").filter({ hasText: "Under review" }).waitFor();

    const adminSide = await signedInPage(browser, server.url, admin.user.email, problems);
    contexts.push(adminSide.context);
    await adminSide.page.goto("/settings?mode=live");
    await adminSide.page.getByRole("link", { name: "Review organizations" }).click();
    await adminSide.page.getByRole("heading", { name: new RegExp(seller.slug) }).waitFor();
    await checkPage(adminSide.page, "admin-review-queue");
    await adminSide.page.getByLabel("Reason (shown to the seller)").fill("Tell us who your customers are.");
    await adminSide.page.getByRole("button", { name: `Deny ${seller.slug}` }).click();
    await adminSide.page.getByText(`${seller.slug} is denied.`).waitFor();

    await page.reload();
    await page.getByTestId("org-status").filter({ hasText: "Denied" }).waitFor();
    await page.getByRole("note").filter({ hasText: "Tell us who your customers are." }).waitFor();
    await checkPage(page, "settings-status-denied");
    expect(problems).toEqual([]);
  }, 120_000);
});
