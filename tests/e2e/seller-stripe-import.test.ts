// The seller's Import from Stripe page in Chromium, on a sandbox connected to the Stripe stand-in, the worker running:
// reached from the Stripe connection in the settings; a dry run followed until planned, its blocked customer with the
// reason and no Import button; the items filtered by kind; once nothing blocks, Import asked once more and followed
// until imported; then Undo, asked once more, handing the subscription back to Stripe. The page axe-clean at 375 px.
import type Stripe from "stripe";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";
import { peerClient } from "../helpers/stripe-billing-seed.js";
import { startStripeSandbox, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let sandbox: StripeSandbox;
let browser: Browser;
let stripe: Stripe;
let subscriptionId: string;
let nameless: string;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [sandbox, browser] = await Promise.all([startStripeSandbox(), launchForPages()]);
  await sandbox.server.worker.start();
  stripe = peerClient(sandbox.peer);
  const price = await stripe.prices.create({ product_data: { name: "Pro" }, currency: "usd", unit_amount: 1500, recurring: { interval: "month" } });
  const ada = await stripe.customers.create({ email: "ada@example.com", name: "Ada" });
  const card = await stripe.paymentMethods.attach("pm_card_visa", { customer: ada.id });
  await stripe.customers.update(ada.id, { invoice_settings: { default_payment_method: card.id } });
  nameless = (await stripe.customers.create({ name: "Nameless" })).id;
  subscriptionId = (await stripe.subscriptions.create({ customer: ada.id, items: [{ price: price.id }] })).id;
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await sandbox?.close();
});

/** The run's status, as the page's facts say it once the run has settled. */
const settledAs = (page: Page, words: RegExp) => page.locator("dd").filter({ hasText: words }).waitFor({ timeout: 30_000 });

/** Clicks a button that starts a run: the page then loads that run (another `run` in the address). */
async function startRun(page: Page, button: string) {
  const before = new URL(page.url()).searchParams.get("run");
  await page.getByRole("button", { name: button, exact: true }).click();
  await page.waitForURL((u) => u.searchParams.get("run") !== null && u.searchParams.get("run") !== before);
}

describe("Import from Stripe", () => {
  it("plans, shows what blocks, imports once nothing does, and undoes", async () => {
    const { page, context } = await signedInPage(browser, sandbox.server.url, sandbox.seller.user.email, problems);
    contexts.push(context);
    await page.goto("/settings/payments?mode=sandbox");
    await page.getByRole("link", { name: "Import from Stripe" }).click();
    await page.getByRole("heading", { name: "Import from Stripe" }).waitFor();

    await startRun(page, "Start a dry run");
    await settledAs(page, /planned \(dry run/);
    await page.getByRole("heading", { name: "Blocked (1)" }).waitFor();
    await page.getByRole("region", { name: "Blocked items" }).getByText(nameless).waitFor();
    expect(await page.getByRole("button", { name: "Import", exact: true }).count()).toBe(0);
    await checkPage(page, "stripe-import-blocked");

    await page.getByLabel("Kind", { exact: true }).selectOption("subscription");
    await page.getByRole("region", { name: "Items of the import" }).getByText(subscriptionId).waitFor();
    expect(new URL(page.url()).searchParams.get("kind")).toBe("subscription");

    await stripe.customers.update(nameless, { email: "nameless@example.com" });
    await startRun(page, "Start a new dry run");
    await settledAs(page, /planned \(dry run/);
    await page.getByRole("button", { name: "Import", exact: true }).click();
    await page.getByText("1 subscription(s) handed over").waitFor();
    await startRun(page, "Yes, import now");
    await settledAs(page, /^imported$/);
    expect((await stripe.subscriptions.retrieve(subscriptionId)).cancel_at_period_end).toBe(true);

    await page.getByRole("button", { name: "Undo this import" }).click();
    await page.getByRole("button", { name: "Yes, hand them back" }).click();
    await settledAs(page, /^undone/);
    expect((await stripe.subscriptions.retrieve(subscriptionId)).cancel_at_period_end).toBe(false);
    await checkPage(page, "stripe-import-undone");
    expect(problems).toEqual([]);
  }, 120_000);
});
