// The seller app's discounts and checkout links in a real Chromium against the real server: empty lists on the
// live side that teach the next step (with the `till` command); on the sandbox side a discount made on its form
// page (a fixed amount in euros, for three months), edited, searched and sorted, its code copied, and deleted after
// its confirmation (Escape first changes nothing); a checkout link made for two products with a discount, its URL
// copied, its checkout previewed, edited, found by the product it sells, and deleted from a row's menu. Each action
// is read back through the SDK; at a desktop's width and a phone's, every page passes axe and is photographed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Polar } from "@polar-sh/sdk";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
let sandbox: Polar;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchForPages()]);
  seller = await createSeller(server, "catalog");
  sandbox = sdkFor(server, await seller.createSandboxKey());
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

async function open(width: number): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems, {
    viewport: { width, height: 900 },
    permissions: ["clipboard-read", "clipboard-write"],
  });
  contexts.push(context);
  return page;
}

const toast = (page: Page, text: string) => page.locator(".toast").getByText(text).first().waitFor();
const column = (page: Page, region: string, n: number) =>
  page.getByRole("region", { name: region }).locator(`tbody tr td:nth-child(${n})`).allInnerTexts();
const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

describe("the seller app's discounts and checkout links", () => {
  it("desktop: discounts made, edited, sorted, searched, copied and deleted in the page", async () => {
    const page = await open(1280);
    await page.goto("/discounts?mode=live");
    await page.getByText("No discounts yet.").waitFor();
    await page.getByText('till discounts create "Launch" --percent 25 --code LAUNCH25').waitFor();
    await checkPage(page, "desktop-discounts-empty");

    await sandbox.discounts.create({ name: "Alpha", code: "ALPHA10", type: "percentage", basisPoints: 1000, duration: "once" });
    await page.goto("/discounts?mode=sandbox");
    await page.getByRole("link", { name: "New discount" }).click();
    await page.getByRole("heading", { level: 1, name: "New discount" }).waitFor();
    await checkPage(page, "desktop-discount-new");
    await page.getByLabel("Name", { exact: true }).fill("Winter");
    await page.getByLabel("Code (optional)").fill("WINTER5");
    await page.getByLabel("Kind").selectOption({ label: "Fixed amount off" });
    await page.getByLabel("Amount off").fill("5.00");
    await page.getByLabel("Currency").fill("eur");
    await page.getByLabel("On a subscription, it applies").selectOption({ label: "For some months" });
    await page.getByLabel("Months").fill("3");
    await page.getByLabel("Most redemptions (optional)").fill("50");
    await page.getByRole("button", { name: "Create discount" }).click();
    await page.getByRole("heading", { level: 1, name: "Winter" }).waitFor();
    await toast(page, "Created Winter.");
    const made = (await sandbox.discounts.list({ query: "Winter" })).result.items[0];
    expect(made).toMatchObject({ name: "Winter", code: "WINTER5", type: "fixed", amount: 500, currency: "eur", duration: "repeating", durationInMonths: 3, maxRedemptions: 50 });
    await page.getByRole("button", { name: "Copy the code" }).click();
    await toast(page, "Copied the code WINTER5.");
    expect(await clipboard(page)).toBe("WINTER5");
    await checkPage(page, "desktop-discount");

    // edit: the name and the last day
    await page.getByRole("link", { name: "Edit discount" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Winter sale");
    await page.getByLabel("Last day it applies (optional)").fill("2030-02-28");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { level: 1, name: "Winter sale" }).waitFor();
    await toast(page, "Saved Winter sale.");
    const edited = await sandbox.discounts.get({ id: made?.id ?? "" });
    expect([edited.name, edited.endsAt?.toISOString().slice(0, 10)]).toEqual(["Winter sale", "2030-02-28"]);

    // the list: sorted by name, searched by code
    await page.getByRole("link", { name: "← Discounts" }).click();
    await page.getByRole("button", { name: "Name: sort ascending" }).click();
    await page.waitForURL(/sorting=name/);
    await expect.poll(() => column(page, "Discounts", 1)).toEqual(["Alpha", "Winter sale"]);
    await page.getByRole("button", { name: "Name: sort descending" }).click();
    await expect.poll(() => column(page, "Discounts", 1)).toEqual(["Winter sale", "Alpha"]);
    await checkPage(page, "desktop-discounts");
    await page.getByLabel("Search by name or code").fill("alpha");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/query=alpha/);
    await expect.poll(() => column(page, "Discounts", 1)).toEqual(["Alpha"]);

    // delete from the row's menu: Escape keeps it, the confirmation deletes it
    const menu = page.getByRole("button", { name: "Actions for Alpha" });
    await menu.click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete Alpha?" });
    await dialog.waitFor();
    await checkPage(page, "desktop-discounts-delete-dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await sandbox.discounts.list({ query: "Alpha" })).result.items).toHaveLength(1);
    await menu.click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    await dialog.getByRole("button", { name: "Yes, delete it" }).click();
    await toast(page, "Deleted Alpha.");
    expect((await sandbox.discounts.list({ query: "Alpha" })).result.items).toHaveLength(0);
    expect(problems).toEqual([]);
  }, 180_000);

  it("desktop: a checkout link for two products with a discount, copied, previewed, edited, found by product and deleted", async () => {
    const page = await open(1280);
    await page.goto("/checkout-links?mode=live");
    await page.getByText("No checkout links yet.").waitFor();
    await page.getByText("till checkout-links create --product <product id>").waitFor();
    await checkPage(page, "desktop-checkout-links-empty");

    await sandbox.products.create({ name: "Starter", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] });
    await sandbox.products.create({ name: "Team", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 2900, priceCurrency: "usd" }] });
    await sandbox.discounts.create({ name: "Friends", type: "percentage", basisPoints: 2000, duration: "once" });
    await page.goto("/checkout-links/new?mode=sandbox");
    const add = page.getByLabel("Add a product", { exact: true });
    await add.selectOption({ label: "Starter" });
    await page.getByRole("list", { name: "Products the link sells" }).getByText("Starter").waitFor();
    await add.selectOption({ label: "Team" });
    await page.getByRole("list", { name: "Products the link sells" }).getByText("Team").waitFor();
    await page.getByLabel("Label (optional)").fill("Newsletter");
    await page.getByLabel("Discount applied", { exact: true }).selectOption({ label: "Friends" });
    await page.getByLabel("Ask for the billing address").check();
    await checkPage(page, "desktop-checkout-link-new");
    await page.getByRole("button", { name: "Create checkout link" }).click();
    await page.getByRole("heading", { level: 1, name: "Newsletter" }).waitFor();
    await toast(page, "Created the checkout link");
    const link = (await sandbox.checkoutLinks.list({})).result.items[0];
    expect(link?.products.map((p) => p.name)).toEqual(["Starter", "Team"]);
    expect([link?.label, link?.discount?.name, link?.requireBillingAddress]).toEqual(["Newsletter", "Friends", true]);
    // the URL copied; the preview shows what the buyer meets
    await page.getByRole("button", { name: "Copy URL" }).click();
    await toast(page, "Copied the link's URL.");
    expect(await clipboard(page)).toBe(link?.url);
    const preview = page.getByRole("region", { name: "Preview of the checkout" });
    await preview.getByText("$29.00 / month").waitFor();
    await preview.getByText("Discount applied: Friends: 20 % off").waitFor();
    await preview.getByText("Asks for the billing address").waitFor();
    expect(await preview.getByRole("link", { name: "Open the checkout in a new tab" }).getAttribute("href")).toBe(link?.url);
    await checkPage(page, "desktop-checkout-link");

    // edit: drop a product, a page after payment
    await page.getByRole("link", { name: "Edit link" }).click();
    await page.getByRole("button", { name: "Remove Starter" }).click();
    await page.getByLabel("After payment, go to (optional)").fill("https://example.com/thanks");
    await page.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Saved the checkout link.");
    const edited = await sandbox.checkoutLinks.get({ id: link?.id ?? "" });
    expect([edited.products.map((p) => p.name), edited.successUrl]).toEqual([["Team"], "https://example.com/thanks"]);

    // the list: narrowed by a product picked from a select that keeps it chosen; its row's menu copies the URL and
    // deletes after asking
    await page.goto("/checkout-links?mode=sandbox");
    const byProduct = page.getByRole("group", { name: "Filters" }).getByLabel("Product", { exact: true });
    await byProduct.selectOption({ label: "Starter" });
    await page.waitForURL(/product_id=/);
    await page.getByText("No checkout link sells this product.").waitFor();
    await expect.poll(() => byProduct.locator("option:checked").innerText()).toBe("Starter");
    await byProduct.selectOption({ label: "Team" });
    await page.getByRole("button", { name: "Actions for Newsletter" }).waitFor();
    await byProduct.selectOption({ label: "Any product" });
    await page.waitForURL((u) => !u.searchParams.has("product_id"));
    await page.getByRole("button", { name: "Actions for Newsletter" }).click();
    await page.getByRole("menuitem", { name: "Copy URL" }).click();
    await toast(page, "Copied the link's URL.");
    await checkPage(page, "desktop-checkout-links");
    await page.getByRole("button", { name: "Actions for Newsletter" }).click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    await page.getByRole("dialog", { name: "Delete Newsletter?" }).getByRole("button", { name: "Yes, delete it" }).click();
    await toast(page, "Deleted Newsletter.");
    await page.getByText("No checkout links yet").waitFor();
    expect((await sandbox.checkoutLinks.list({})).result.items).toHaveLength(0);
    expect(problems).toEqual([]);
  }, 180_000);

  it("phone: the lists as cards, a discount deleted from its page after asking, a link's page", async () => {
    const page = await open(375);
    const d = await sandbox.discounts.create({ name: "Phone deal", code: "PHONE", type: "percentage", basisPoints: 1500, duration: "forever" });
    const team = (await sandbox.products.list({ query: "Team" })).result.items[0];
    const link = await sandbox.checkoutLinks.create({ paymentProcessor: "stripe", products: [team?.id ?? ""], label: "Bio" });
    await page.goto("/discounts?mode=sandbox");
    await page.getByRole("button", { name: "Actions for Phone deal" }).waitFor();
    await checkPage(page, "phone-discounts");
    await page.goto("/discounts/new?mode=sandbox");
    await page.getByLabel("Percentage off").waitFor();
    await checkPage(page, "phone-discount-new");
    await page.goto(`/discounts/${d.id}?mode=sandbox`);
    await page.getByRole("button", { name: "Delete the discount" }).click();
    await page.getByRole("dialog", { name: "Delete Phone deal?" }).waitFor();
    await checkPage(page, "phone-discount-delete-dialog");
    await page.getByRole("button", { name: "Yes, delete it" }).click();
    await page.waitForURL(/\/discounts\?/);
    await toast(page, "Deleted the discount.");
    expect(new URL(page.url()).searchParams.has("deleted")).toBe(false);
    await expect(sandbox.discounts.get({ id: d.id })).rejects.toThrow();
    await page.goto("/checkout-links?mode=sandbox");
    await page.getByRole("button", { name: "Actions for Bio" }).waitFor();
    await checkPage(page, "phone-checkout-links");
    await page.goto(`/checkout-links/${link.id}?mode=sandbox`);
    await page.getByRole("region", { name: "Preview of the checkout" }).waitFor();
    await checkPage(page, "phone-checkout-link");
    await page.goto("/checkout-links/new?mode=sandbox");
    await page.getByLabel("Add a product", { exact: true }).waitFor();
    await checkPage(page, "phone-checkout-link-new");
    expect(problems).toEqual([]);
  }, 180_000);

  it("desktop and phone: custom fields made for each kind, filtered, edited and deleted after asking", async () => {
    const page = await open(1280);
    await page.goto("/custom-fields?mode=sandbox");
    await page.getByText("No custom fields yet in the sandbox.").waitFor();
    await page.getByText("till custom-fields create text --name Company --max-length 100").waitFor();
    await checkPage(page, "desktop-custom-fields-empty");
    await page.getByRole("link", { name: "Create your first custom field" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Plan size");
    await page.getByLabel("Type").selectOption({ label: "Choice among options" });
    await page.getByLabel("Options").fill("small = Small team\nlarge = Large team");
    await checkPage(page, "desktop-custom-field-new");
    await page.getByRole("button", { name: "Create custom field" }).click();
    await toast(page, "Created the custom field.");
    await sandbox.customFields.create({ type: "number", name: "Seats", slug: "seats", properties: { ge: 1 } });
    await page.reload();
    await page.getByLabel("Type", { exact: true }).selectOption({ label: "Choice among options" });
    await page.waitForURL(/type=select/);
    await expect.poll(() => column(page, "Custom fields", 1)).toEqual(["Plan size"]);
    const made = (await sandbox.customFields.list({ query: "Plan" })).result.items[0];
    expect([made?.slug, made?.type]).toEqual(["plan_size", "select"]);
    expect(made?.properties).toMatchObject({ options: [{ value: "small", label: "Small team" }, { value: "large", label: "Large team" }] });
    await page.getByRole("link", { name: "Plan size" }).click();
    await page.getByLabel("Label (optional)").fill("How big is your team?");
    await page.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Saved the custom field.");
    expect((await sandbox.customFields.get({ id: made?.id ?? "" })).properties).toMatchObject({ formLabel: "How big is your team?" });
    await page.goto("/custom-fields?mode=sandbox");
    await page.getByRole("button", { name: "Actions for Seats" }).click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    await page.getByRole("dialog", { name: "Delete Seats?" }).getByRole("button", { name: "Yes, delete it" }).click();
    await toast(page, "Deleted Seats.");
    expect((await sandbox.customFields.list({ query: "Seats" })).result.items).toHaveLength(0);
    await checkPage(page, "desktop-custom-fields");
    const phone = await open(375);
    await phone.goto("/custom-fields?mode=sandbox");
    await phone.getByRole("button", { name: "Actions for Plan size" }).waitFor();
    await checkPage(phone, "phone-custom-fields");
    await phone.goto("/custom-fields/new?mode=sandbox");
    await phone.getByLabel("Name", { exact: true }).waitFor();
    await checkPage(phone, "phone-custom-field-new");
    expect(problems).toEqual([]);
  }, 180_000);
});
