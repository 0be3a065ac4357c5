// The seller app's editing in a real Chromium against the real server: API keys a page at a time, choosers that
// search the server, checkout links, discounts and webhook endpoints edited and deleted, a meter made, tax
// registrations and the Stripe connection changed in the settings, a product's prices (a usage price kept when
// the fixed one is replaced), the legal details asked for at creation, and
// the compact menu at 375 px. Each change is made through the page, then read back through the API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchForPages()]);
  seller = await createSeller(server, "edit");
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

async function sellerPage(width = 375): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems, { viewport: { width, height: 800 } });
  contexts.push(context);
  return page;
}

describe("editing in the seller app", () => {
  it("API keys a page at a time, one side's only; a product found by searching the server", async () => {
    for (let i = 0; i < 21; i++) await seller.createSandboxKey();
    await seller.createKey();
    const sandbox = sdkFor(server, await seller.createSandboxKey());
    for (let i = 0; i < 22; i++) await sandbox.products.create({ name: `Filler ${i}`, prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "usd" }] });
    await sandbox.products.create({ name: "Zebra pack", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] });

    const page = await sellerPage();
    await page.goto("/api-keys?mode=sandbox");
    await page.getByText("Page 1 of 2 · 22 in all").waitFor();
    expect(await page.getByRole("row", { name: /till_live_/ }).count()).toBe(0);
    await page.getByRole("link", { name: "Next page" }).click();
    await page.getByText("Page 2 of 2 · 22 in all").waitFor();
    await page.goto("/api-keys?mode=live");
    await page.getByText("Page 1 of 1 · 1 in all").waitFor();

    await page.goto("/checkout-links/new?mode=sandbox");
    await page.getByText("The first 20 of 23 matches: type more of the name to narrow them.").waitFor();
    await page.getByLabel("Search: add a product").fill("zebra");
    await page.getByText("1 match.").waitFor();
    await page.getByLabel("Add a product", { exact: true }).selectOption({ label: "Zebra pack" });
    await page.getByRole("list", { name: "Products the link sells" }).getByText("Zebra pack").waitFor();
    await page.getByRole("button", { name: "Create checkout link" }).click();
    await page.getByRole("heading", { level: 1, name: "Zebra pack" }).waitFor();
    const links = await sandbox.checkoutLinks.list({});
    expect(links.result.items.map((l) => l.products.map((p) => p.name))).toEqual([["Zebra pack"]]);
    expect(problems).toEqual([]);
  }, 150_000);

  it("a checkout link, a discount and a webhook endpoint changed and deleted through their pages", async () => {
    const sandbox = sdkFor(server, await seller.createSandboxKey());
    const product = await sandbox.products.create({ name: "Link kit", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    const link = await sandbox.checkoutLinks.create({ paymentProcessor: "stripe", products: [product.id], label: "Old label" });
    const discount = await sandbox.discounts.create({ name: "Autumn", code: "AUTUMN", type: "percentage", basisPoints: 1000, duration: "once" });
    const hook = await sandbox.webhooks.createWebhookEndpoint({ url: "https://example.com/old", format: "raw", events: ["order.created"] });

    const page = await sellerPage();
    await page.goto("/checkout-links?mode=sandbox");
    await page.getByRole("link", { name: "Old label" }).click();
    await page.getByRole("link", { name: "Edit link" }).click();
    await page.getByLabel("Label (optional)").fill("New label");
    await page.getByLabel("Discount applied", { exact: true }).selectOption({ label: "Autumn" });
    await page.getByLabel("Ask for the billing address").check();
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator(".toast").getByText("Saved the checkout link.").waitFor();
    const changed = await sandbox.checkoutLinks.get({ id: link.id });
    expect([changed.label, changed.discountId, changed.requireBillingAddress]).toEqual(["New label", discount.id, true]);
    // axe, and no wider than 375 px with the link's long URL (the facts' grid once sized a column to it)
    await checkPage(page, "checkout-link");
    await page.getByRole("button", { name: "Delete the link" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Yes, delete it" }).click();
    await page.locator(".toast").getByText("Deleted the checkout link.").waitFor();
    await expect(sandbox.checkoutLinks.get({ id: link.id })).rejects.toThrow();

    await page.goto("/discounts");
    await page.getByRole("link", { name: "Autumn" }).click();
    await page.getByRole("link", { name: "Edit discount" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Autumn sale");
    await page.getByLabel("Code (optional)").fill("FALL10");
    await page.getByLabel("Most redemptions (optional)").fill("50");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator(".toast").getByText("Saved Autumn sale.").waitFor();
    const d = await sandbox.discounts.get({ id: discount.id });
    expect([d.name, d.code, d.maxRedemptions]).toEqual(["Autumn sale", "FALL10", 50]);
    await checkPage(page, "discount");
    await page.getByRole("button", { name: "Delete the discount" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Yes, delete it" }).click();
    await page.locator(".toast").getByText("Deleted the discount.").waitFor();
    await expect(sandbox.discounts.get({ id: discount.id })).rejects.toThrow();

    await page.goto("/webhooks");
    await page.getByRole("link", { name: "https://example.com/old" }).click();
    await page.getByLabel("URL").fill("https://example.com/new");
    await page.getByText("Events (all when none is ticked)").click();
    await page.getByLabel("subscription.created").check();
    await page.getByLabel("Enabled (deliveries are sent)").uncheck();
    await page.getByRole("button", { name: "Save the endpoint" }).click();
    await page.locator(".toast").getByText("Saved the endpoint.").waitFor();
    const w = await sandbox.webhooks.getWebhookEndpoint({ id: hook.id });
    expect([w.url, [...w.events].sort(), w.enabled]).toEqual(["https://example.com/new", ["order.created", "subscription.created"], false]);
    await checkPage(page, "webhook-endpoint");
    await page.getByRole("button", { name: "Delete the endpoint" }).click();
    await page.getByRole("button", { name: "Yes, delete the endpoint" }).click();
    await page.waitForURL(/\/webhooks\?.*deleted=1/);
    await expect(sandbox.webhooks.getWebhookEndpoint({ id: hook.id })).rejects.toThrow();
    expect(problems).toEqual([]);
  }, 150_000);

  it("a meter made in the page: its filter and aggregation as the API stores them", async () => {
    const page = await sellerPage();
    await page.goto("/meters/new?mode=sandbox");
    await page.getByLabel("Name", { exact: true }).fill("Tokens used");
    const first = page.getByRole("group", { name: "Filter, condition 1" });
    await first.getByLabel("Value").fill("llm.call");
    await page.getByRole("button", { name: "Add a condition" }).click();
    const second = page.getByRole("group", { name: "Filter, condition 2" });
    await second.getByLabel("Property").fill("metadata.model");
    await second.getByLabel("Value").fill("large");
    await page.getByRole("combobox", { name: "Counts", exact: true }).selectOption({ label: "Sum of a property" });
    await page.getByLabel("Of the property").fill("metadata.tokens");
    await page.getByRole("button", { name: "Create meter" }).click();
    await page.waitForURL(/\/meters\/[0-9a-f-]{36}/);
    const sandbox = sdkFor(server, await seller.createSandboxKey());
    const [meter] = (await sandbox.meters.list({})).result.items;
    expect(meter?.name).toBe("Tokens used");
    expect(meter?.aggregation).toEqual({ func: "sum", property: "metadata.tokens" });
    expect(meter?.filter.clauses).toEqual([
      { property: "name", operator: "eq", value: "llm.call" },
      { property: "metadata.model", operator: "eq", value: "large" },
    ]);
    expect(problems).toEqual([]);
  }, 90_000);

  it("a product's every price listed; replacing its fixed price keeps its usage price; a per-seat price kept by id when the name changes", async () => {
    const sandbox = sdkFor(server, await seller.createSandboxKey());
    const meter = await sandbox.meters.create({
      name: "API calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
      aggregation: { func: "count" },
    });
    const product = await sandbox.products.create({
      name: "Metered plan",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 900, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: 5, capAmount: 10_000, priceCurrency: "usd" },
      ],
    });
    const usage = product.prices.find((p) => p.amountType === "metered_unit")!;

    const page = await sellerPage();
    await page.goto(`/products/${product.id}?mode=sandbox`);
    const listed = page.getByRole("list", { name: "Prices" });
    await listed.waitFor();
    expect(await listed.getByRole("listitem").allTextContents()).toEqual(["$9.00 / month", "usage: $0.05 per unit of API calls, at most $100.00, billed every month"]);
    await page.getByRole("link", { name: "Edit product" }).click();
    // the editor shows every price; changing the fixed one leaves the usage price as it is
    await page.getByRole("button", { name: "Change usage: $0.05 per unit of API calls, at most $100.00, billed every month" }).waitFor();
    await page.getByRole("button", { name: "Change $9.00 / month" }).click();
    await page.getByLabel("Amount").fill("12.00");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator(".toast").getByText("Saved Metered plan.").waitFor();
    await expect.poll(() => listed.getByRole("listitem").allTextContents()).toEqual(["$12.00 / month", "usage: $0.05 per unit of API calls, at most $100.00, billed every month"]);
    await checkPage(page, "product-prices");
    const active = (await sandbox.products.get({ id: product.id })).prices.filter((p) => !p.isArchived);
    expect(active.map((p) => [p.amountType, p.id === usage.id])).toEqual([
      ["metered_unit", true],
      ["fixed", false],
    ]);

    // a per-seat price is edited here too; saving the name alone keeps it as it is, by its id
    const seats = await sandbox.products.create({
      name: "Team plan",
      recurringInterval: "month",
      prices: [{ amountType: "seat_based", priceCurrency: "usd", seatTiers: { seatTierType: "volume", tiers: [{ minSeats: 1, maxSeats: null, pricePerSeat: 1000 }] } }],
    });
    const seatPrice = seats.prices[0]!;
    await page.goto(`/products/${seats.id}/edit?mode=sandbox`);
    await page.getByRole("button", { name: "Change per seat, from $10.00 / month" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Team plan 2");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator(".toast").getByText("Saved Team plan 2.").waitFor();
    expect((await sandbox.products.get({ id: seats.id })).prices.filter((p) => !p.isArchived).map((p) => p.id)).toEqual([seatPrice.id]);
    expect((await sandbox.products.get({ id: seats.id })).prices.filter((p) => !p.isArchived).map((p) => p.amountType)).toEqual(["seat_based"]);
    expect(problems).toEqual([]);
  }, 90_000);

  it("settings: tax registrations added and removed, Stripe's refusal shown; the compact menu at 375 px; legal details asked at creation", async () => {
    const page = await sellerPage();
    await page.goto("/settings/tax?mode=live");
    const menu = page.getByRole("button", { name: /^Menu/ });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Orders" }).isVisible()).toBe(false);
    await menu.focus();
    await page.keyboard.press("Enter");
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Orders" }).waitFor();
    await checkPage(page, "menu-open");
    await menu.click();

    const form = page.getByRole("form", { name: "Tax registration" });
    for (const [country, state] of [["DE", ""], ["US", "NY"]] as const) {
      await form.getByLabel("Country (two letters, e.g. DE)").fill(country);
      await form.getByLabel("State or province (US, CA: e.g. NY) (optional)").fill(state);
      await form.getByRole("button", { name: "Add the registration" }).click();
      await page.getByText(`Registered in ${state ? `${country}-${state}` : country}.`).waitFor();
    }
    await page.getByRole("button", { name: "Remove DE" }).click();
    await page.getByText("Removed DE.").waitFor();
    const key = await seller.createKey();
    const read = async (id: string) => (await fetch(`${server.url}/v1/organizations/${id}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<Record<string, never>>;
    expect((await read(seller.organizationId)).tax_settings).toMatchObject({ registrations: [{ country: "US", state: "NY" }] });

    await page.goto("/settings/payments?mode=live");
    await page.getByLabel("Publishable key").fill("pk_test_51TillDddddddddddddddddddddddd");
    await page.getByLabel("Secret key").fill("sk_test_51TillAaaaaaaaaaaaaaaaaaaaaaa1234");
    await page.getByRole("button", { name: "Connect Stripe" }).click();
    // live takes live keys: the API's 422, as it says it; the secret is gone from the form
    await page.getByRole("alert").filter({ hasText: /live/ }).waitFor();
    expect(await page.getByLabel("Secret key").inputValue()).toBe("");
    await checkPage(page, "settings-edit");

    await page.goto("/settings/organization?mode=live");
    await page.getByLabel("Organization name").fill("Edit Shop");
    await page.getByLabel("Street address (optional)").fill("1 Main St");
    await page.getByLabel("Town or city (optional)").fill("Lyon");
    await page.getByLabel("Country code (e.g. FR) (optional)").fill("FR");
    await page.getByLabel("VAT or tax id (optional)").fill("FR99999999999");
    await page.getByRole("button", { name: "Create organization" }).click();
    await page.waitForURL(/org=edit-shop/);
    const orgs = await seller.client.get<Array<{ id: string; slug: string }>>("/api/auth/organization/list");
    const made = orgs.body.find((o) => o.slug === "edit-shop")!;
    const details = (await (await fetch(`${server.url}/v1/organizations/${made.id}?organization_id=${made.id}`, {
      headers: { authorization: `Bearer ${seller.token}` },
    })).json()) as { invoice_details?: unknown };
    expect(details.invoice_details).toMatchObject({ tax_id: "FR99999999999", address: { city: "Lyon" } });
    expect(problems).toEqual([]);
  }, 120_000);
});
