// The hosted checkout's add-ons, in Chromium: the product's add-ons offered as checkboxes (a quantity once chosen,
// seats for a seat-based one), each on its own line in the totals with one total and one tax, and the subscription the
// payment starts holding them.
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchForPages, PageWatch } from "../helpers/browser.js";
import { CARDS, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
const pages = new PageWatch(() => ({ browser, options: { baseURL: server.url }, timeout: 15_000 }));

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "checkout-add-ons");
  browser = await launchForPages();
});
afterEach(async () => {
  expect(await pages.done()).toEqual([]);
});
afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

describe("add-ons on the checkout page", () => {
  it("chosen with a checkbox and a quantity, priced line by line in one total; the subscription holds them", async () => {
    const storage = await seller.sdk.products.create({ name: "Storage", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    const support = await seller.sdk.products.create({ name: "Support", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    const team = await rawRequest(server.url, seller.token, "POST", "/v1/products/", {
      name: "Team", recurring_interval: "month", prices: [{ amount_type: "fixed", price_amount: 2000, price_currency: "usd" }], add_on_ids: [storage.id, support.id],
    });
    const checkout = await seller.sdk.checkouts.create({ products: [team.body.id as string] });
    const page = await pages.open({ viewport: { width: 1280, height: 900 } });
    await page.goto(`/checkout/${checkout.clientSecret}`);
    await page.getByLabel("Email", { exact: true }).waitFor();
    const totals = async () => ((await page.getByTestId("totals").textContent()) ?? "").replace(/\s+/g, " ");

    await page.getByRole("checkbox", { name: /^Storage/ }).check();
    await expect.poll(totals).toContain("Total$25.00");
    await page.getByRole("button", { name: "One more Storage" }).click();
    await page.getByRole("button", { name: "One more Storage" }).click();
    expect(await page.getByLabel("Quantity of Storage").inputValue()).toBe("3");
    await page.getByRole("checkbox", { name: /^Support/ }).check();
    await expect.poll(totals).toContain("Storage × 3$15.00");
    await expect.poll(totals).toContain("Total$45.00");
    await expect.poll(() => page.locator("button.pay").textContent()).toBe("Pay $45.00");
    await page.screenshot({ path: "/tmp/checkout-add-ons.png", fullPage: true });
    await page.getByRole("checkbox", { name: /^Support/ }).uncheck();
    await expect.poll(totals).toContain("Total$35.00");

    await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("add-ons"));
    await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
    await page.getByLabel("Country", { exact: true }).selectOption("DE");
    await page.getByLabel("Card number", { exact: true }).fill(CARDS.ok);
    await page.getByLabel("Expiry (MM / YY)", { exact: true }).fill("12 / 34");
    await page.getByLabel("CVC", { exact: true }).fill("123");
    await page.locator("button.pay").click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
    const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    expect(order?.items.map((i) => [i.label, i.amount])).toEqual([["Team", 2000], ["Storage × 3", 1500]]);
    const sub = await rawRequest(server.url, seller.token, "GET", `/v1/subscriptions/${order?.subscriptionId}`);
    expect((sub.body.items as Array<{ product_id: string; quantity: number }>).map((i) => [i.product_id, i.quantity])).toEqual([[storage.id, 3]]);
  });
});
