// The seller app's customers and subscriptions lists in a real Chromium against the real server: empty lists on
// the live side that teach the next step (with the `till` command), then on the sandbox side the lists sorted by
// their columns' buttons (the server sorts), searched, filtered, and a row's menu: a customer's id copied, a
// subscription canceled at the period's end after its confirmation (Escape first changes nothing), taken back,
// and canceled again from its own page, each with its toast; at a desktop's width and a phone's. Every page
// passes axe and is photographed.
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { Polar } from "@polar-sh/sdk";
import { sdkFor } from "../helpers/seller.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";

const pages = useSellerPages("customers", { permissions: ["clipboard-read", "clipboard-write"] });
const { problems } = pages;
const open = (width: number) => pages.open(width);
let sandbox: Polar;
const subs = new Map<string, string>();

beforeAll(async () => {
  sandbox = sdkFor(pages.server, await pages.seller.createSandboxKey());
});

const toast = (page: Page, text: string) => page.locator(".toast").getByText(text).waitFor();
const flat = (s: string) => s.replace(/\s+/g, " ").trim();
/** The emails in the list's order (the table's region holds one row per item, and the header). */
const column = (page: Page, region: string, n: number) =>
  page.getByRole("region", { name: region }).locator(`tbody tr td:nth-child(${n})`).allInnerTexts();

