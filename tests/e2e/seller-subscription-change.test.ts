// A subscription's plan changed from the seller app in a real Chromium against the real server: the change dialog
// shows what it bills before anything changes (the order billed now with its tax, and the next renewal), Back and
// Cancel change nothing, Confirm changes the plan, and the order billed equals the preview to the cent (read back
// through the SDK); the page then shows the upcoming renewal of the new plan and the timeline. At a desktop's
// width and a phone's; axe-clean and photographed throughout.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { subscription } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";
import { startServer, type TestServer } from "../helpers/server.js";

const DAY = 86_400_000;
let server: TestServer;
let browser: Browser;
let seller: Seller;
const contexts: BrowserContext[] = [];
const problems: string[] = [];
let subId = "";
let teamId = "";
let starterId = "";

const usd = (minor: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);
const flat = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
/** The amount of a ledger's line (its <dd> after the <dt>). */
const line = async (page: Page, testId: string, label: string) =>
  flat(await page.getByTestId(testId).locator("dt", { hasText: new RegExp(`^${label}$`) }).locator("xpath=following-sibling::dd[1]").textContent());

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchForPages()]);
  seller = await createSeller(server, "sub-change");
  // taxed in France, changes billed now
  await rawRequest(server.url, seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, {
    country: "FR",
    tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false },
    subscription_settings: { allow_multiple_subscriptions: true, allow_customer_updates: true, proration_behavior: "invoice" },
  });
  const starter = await seller.sdk.products.create({ name: "Starter", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
  const team = await seller.sdk.products.create({ name: "Team", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "usd" }] });
  starterId = starter.id;
  teamId = team.id;
  const checkout = await seller.sdk.checkouts.create({ products: [starter.id] });
  const confirmed = await pay(server, checkout, { customerEmail: uniqueBuyer("sub-change") });
  const [sub] = (await seller.sdk.subscriptions.list({ customerId: confirmed.customerId ?? "" })).result.items;
  subId = sub?.id ?? "";
  // ten days into a thirty-day period: the change prorates twenty days
  const start = new Date(Date.now() - 10 * DAY);
  await server.database.db.update(subscription).set({ currentPeriodStart: start, currentPeriodEnd: new Date(start.getTime() + 30 * DAY), startedAt: start }).where(eq(subscription.id, subId));
}, 180_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

async function open(width: number): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems, { viewport: { width, height: 900 } });
  contexts.push(context);
  return page;
}

describe("changing a subscription's plan in the seller app", () => {
  it("desktop: the dialog shows what the change bills, Back and Cancel change nothing, Confirm bills exactly that", async () => {
    const page = await open(1280);
    await page.goto(`/subscriptions/${subId}?mode=live`);
    await page.getByRole("heading", { level: 1, name: /^Starter · / }).waitFor();
    await page.getByTestId("upcoming").waitFor();
    expect(await line(page, "upcoming", "Total")).toBe(usd(1200)); // Starter with 20% tax
    await checkPage(page, "desktop-subscription");

    const choose = async () => {
      await page.getByRole("button", { name: "Change plan or seats…" }).click();
      const dialog = page.getByRole("dialog", { name: "Change Starter" });
      await dialog.waitFor();
      const select = dialog.getByLabel("New plan", { exact: true });
      await select.locator("option", { hasText: "Team" }).waitFor({ state: "attached" });
      await select.selectOption(teamId);
      await dialog.getByRole("button", { name: "Review the change" }).click();
      await dialog.getByTestId("billed-now").waitFor();
      return dialog;
    };
    // Cancel: nothing changes
    let dialog = await choose();
    await dialog.getByRole("button", { name: "Back" }).click();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await seller.sdk.subscriptions.get({ id: subId })).productId).toBe(starterId);

    dialog = await choose();
    const total = await line(page, "billed-now", "Total");
    const tax = await line(page, "billed-now", "Tax");
    expect(flat(await dialog.textContent())).toContain("Next renewal");
    expect(await line(page, "next-renewal", "Total")).toBe(usd(4800)); // Team with 20% tax
    await checkPage(page, "desktop-subscription-change-preview");
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await page.locator(".toast").getByText(`Changed: Team; billed ${total} now.`).waitFor();
    await page.getByRole("heading", { level: 1, name: /^Team · / }).waitFor();

    // read back: the plan, and the order billed is the preview's to the cent
    expect((await seller.sdk.subscriptions.get({ id: subId })).productId).toBe(teamId);
    const [change] = (await seller.sdk.orders.list({ subscriptionId: subId, sorting: ["-created_at"], limit: 10 })).result.items;
    expect(change?.billingReason).toBe("subscription_update");
    expect(total).toBe(usd(change?.totalAmount ?? -1));
    expect(tax).toBe(usd(change?.taxAmount ?? -1));
    await expect.poll(async () => line(page, "upcoming", "Total")).toBe(usd(4800));
    // the timeline as the page reads it anew: the change's event
    await page.reload();
    await page.getByRole("list", { name: "What happened to this subscription" }).getByText("Subscription changed", { exact: true }).first().waitFor();
    await checkPage(page, "desktop-subscription-changed");
    expect(problems).toEqual([]);
  }, 180_000);

  it("phone: the page, the dialog and its preview fit and pass axe", async () => {
    const page = await open(375);
    await page.goto(`/subscriptions/${subId}?mode=live`);
    await page.getByTestId("upcoming").waitFor();
    await checkPage(page, "phone-subscription");
    await page.getByRole("button", { name: "Change plan or seats…" }).click();
    const dialog = page.getByRole("dialog", { name: "Change Team" });
    const select = dialog.getByLabel("New plan", { exact: true });
    await select.locator("option", { hasText: "Starter" }).waitFor({ state: "attached" });
    await select.selectOption(starterId);
    await dialog.getByRole("button", { name: "Review the change" }).click();
    await dialog.getByTestId("next-renewal").waitFor();
    await checkPage(page, "phone-subscription-change-preview");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await seller.sdk.subscriptions.get({ id: subId })).productId).toBe(teamId);
    expect(problems).toEqual([]);
  }, 120_000);
});
