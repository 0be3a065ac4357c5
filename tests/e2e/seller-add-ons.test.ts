// Add-ons from the seller app in a real Chromium against the real server (live side): the product editor offers a
// product as an add-on of a base product (a yearly one is refused by the server, its message shown at the add-on),
// read back through the API; on a subscription the change dialog adds the add-on with a quantity (the preview's
// amount equal to the order then billed, to the cent), changes its quantity now and then from the next period
// (shown as a scheduled change), and removes it — the subscription's items read through the API after each. The
// page lists the items. Desktop and phone, axe-clean, photographed.
import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Locator, Page } from "playwright-core";
import { subscription } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";

const DAY = 86_400_000;
const pages = useSellerPages("add-ons");
let subId = "";
let teamId = "";
let storageId = "";
let yearlyId = "";

interface WireSub {
  items: Array<{ product_id: string; quantity: number; amount: number }>;
  pending_update: { items: Array<{ product_id: string; quantity: number }> | null } | null;
}

const usd = (minor: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);
const flat = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
const api = async (method: string, path: string, body?: unknown) => {
  const { server, seller } = pages;
  return rawRequest(server.url, seller.token, method, path, body);
};
const subNow = async () => (await api("GET", `/v1/subscriptions/${subId}`)).body as unknown as WireSub;
const itemsNow = async () => (await subNow()).items.map((i) => [i.product_id, i.quantity]);
/** The amount of a ledger's line (its <dd> after the <dt>). */
const line = async (scope: Page | Locator, testId: string, label: string) =>
  flat(await scope.getByTestId(testId).locator("dt", { hasText: new RegExp(`^${label}$`) }).locator("xpath=following-sibling::dd[1]").textContent());

beforeAll(async () => {
  const { server, seller } = pages;
  // taxed in France, changes billed now unless the dialog says otherwise
  await api("PATCH", `/v1/organizations/${seller.organizationId}`, {
    country: "FR",
    tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false },
    subscription_settings: { allow_multiple_subscriptions: true, allow_customer_updates: true, proration_behavior: "invoice" },
  });
  const make = (name: string, interval: "month" | "year", amount: number) =>
    seller.sdk.products.create({ name, recurringInterval: interval, prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }] });
  const [team, storage, yearly] = [await make("Team", "month", 2000), await make("Storage", "month", 500), await make("Archive", "year", 9000)];
  [teamId, storageId, yearlyId] = [team.id, storage.id, yearly.id];
  const checkout = await seller.sdk.checkouts.create({ products: [team.id] });
  const confirmed = await pay(server, checkout, { customerEmail: uniqueBuyer("add-ons") });
  const [sub] = (await seller.sdk.subscriptions.list({ customerId: confirmed.customerId ?? "" })).result.items;
  subId = sub?.id ?? "";
  // ten days into a thirty-day period: a change now prorates twenty days
  const start = new Date(Date.now() - 10 * DAY);
  await server.database.db.update(subscription).set({ currentPeriodStart: start, currentPeriodEnd: new Date(start.getTime() + 30 * DAY), startedAt: start }).where(eq(subscription.id, subId));
}, 180_000);

/** In the product editor: chooses `id` in the add-ons' chooser and offers it. */
async function offer(page: Page, id: string) {
  const section = page.getByRole("region", { name: "Add-ons" });
  const select = section.getByLabel("Add-on to offer", { exact: true });
  await select.locator(`option[value="${id}"]`).waitFor({ state: "attached" });
  await select.selectOption(id);
  await section.getByRole("button", { name: "Offer this add-on" }).click();
}

/** Opens the change dialog, lets `fill` set its fields, picks `proration`, and waits for the preview. */
async function review(page: Page, proration: string, fill: (dialog: Locator) => Promise<void>) {
  await page.getByRole("button", { name: "Change plan, seats or add-ons…" }).click();
  const dialog = page.getByRole("dialog", { name: "Change Team" });
  await dialog.getByRole("group", { name: "Add-ons" }).waitFor();
  await fill(dialog);
  await dialog.getByLabel("Proration").selectOption(proration);
  await dialog.getByRole("button", { name: "Review the change" }).click();
  await dialog.getByRole("button", { name: "Confirm the change" }).waitFor();
  return dialog;
}