describe("the seller app's customers and subscriptions", () => {
  it("desktop: empty lists teach the next step; sorted, searched, filtered; copy an id; cancel at the period's end", async () => {
    const page = await open(1280);
    await page.goto("/customers?mode=live");
    await page.getByText("No customers yet.").waitFor();
    await page.getByText("till customers create --email ada@example.com --name Ada").waitFor();
    await checkPage(page, "desktop-customers-empty");
    await page.goto("/subscriptions?mode=live");
    await page.getByText("No subscriptions yet.").waitFor();
    await page.getByText("till checkout-links create --product <product id>").waitFor();
    expect(await page.getByRole("link", { name: "Create a checkout link" }).getAttribute("href")).toMatch(/^\/checkout-links\?/);
    await checkPage(page, "desktop-subscriptions-empty");

    const plan = await sandbox.products.create({ name: "Plan", recurringInterval: "month", prices: [{ amountType: "free" }] });
    for (const [email, name] of [["mia@example.com", "Mia"], ["amy@example.com", "Zoe"], ["zed@example.com", "Bea"]] as const) {
      const c = await sandbox.customers.create({ email, name });
      subs.set(email, (await sandbox.subscriptions.create({ productId: plan.id, customerId: c.id })).id);
    }

    // customers: newest first, then by email by its column's button, then by name descending
    await page.goto("/customers?mode=sandbox");
    await expect.poll(() => column(page, "Customers", 1)).toEqual(["zed@example.com", "amy@example.com", "mia@example.com"]);
    await page.getByRole("button", { name: "Email: sort ascending" }).click();
    await page.waitForURL(/sorting=email/);
    await expect.poll(() => column(page, "Customers", 1)).toEqual(["amy@example.com", "mia@example.com", "zed@example.com"]);
    expect(await page.getByRole("columnheader", { name: /Email/ }).getAttribute("aria-sort")).toBe("ascending");
    await page.getByRole("button", { name: "Name: sort ascending" }).click();
    await page.waitForURL(/sorting=name/);
    await expect.poll(() => column(page, "Customers", 2)).toEqual(["Bea", "Mia", "Zoe"]);
    await page.getByRole("button", { name: "Name: sort descending" }).click();
    await page.waitForURL(/sorting=-name/);
    await expect.poll(() => column(page, "Customers", 2)).toEqual(["Zoe", "Mia", "Bea"]);
    await checkPage(page, "desktop-customers");
    // search keeps the order; the row's menu copies the id
    await page.getByLabel("Search by email or name").fill("mia");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/query=mia/);
    expect(new URL(page.url()).searchParams.get("sorting")).toBe("-name");
    await expect.poll(() => column(page, "Customers", 1)).toEqual(["mia@example.com"]);
    await page.getByRole("button", { name: "Actions for mia@example.com" }).click();
    await page.getByRole("menuitem", { name: "Copy id" }).click();
    await toast(page, "Copied the id of mia@example.com.");
    const mia = (await sandbox.customers.list({ email: "mia@example.com" })).result.items[0];
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(mia?.id);
    await page.getByRole("button", { name: "Actions for mia@example.com" }).click();
    await page.getByRole("menuitem", { name: "Open" }).click();
    await page.getByRole("heading", { level: 1, name: "mia@example.com" }).waitFor();
    await page.getByRole("region", { name: "The customer's subscriptions" }).getByRole("row", { name: /Plan Active \$0\.00 \/ month/ }).waitFor();
    await page.getByRole("button", { name: "Copy id" }).click();
    await toast(page, "Copied the customer's id.");
    await checkPage(page, "desktop-customer");
    await page.goto("/customers?mode=sandbox&query=nobody");
    await page.getByText("No customer matches “nobody”.").waitFor();

    // subscriptions: by customer, ascending then descending
    await page.goto("/subscriptions?mode=sandbox");
    await page.getByRole("button", { name: "Customer: sort ascending" }).click();
    await page.waitForURL(/sorting=customer/);
    await expect.poll(() => column(page, "Subscriptions", 2)).toEqual(["amy@example.com", "mia@example.com", "zed@example.com"]);
    await page.getByRole("button", { name: "Customer: sort descending" }).click();
    await page.waitForURL(/sorting=-customer/);
    await expect.poll(() => column(page, "Subscriptions", 2)).toEqual(["zed@example.com", "mia@example.com", "amy@example.com"]);
    await checkPage(page, "desktop-subscriptions");

    // cancel at the period's end from the row's menu: Escape changes nothing, the confirmation does
    const amy = subs.get("amy@example.com") ?? "";
    const menu = page.getByRole("button", { name: "Actions for Plan of amy@example.com" });
    await menu.click();
    await page.getByRole("menuitem", { name: "Cancel at period end…" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel Plan at the period's end?" });
    await dialog.waitFor();
    await dialog.getByText(/amy@example\.com keeps access until \d{4}-\d\d-\d\d/).waitFor();
    await checkPage(page, "desktop-subscriptions-cancel-dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await sandbox.subscriptions.get({ id: amy })).cancelAtPeriodEnd).toBe(false);
    await menu.click();
    await page.getByRole("menuitem", { name: "Cancel at period end…" }).click();
    await dialog.getByRole("button", { name: "Yes, cancel at period end" }).click();
    await toast(page, "Canceled amy@example.com's Plan: it ends on");
    expect((await sandbox.subscriptions.get({ id: amy })).cancelAtPeriodEnd).toBe(true);
    await expect.poll(async () => flat(await page.getByRole("row", { name: /amy@example\.com/ }).innerText())).toMatch(/Active, ends at period end/);

    // the filters and a search by customer
    await page.getByRole("navigation", { name: "Show" }).getByRole("link", { name: "Ending at period end" }).click();
    await page.waitForURL(/show=canceling/);
    await expect.poll(() => column(page, "Subscriptions", 2)).toEqual(["amy@example.com"]);
    await page.getByRole("navigation", { name: "Show" }).getByRole("link", { name: "All" }).click();
    await page.getByLabel("Search by customer email or name").fill("Bea");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/query=Bea/);
    await expect.poll(() => column(page, "Subscriptions", 2)).toEqual(["zed@example.com"]);
    expect(problems).toEqual([]);
  }, 180_000);

  it("phone: the lists as cards; a row's menu takes a cancellation back; the subscription's page cancels after asking", async () => {
    const page = await open(375);
    await page.goto("/customers?mode=sandbox");
    await page.getByRole("button", { name: "Actions for amy@example.com" }).waitFor();
    await checkPage(page, "phone-customers");
    await page.goto("/subscriptions?mode=sandbox");
    const menu = page.getByRole("button", { name: "Actions for Plan of amy@example.com" });
    await menu.click();
    await page.getByRole("menuitem", { name: "Keep it renewing" }).click();
    await toast(page, "amy@example.com's Plan renews again.");
    expect((await sandbox.subscriptions.get({ id: subs.get("amy@example.com") ?? "" })).cancelAtPeriodEnd).toBe(false);
    await checkPage(page, "phone-subscriptions");
    // the subscription's own page asks once more too
    await menu.click();
    await page.getByRole("menuitem", { name: "Open" }).click();
    await page.getByRole("heading", { level: 1, name: "Plan · amy@example.com" }).waitFor();
    await page.getByRole("button", { name: "Cancel at the period's end…" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel Plan at the period's end?" });
    await dialog.waitFor();
    await checkPage(page, "phone-subscription-cancel-dialog");
    await dialog.getByRole("button", { name: "Yes, cancel at period end" }).click();
    await toast(page, "It ends on");
    await page.getByText("Active, ends at the period's end", { exact: true }).waitFor();
    expect((await sandbox.subscriptions.get({ id: subs.get("amy@example.com") ?? "" })).cancelAtPeriodEnd).toBe(true);
    await page.getByRole("link", { name: "All subscriptions" }).click();
    await page.getByRole("heading", { level: 1, name: "Subscriptions" }).waitFor();
    await page.goto("/subscriptions?mode=live");
    await page.getByText("No subscriptions yet.").waitFor();
    await checkPage(page, "phone-subscriptions-empty");
    expect(problems).toEqual([]);
  }, 120_000);
});
