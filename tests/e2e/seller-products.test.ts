// The seller app's shell and its products section in a real Chromium against the real server: the grouped
// navigation (a side column on a desktop, a Menu on a phone), an empty catalog that teaches the next step, a
// product made on the web for each price kind the API takes (fixed in two currencies and weekly, pay what you
// want, free and daily, per seat in tiers, usage of a meter in tiers with a cap) read back through the SDK, a
// changed price that keeps the product's usage price, sorting, the list filtered by pricing model (one-time, each
// interval, metered, per seat) in the address, and archiving from a row's menu and from the product's page, each
// asked once more. Every page passes axe and is photographed.
import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { sdkFor } from "../helpers/seller.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";

const pages = useSellerPages("products");
const { problems } = pages;
const open = (width: number) => pages.open(width);

/** A toast's text (the toast itself, not the announcement Radix makes of it for screen readers). */
const toast = (page: Page, text: string) => page.locator(".toast").getByText(text).waitFor();
const price = (page: Page, n: number): Locator => page.getByRole("group", { name: `Price ${n}`, exact: true });

interface RawProduct {
  prices: Array<Record<string, unknown>>;
}

/** The API's own answer for a product on the sandbox side (the fields the SDK does not know, like unit_tiers). */
async function rawProduct(id: string): Promise<RawProduct> {
  const res = await fetch(`${pages.server.url}/v1/products/${id}`, { headers: { authorization: `Bearer ${await pages.seller.createSandboxKey()}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as RawProduct;
}

/** Fills the new-product form's name and billing; the prices are the caller's. */
async function newProduct(page: Page, name: string, billing: string): Promise<void> {
  await page.goto("/products/new?mode=sandbox");
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Billing", { exact: true }).selectOption(billing);
}

/** Creates the product on the form and returns its id, once its page says it was created. */
async function create(page: Page, name: string): Promise<string> {
  await page.getByRole("button", { name: "Create product" }).click();
  await page.waitForURL(/\/products\/[0-9a-f-]{36}\?/);
  await page.getByRole("heading", { level: 1, name }).waitFor();
  await toast(page, `Created ${name}.`);
  return new URL(page.url()).pathname.split("/")[2]!;
}

describe("the seller app's shell and products", () => {
  it("desktop, sandbox: grouped navigation, an empty catalog's next step, a product of each price kind read back through the SDK", async () => {
    const sandbox = sdkFor(pages.server, await pages.seller.createSandboxKey());
    const meter = await sandbox.meters.create({
      name: "API calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
      aggregation: { func: "count" },
    });
    const page = await open(1280);
    await page.goto("/products?mode=sandbox");
    const nav = page.getByRole("navigation", { name: "Sections" });
    for (const group of ["Sales", "Catalog", "Customers", "Usage", "Developers", "Settings"]) await nav.getByRole("list", { name: group }).waitFor();
    expect(await nav.getByRole("list", { name: "Catalog" }).getByRole("link").allInnerTexts()).toEqual(["Products", "Discounts", "Checkout links", "Custom fields"]);
    expect(await nav.getByRole("link", { name: "Products" }).getAttribute("aria-current")).toBe("page");
    expect(await page.getByRole("button", { name: /^Menu/ }).isVisible()).toBe(false);
    await page.getByText("No products yet in the sandbox.").waitFor();
    await page.getByText('till products create "Pro" --price 1999 --recurring month').waitFor();
    await checkPage(page, "desktop-products-empty");

    // fixed, weekly, in two currencies
    await newProduct(page, "Weekly box", "week");
    await price(page, 1).getByLabel("Amount").fill("8.00");
    await page.getByRole("button", { name: "Add a price" }).click();
    await price(page, 2).getByLabel("Currency").fill("eur");
    await price(page, 2).getByLabel("Amount").fill("7.50");
    await checkPage(page, "desktop-product-new");
    const weekly = await sandbox.products.get({ id: await create(page, "Weekly box") });
    expect(weekly.recurringInterval).toBe("week");
    expect(weekly.prices.map((p) => ("priceAmount" in p ? [p.amountType, p.priceCurrency, p.priceAmount] : null))).toEqual([["fixed", "usd", 800], ["fixed", "eur", 750]]);
    await page.getByText("$8.00 / week").waitFor();
    await checkPage(page, "desktop-product-detail");

    // pay what you want, once
    await newProduct(page, "Tip jar", "");
    await price(page, 1).getByLabel("Kind").selectOption("custom");
    await price(page, 1).getByLabel("Minimum").fill("5");
    await price(page, 1).getByLabel("Maximum (optional)").fill("50");
    await price(page, 1).getByLabel("Suggested (optional)").fill("10");
    const tip = await sandbox.products.get({ id: await create(page, "Tip jar") });
    expect(tip.recurringInterval).toBeNull();
    expect(tip.prices[0]).toMatchObject({ amountType: "custom", minimumAmount: 500, maximumAmount: 5000, presetAmount: 1000 });

    // free, every 2 days
    await newProduct(page, "Daily digest", "day");
    await page.getByLabel("Periods per renewal").fill("2");
    await price(page, 1).getByLabel("Kind").selectOption("free");
    // the API writes a free price as a fixed 0 (what Polar's SDKs read: server/billing/products/wire.ts)
    const digest = await sandbox.products.get({ id: await create(page, "Daily digest") });
    expect([digest.recurringInterval, digest.recurringIntervalCount]).toEqual(["day", 2]);
    expect(digest.prices.map((p) => ("priceAmount" in p ? [p.amountType, p.priceAmount] : null))).toEqual([["fixed", 0]]);
    await page.getByText("free", { exact: true }).waitFor();

    // per seat, graduated tiers
    await newProduct(page, "Team seats", "month");
    await price(page, 1).getByLabel("Kind").selectOption("seat_based");
    await price(page, 1).getByLabel("How tiers apply").selectOption("graduated");
    const seat1 = price(page, 1).getByRole("group", { name: "Seat tier 1" });
    await seat1.getByLabel("To seat").fill("5");
    await seat1.getByLabel("Price per seat").fill("10");
    await price(page, 1).getByRole("button", { name: "Add a seat tier" }).click();
    const seat2 = price(page, 1).getByRole("group", { name: "Seat tier 2" });
    await seat2.getByLabel("From seat").fill("6");
    await seat2.getByLabel("Price per seat").fill("8");
    const team = await sandbox.products.get({ id: await create(page, "Team seats") });
    expect(team.prices[0]).toMatchObject({
      amountType: "seat_based",
      seatTiers: { seatTierType: "graduated", tiers: [{ minSeats: 1, maxSeats: 5, pricePerSeat: 1000 }, { minSeats: 6, maxSeats: null, pricePerSeat: 800 }] },
    });

    // a base price and usage of a meter in tiers, with a cap
    await newProduct(page, "Metered API", "month");
    await price(page, 1).getByLabel("Amount").fill("9");
    await page.getByRole("button", { name: "Add a price" }).click();
    const usage = price(page, 2);
    await usage.getByLabel("Kind").selectOption("metered_unit");
    await usage.getByLabel("Currency").fill("usd");
    await usage.getByLabel("Meter").selectOption({ label: "API calls" });
    await usage.getByLabel("Price in tiers").check();
    await usage.getByRole("group", { name: "Tier 1" }).getByLabel("Up to (units)").fill("1000");
    await usage.getByRole("group", { name: "Tier 1" }).getByLabel("Per unit").fill("0");
    await usage.getByRole("button", { name: "Add a tier" }).click();
    await usage.getByRole("group", { name: "Tier 2" }).getByLabel("Per unit").fill("0.002");
    await usage.getByLabel("Cap per period (optional)").fill("100");
    await checkPage(page, "desktop-product-new-metered");
    const metered = await sandbox.products.get({ id: await create(page, "Metered API") });
    const meteredPrice = metered.prices.find((p) => p.amountType === "metered_unit");
    expect(meteredPrice).toMatchObject({ meterId: meter.id, capAmount: 10_000 });
    const raw = await rawProduct(metered.id);
    expect(raw.prices.find((p) => p.amount_type === "metered_unit")?.unit_tiers).toEqual({
      tier_type: "graduated",
      tiers: [{ up_to: 1000, unit_amount: "0", flat_amount: 0 }, { up_to: null, unit_amount: "0.2", flat_amount: 0 }],
    });

    // its base price changed on the edit page: the usage price stays, by its id
    await page.getByText("usage: API calls in 2 graduated tiers, up to $0.002 per unit, at most $100.00, billed every month").waitFor();
    await page.getByRole("link", { name: "Edit product" }).click();
    await page.getByRole("button", { name: "Change $9.00 / month" }).click();
    await price(page, 1).getByLabel("Amount").fill("12");
    await checkPage(page, "desktop-product-edit");
    await page.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Saved Metered API.");
    await page.getByText("$12.00 / month").waitFor();
    const active = (await sandbox.products.get({ id: metered.id })).prices.filter((p) => !p.isArchived);
    expect(active.map((p) => [p.amountType, p.id === meteredPrice?.id])).toEqual([["metered_unit", true], ["fixed", false]]);

    // the list, sorted by name by its column's button; archiving from a row's menu asks once more
    await page.goto("/products?mode=sandbox");
    await page.getByRole("button", { name: "Name: sort ascending" }).click();
    await page.waitForURL(/sorting=name/);
    await expect.poll(() => page.getByRole("region", { name: "Products" }).getByRole("link").allInnerTexts()).toEqual(["Daily digest", "Metered API", "Team seats", "Tip jar", "Weekly box"]);
    await checkPage(page, "desktop-products");

    // filtered by how each bills, in the toolbar and kept in the address (the sort kept too)
    const names = () => page.getByRole("region", { name: "Products" }).getByRole("link").allInnerTexts();
    const pricing = page.getByRole("group", { name: "Filters" }).getByLabel("Pricing");
    for (const [label, value, shown] of [
      ["One-time", "one_time", ["Tip jar"]],
      ["Recurring, any interval", "recurring", ["Daily digest", "Metered API", "Team seats", "Weekly box"]],
      ["Recurring monthly", "month", ["Metered API", "Team seats"]],
      ["Recurring weekly", "week", ["Weekly box"]],
      ["Metered (usage)", "metered", ["Metered API"]],
      ["Per seat", "seats", ["Team seats"]],
    ] as const) {
      await pricing.selectOption({ label });
      await page.waitForURL(new RegExp(`pricing=${value}(&|$)`));
      expect(page.url()).toContain("sorting=name");
      await expect.poll(names).toEqual(shown);
    }
    await checkPage(page, "desktop-products-filtered");
    await pricing.selectOption({ label: "Recurring yearly" });
    await page.getByText("No product is priced this way.").waitFor();
    await page.reload();
    expect(await pricing.inputValue()).toBe("year");
    await pricing.selectOption({ label: "Any pricing" });
    await expect.poll(names).toEqual(["Daily digest", "Metered API", "Team seats", "Tip jar", "Weekly box"]);
    expect(page.url()).not.toContain("pricing=");

    await page.getByRole("button", { name: "Actions for Tip jar" }).click();
    await page.getByRole("menuitem", { name: "Archive…" }).click();
    const dialog = page.getByRole("dialog", { name: "Archive Tip jar?" });
    await dialog.waitFor();
    await checkPage(page, "desktop-products-archive-dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await sandbox.products.get({ id: tip.id })).isArchived).toBe(false);
    // by keyboard: the menu opens on its first item, arrows and End move, Enter picks; the dialog keeps the focus
    await page.getByRole("button", { name: "Actions for Tip jar" }).focus();
    await page.keyboard.press("Enter");
    const archiveItem = page.getByRole("menuitem", { name: "Archive…" });
    const focused = (item: Locator) => item.evaluate((e) => e === document.activeElement);
    // Radix moves the focus into the menu once it has opened: the first item, then the arrows
    await expect.poll(() => focused(page.getByRole("menuitem", { name: "Open" }))).toBe(true);
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => focused(page.getByRole("menuitem", { name: "Edit" }))).toBe(true);
    await page.keyboard.press("End");
    await expect.poll(() => focused(archiveItem)).toBe(true);
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    await expect.poll(() => dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    await dialog.getByRole("button", { name: "Yes, archive it" }).focus();
    await page.keyboard.press("Enter");
    await toast(page, "Archived Tip jar: new checkouts can no longer sell it.");
    expect((await sandbox.products.get({ id: tip.id })).isArchived).toBe(true);
    await expect.poll(() => page.getByRole("row", { name: /Tip jar/ }).count()).toBe(0);
    expect(problems).toEqual([]);
  }, 240_000);

  it("phone: the Menu opens the groups; a product's page archives it after its confirmation", async () => {
    const sandbox = sdkFor(pages.server, await pages.seller.createSandboxKey());
    const product = await sandbox.products.create({ name: "Phone plan", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    const page = await open(375);
    await page.goto(`/products/${product.id}?mode=sandbox`);
    await page.getByRole("heading", { level: 1, name: "Phone plan" }).waitFor();
    const menu = page.getByRole("button", { name: /^Menu/ });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Orders" }).isVisible()).toBe(false);
    await checkPage(page, "phone-product-detail");
    await menu.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Orders" }).waitFor();
    await checkPage(page, "phone-menu-open");
    await page.keyboard.press("Escape");
    expect(await menu.getAttribute("aria-expanded")).toBe("false");

    await page.getByRole("button", { name: "Archive the product" }).click();
    await page.getByRole("dialog", { name: "Archive Phone plan?" }).getByRole("button", { name: "Keep it on sale" }).click();
    expect((await sandbox.products.get({ id: product.id })).isArchived).toBe(false);
    await page.getByRole("button", { name: "Archive the product" }).click();
    await page.getByRole("button", { name: "Yes, archive it" }).click();
    await toast(page, "Archived: new checkouts can no longer sell it.");
    expect((await sandbox.products.get({ id: product.id })).isArchived).toBe(true);
    await page.getByRole("button", { name: "Restore the product" }).waitFor();

    await page.goto("/products/new?mode=sandbox");
    await page.getByRole("heading", { level: 1, name: "New product" }).waitFor();
    await price(page, 1).getByLabel("Kind").selectOption("seat_based");
    await checkPage(page, "phone-product-new");
    await page.goto("/products?mode=sandbox");
    await page.getByRole("row", { name: /Metered API|Weekly box/ }).first().waitFor();
    await checkPage(page, "phone-products");
    expect(problems).toEqual([]);
  }, 120_000);
});
