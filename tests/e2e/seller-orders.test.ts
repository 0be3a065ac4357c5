// The seller app's orders in a real Chromium against the real server: the empty list teaches the next step (with
// the `till` command); two paid orders listed, sorted by a column's button, filtered by status and product and found
// by the customer's email; an order's page with its amounts, the card charged, its invoice generated into a PDF link,
// a refund asked once more in a dialog (Escape first changes nothing) and read back through the SDK with its credit
// note, and its timeline (events, the webhook delivered, the email); the refunds and disputes views; the customer's
// page with its sections and timeline. At a desktop's width and a phone's; every page passes axe and is photographed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { closePages, launchForPages } from "../helpers/browser.js";
import { pay } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
const receiver = new Receiver();
const contexts: BrowserContext[] = [];
const problems: string[] = [];
let bookOrder = "";
let customerId = "";

const flat = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
const column = (page: Page, region: string, n: number) => page.getByRole("region", { name: region }).locator(`tbody tr td:nth-child(${n})`).allInnerTexts();
const toast = (page: Page, text: string) => page.locator(".toast").getByText(text).waitFor();

beforeAll(async () => {
  await receiver.start();
  [server, browser] = await Promise.all([startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" }), launchForPages()]);
  await server.worker.start();
  seller = await createSeller(server, "orders-web");
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
  await receiver.stop();
});

async function open(width: number): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems, { viewport: { width, height: 900 } });
  contexts.push(context);
  return page;
}

const address = { country: "FR", line1: "1 rue de la Paix", city: "Paris", postalCode: "75002" };