describe("add-ons in the seller app", () => {
  it("desktop: the editor offers an add-on (a yearly one refused at the add-on), read back through the API", async () => {
    const page = await pages.open(1280);
    await page.goto(`/products/${teamId}/edit?mode=live`);
    await page.getByRole("heading", { level: 1, name: "Edit Team" }).waitFor();
    await offer(page, yearlyId);
    await page.getByRole("list", { name: "Add-ons offered" }).getByText("Archive ($90.00 / year)").waitFor();
    await page.getByRole("button", { name: "Save changes" }).click();
    const section = page.getByRole("region", { name: "Add-ons" });
    await section.getByText("Archive: An add-on renews with its subscription: it must have the same recurring interval as the product.").waitFor();
    await page.getByText("Not saved: see the add-ons.").waitFor();
    await checkPage(page, "desktop-product-add-on-refused");
    expect((await api("GET", `/v1/products/${teamId}`)).body.add_on_ids).toEqual([]);

    await section.getByRole("button", { name: "Remove the add-on Archive" }).click();
    await offer(page, storageId);
    await page.getByRole("list", { name: "Add-ons offered" }).getByText("Storage ($5.00 / month)").waitFor();
    await checkPage(page, "desktop-product-add-ons-edit");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { level: 1, name: "Team" }).waitFor();
    await page.locator(".toast").getByText("Saved Team.").waitFor();
    await page.getByTestId("add-ons").getByRole("link", { name: "Storage ($5.00 / month)" }).waitFor();
    await checkPage(page, "desktop-product-add-ons");
    expect((await api("GET", `/v1/products/${teamId}`)).body.add_on_ids).toEqual([storageId]);
    // the editor reads them back
    await page.goto(`/products/${teamId}/edit?mode=live`);
    await page.getByRole("list", { name: "Add-ons offered" }).getByText("Storage ($5.00 / month)").waitFor();
    expect(pages.problems).toEqual([]);
  }, 180_000);

  it("desktop: a subscription's add-on added as previewed, requantified now and from the next period, removed", async () => {
    const page = await pages.open(1280);
    await page.goto(`/subscriptions/${subId}?mode=live`);
    await page.getByRole("heading", { level: 1, name: /^Team · / }).waitFor();
    const items = page.getByRole("region", { name: "The subscription's items" });
    await items.getByRole("cell", { name: "Plan" }).waitFor();

    // added, three of them, billed now: the preview's total is the order's
    let dialog = await review(page, "invoice", async (d) => {
      const add = d.getByLabel("Add an add-on");
      await add.locator(`option[value="${storageId}"]`).waitFor({ state: "attached" });
      await add.selectOption(storageId);
      await d.getByLabel("Its quantity").fill("3");
    });
    const total = await line(dialog, "billed-now", "Total");
    expect(await line(dialog, "next-renewal", "Total")).toBe(usd(4200)); // (2000 + 3 × 500) with 20% tax
    await checkPage(page, "desktop-subscription-add-on-preview");
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await page.locator(".toast").getByText(`Changed the add-ons of Team; billed ${total} now.`).waitFor();
    expect(await itemsNow()).toEqual([[storageId, 3]]);
    const [order] = (await pages.seller.sdk.orders.list({ subscriptionId: subId, sorting: ["-created_at"], limit: 10 })).result.items;
    expect(order?.billingReason).toBe("subscription_update");
    expect(total).toBe(usd(order?.totalAmount ?? -1));
    await items.getByRole("cell", { name: "Storage" }).waitFor();
    expect(flat(await items.textContent())).toContain(usd(1500));
    await checkPage(page, "desktop-subscription-items");

    // five of them now, the difference carried to the renewal
    dialog = await review(page, "prorate", async (d) => {
      await d.getByLabel("Quantity of Storage").fill("5");
      await checkPage(page, "desktop-subscription-add-on-fields");
    });
    await dialog.getByRole("heading", { name: "Carried to the next renewal" }).waitFor();
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await page.locator(".toast").getByText("Changed the add-ons of Team; the difference is carried to the next renewal.").waitFor();
    await expect.poll(itemsNow).toEqual([[storageId, 5]]);

    // two of them from the next period: nothing billed now, a scheduled change on the page
    dialog = await review(page, "next_period", (d) => d.getByLabel("Quantity of Storage").fill("2"));
    await dialog.getByText("Nothing is billed now.").waitFor();
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    const pending = page.getByRole("region", { name: "Scheduled change" });
    await pending.getByText(/bills add-ons: Storage × 2\.$/).waitFor();
    const waiting = await subNow();
    expect([waiting.items.map((i) => i.quantity), waiting.pending_update?.items?.map((i) => [i.product_id, i.quantity])]).toEqual([[5], [[storageId, 2]]]);
    await checkPage(page, "desktop-subscription-add-on-scheduled");

    // removed now: the scheduled add-ons are replaced too
    dialog = await review(page, "invoice", async (d) => {
      await d.getByText("(a scheduled change)").waitFor();
      await d.getByLabel("Remove Storage").check();
    });
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(itemsNow).toEqual([]);
    expect((await subNow()).pending_update).toBeNull();
    await pending.waitFor({ state: "hidden" });
    await items.getByRole("cell", { name: "Storage" }).waitFor({ state: "hidden" });
    expect(pages.problems).toEqual([]);
  }, 240_000);

  it("phone: the items, the dialog's add-ons and the preview fit and pass axe; Escape changes nothing", async () => {
    const page = await pages.open(390);
    await page.goto(`/subscriptions/${subId}?mode=live`);
    await page.getByRole("region", { name: "The subscription's items" }).waitFor();
    await checkPage(page, "phone-subscription-items");
    const dialog = await review(page, "invoice", async (d) => {
      const add = d.getByLabel("Add an add-on");
      await add.locator(`option[value="${storageId}"]`).waitFor({ state: "attached" });
      await add.selectOption(storageId);
      await checkPage(page, "phone-subscription-add-on-fields");
    });
    await dialog.getByTestId("next-renewal").waitFor();
    await checkPage(page, "phone-subscription-add-on-preview");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await itemsNow()).toEqual([]);
    await page.goto(`/products/${teamId}?mode=live`);
    await page.getByTestId("add-ons").waitFor();
    await checkPage(page, "phone-product-add-ons");
    expect(pages.problems).toEqual([]);
  }, 180_000);
});
