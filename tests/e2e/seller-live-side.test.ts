// The seller app's catalog and developer pages on the live side, where the other files prove them in the sandbox:
// a product made on its form, given a benefit, asked a custom field with a trial and hidden in its editor, then
// archived from its page; a discount, a custom field and a checkout link each made and deleted; a webhook endpoint
// added and deleted. Each action is one page visit at a desktop's width and is read back through the SDK with the
// seller's own (live) token; the sandbox holds none of it.
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { Polar } from "@polar-sh/sdk";
import { sdkFor } from "../helpers/seller.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";

const pages = useSellerPages("live-side");
let live: Polar;
let sandbox: Polar;

beforeAll(async () => {
  live = pages.seller.sdk;
  sandbox = sdkFor(pages.server, await pages.seller.createSandboxKey());
});

const toast = (page: Page, text: string | RegExp) => page.locator(".toast").getByText(text).first().waitFor();

describe("the seller app's catalog on the live side", () => {
  it("a product made, given a benefit, edited (a custom field, a trial, hidden) and archived", async () => {
    const company = await live.customFields.create({ type: "text", name: "Company", slug: "company", properties: {} });
    const page = await pages.open(1280);
    await page.goto("/products/new?mode=live");
    await page.getByLabel("Name", { exact: true }).fill("Live Pro");
    await page.getByLabel("Billing", { exact: true }).selectOption("month");
    await page.getByLabel("Amount").fill("12.00");
    await page.getByRole("button", { name: "Create product" }).click();
    await page.waitForURL(/\/products\/[0-9a-f-]{36}\?/);
    await toast(page, "Created Live Pro.");
    const id = new URL(page.url()).pathname.split("/")[2] ?? "";
    const made = await live.products.get({ id });
    expect([made.name, made.recurringInterval, made.prices[0]?.amountType === "fixed" && made.prices[0].priceAmount]).toEqual(["Live Pro", "month", 1200]);
    expect((await sandbox.products.list({})).result.items).toEqual([]);

    // a benefit made and attached on the product's page
    await page.getByRole("button", { name: /^(New benefit|Create the first benefit)$/ }).click();
    const form = page.getByRole("form", { name: "New benefit" });
    await form.getByLabel("Type").selectOption({ label: "License keys" });
    await form.getByLabel("Description").fill("Live key");
    await form.getByLabel("Key prefix").fill("LIVE");
    await form.getByRole("button", { name: "Create and attach" }).click();
    await toast(page, "Created Live key and attached it.");
    const [key] = (await live.products.get({ id })).benefits;
    expect([key?.type, key?.properties]).toEqual(["license_keys", expect.objectContaining({ prefix: "LIVE" })]);
    // its type by its proper name in the product's benefit list
    await page.getByText("(License keys)").first().waitFor();
    await checkPage(page, "live-product-benefit");

    // the editor: a custom field asked, a week's trial, sold only through links
    await page.goto(`/products/${id}/edit?mode=live`);
    await page.getByLabel("Who sees it").selectOption({ label: "Private: sold only through links and the API" });
    await page.getByLabel("Free trial").selectOption({ label: "Days" });
    await page.getByLabel("Trial length").fill("7");
    await page.getByLabel("Ask a custom field").selectOption({ label: "Company" });
    await page.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Saved Live Pro.");
    const edited = await live.products.get({ id });
    expect([edited.visibility, edited.trialInterval, edited.trialIntervalCount, edited.attachedCustomFields.map((a) => a.customFieldId)]).toEqual([
      "private",
      "day",
      7,
      [company.id],
    ]);

    // archived from its page, after asking
    await page.getByRole("button", { name: "Archive the product" }).click();
    await page.getByRole("dialog", { name: "Archive Live Pro?" }).getByRole("button", { name: "Yes, archive it" }).click();
    await toast(page, "Archived: new checkouts can no longer sell it.");
    expect((await live.products.get({ id })).isArchived).toBe(true);
    expect(pages.problems).toEqual([]);
  }, 180_000);

  it("a discount, a custom field and a checkout link made and deleted", async () => {
    const page = await pages.open(1280);
    await page.goto("/discounts/new?mode=live");
    await page.getByLabel("Name", { exact: true }).fill("Live deal");
    await page.getByLabel("Code (optional)").fill("LIVE10");
    await page.getByLabel("Percentage off").fill("10");
    await page.getByRole("button", { name: "Create discount" }).click();
    await page.getByRole("heading", { level: 1, name: "Live deal" }).waitFor();
    const [deal] = (await live.discounts.list({ query: "Live deal" })).result.items;
    expect([deal?.code, deal?.type, deal && "basisPoints" in deal ? deal.basisPoints : null]).toEqual(["LIVE10", "percentage", 1000]);
    await page.getByRole("button", { name: "Delete the discount" }).click();
    await page.getByRole("dialog", { name: "Delete Live deal?" }).getByRole("button", { name: "Yes, delete it" }).click();
    await toast(page, "Deleted the discount.");
    expect((await live.discounts.list({ query: "Live deal" })).result.items).toEqual([]);

    await page.goto("/custom-fields/new?mode=live");
    await page.getByLabel("Name", { exact: true }).fill("Team size");
    await page.getByRole("button", { name: "Create custom field" }).click();
    await toast(page, "Created the custom field.");
    const [field] = (await live.customFields.list({ query: "Team size" })).result.items;
    expect([field?.slug, field?.type]).toEqual(["team_size", "text"]);
    await page.getByRole("button", { name: "Actions for Team size" }).click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    await page.getByRole("dialog", { name: "Delete Team size?" }).getByRole("button", { name: "Yes, delete it" }).click();
    await toast(page, "Deleted Team size.");
    expect((await live.customFields.list({ query: "Team size" })).result.items).toEqual([]);

    await live.products.create({ name: "Live book", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] });
    await page.goto("/checkout-links/new?mode=live");
    await page.getByLabel("Add a product", { exact: true }).selectOption({ label: "Live book" });
    await page.getByRole("list", { name: "Products the link sells" }).getByText("Live book").waitFor();
    await page.getByLabel("Label (optional)").fill("Live shop");
    await page.getByRole("button", { name: "Create checkout link" }).click();
    await page.getByRole("heading", { level: 1, name: "Live shop" }).waitFor();
    const [link] = (await live.checkoutLinks.list({})).result.items;
    expect([link?.label, link?.products.map((p) => p.name)]).toEqual(["Live shop", ["Live book"]]);
    await checkPage(page, "live-checkout-link");
    await page.getByRole("button", { name: "Delete the link" }).click();
    await page.getByRole("dialog", { name: "Delete Live shop?" }).getByRole("button", { name: "Yes, delete it" }).click();
    await page.waitForURL(/\/checkout-links\?/);
    expect((await live.checkoutLinks.list({})).result.items).toEqual([]);
    expect((await sandbox.discounts.list({})).result.items.length + (await sandbox.checkoutLinks.list({})).result.items.length).toBe(0);
    expect(pages.problems).toEqual([]);
  }, 180_000);

  it("a webhook endpoint added, then deleted from its page after asking", async () => {
    const url = "https://example.com/live-hooks";
    const page = await pages.open(1280);
    await page.goto("/webhooks/new?mode=live");
    await page.getByLabel("URL").fill(url);
    await page.getByRole("button", { name: "Add the endpoint" }).click();
    await toast(page, /^Added the endpoint/);
    const [made] = (await live.webhooks.listWebhookEndpoints({})).result.items;
    expect(made?.url).toBe(url);
    await page.getByRole("group", { name: "Signing secret" }).getByText(made?.secret ?? "-").waitFor();
    expect((await sandbox.webhooks.listWebhookEndpoints({})).result.items).toEqual([]);
    await page.getByRole("link", { name: "Open the endpoint" }).click();
    await page.getByRole("button", { name: "Delete the endpoint" }).click();
    await page.getByRole("dialog", { name: `Delete the endpoint ${url}?` }).getByRole("button", { name: "Yes, delete the endpoint" }).click();
    await page.waitForURL(/\/webhooks\?/);
    await page.getByText("No webhook endpoints yet.").waitFor();
    expect((await live.webhooks.listWebhookEndpoints({})).result.items).toEqual([]);
    expect(pages.problems).toEqual([]);
  }, 120_000);
});