describe("the seller app's orders", () => {
  it("desktop: empty list; listed, sorted, filtered, searched; an order's page; a refund after its dialog; the views", async () => {
    const page = await open(1280);
    await page.goto("/orders?mode=live");
    await page.getByText("No orders yet.").waitFor();
    await page.getByText("till checkout-links create --product <product id>").waitFor();
    await checkPage(page, "desktop-orders-empty");

    await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/hooks`, format: "raw", events: ["order.paid", "refund.created"] });
    const book = await seller.sdk.products.create({ name: "Book", prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" }] });
    const pen = await seller.sdk.products.create({ name: "Pen", prices: [{ amountType: "fixed", priceAmount: 300, priceCurrency: "usd" }] });
    const bought = await pay(server, await seller.sdk.checkouts.create({ products: [book.id] }), { customerEmail: "ada@example.com", customerBillingAddress: address });
    customerId = bought.customerId ?? "";
    await pay(server, await seller.sdk.checkouts.create({ products: [pen.id] }), { customerEmail: "bob@example.com", customerBillingAddress: address });
    bookOrder = (await seller.sdk.orders.list({ productId: book.id })).result.items[0]?.id ?? "";

    await page.goto("/orders?mode=live");
    await expect.poll(() => column(page, "Orders", 2)).toEqual(["Pen", "Book"]);
    await page.getByRole("button", { name: "Total: sort ascending" }).click();
    await page.waitForURL(/sorting=amount/);
    await expect.poll(() => column(page, "Orders", 2)).toEqual(["Pen", "Book"]);
    await page.getByRole("button", { name: "Total: sort descending" }).click();
    await expect.poll(() => column(page, "Orders", 2)).toEqual(["Book", "Pen"]);
    await checkPage(page, "desktop-orders");
    await page.getByLabel("Product", { exact: true }).selectOption(pen.id);
    await page.waitForURL(/product_id=/);
    await expect.poll(() => column(page, "Orders", 2)).toEqual(["Pen"]);
    await page.goto("/orders?mode=live&status=refunded");
    await page.getByText("No order matches.").waitFor();
    await page.goto("/orders?mode=live");
    await page.getByLabel("Search by customer email or name").fill("ada@");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/query=ada/);
    await expect.poll(() => column(page, "Orders", 3)).toEqual(["ada@example.com"]);

    // the order's page: amounts, the card, the invoice, the timeline
    await page.getByRole("button", { name: /^Actions for Book of ada@example\.com/ }).click();
    await page.getByRole("menuitem", { name: "Open" }).click();
    await page.getByRole("heading", { level: 1, name: /^Order of / }).waitFor();
    expect(flat(await page.locator(".ledger").textContent())).toContain("Total$25.00"); // no tax registration: no tax
    await page.getByRole("region", { name: "The order's payments" }).getByText("Visa •••• 4242", { exact: true }).waitFor();
    // a paid order with its billing address may have its invoice made already; else the button makes it
    const pdf = page.getByRole("link", { name: /^Invoice .+ \(PDF\)$/ });
    const generate = page.getByRole("button", { name: "Generate the invoice" });
    await pdf.or(generate).first().waitFor();
    if (await generate.isVisible()) await generate.click();
    await pdf.waitFor({ timeout: 30_000 });
    expect(await pdf.getAttribute("href")).toMatch(/\/invoices\/.+\/pdf/);
    const timeline = page.getByRole("list", { name: "What happened to this order" });
    // named in a seller's words; the webhook sent keeps its type beside them
    await timeline.getByText("Order paid", { exact: true }).first().waitFor();
    await timeline.locator("code").getByText("order.paid", { exact: true }).first().waitFor();
    await checkPage(page, "desktop-order");

    // a refund: Escape changes nothing, the confirmation refunds
    await page.getByLabel("Amount to refund").fill("5.00");
    await page.getByRole("button", { name: "Refund…" }).click();
    const dialog = page.getByRole("dialog", { name: "Refund $5.00?" });
    await dialog.waitFor();
    await checkPage(page, "desktop-order-refund-dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await seller.sdk.refunds.list({ orderId: bookOrder })).result.items).toEqual([]);
    await page.getByRole("button", { name: "Refund…" }).click();
    await dialog.getByRole("button", { name: "Yes, refund $5.00" }).click();
    await toast(page, "Refunded $5.00.");
    const [refund] = (await seller.sdk.refunds.list({ orderId: bookOrder })).result.items;
    expect(refund?.amount).toBe(500);
    await page.getByRole("region", { name: "The order's refunds" }).getByText("$5.00").waitFor();
    // its credit note, once made
    await expect
      .poll(async () => {
        await page.reload();
        await page.getByRole("heading", { name: "Invoice" }).waitFor();
        return page.getByRole("link", { name: /^Credit note .+ \(PDF\)$/ }).count();
      }, { timeout: 30_000, interval: 1000 })
      .toBe(1);

    await page.goto("/orders?mode=live&view=refunds");
    await expect.poll(() => column(page, "Refunds", 5)).toEqual(["$5.00"]);
    await checkPage(page, "desktop-refunds");
    await page.getByRole("navigation", { name: "View" }).getByRole("link", { name: "Disputes" }).click();
    await page.getByText("No disputes.").waitFor();
    await checkPage(page, "desktop-disputes");

    // the customer's page
    await page.goto(`/customers/${customerId}?mode=live`);
    await page.getByRole("heading", { level: 1, name: "ada@example.com" }).waitFor();
    await page.getByRole("region", { name: "The customer's orders" }).getByText("Book").waitFor();
    await page.getByText("No wallet: a credits pack or a top-up opens one.").waitFor();
    await page.getByRole("list", { name: "What happened to this customer" }).getByText("Order paid", { exact: true }).first().waitFor();
    await checkPage(page, "desktop-customer-detail");
    expect(problems).toEqual([]);
  }, 240_000);

  it("phone: the list, an order's page and the customer's page fit and pass axe", async () => {
    const page = await open(375);
    await page.goto("/orders?mode=live");
    await page.getByRole("button", { name: /^Actions for Book of ada@example\.com/ }).waitFor();
    await checkPage(page, "phone-orders");
    await page.goto(`/orders/${bookOrder}?mode=live`);
    await page.getByRole("list", { name: "What happened to this order" }).getByText("Refund made", { exact: true }).first().waitFor();
    await checkPage(page, "phone-order");
    await page.goto(`/customers/${customerId}?mode=live`);
    await page.getByRole("list", { name: "What happened to this customer" }).waitFor();
    await checkPage(page, "phone-customer-detail");
    await page.goto("/orders?mode=live&view=refunds");
    await page.getByRole("region", { name: "Refunds" }).waitFor();
    await checkPage(page, "phone-refunds");
    expect(problems).toEqual([]);
  }, 120_000);
});
