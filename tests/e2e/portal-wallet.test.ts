// The portal's wallet in a real Chromium: a customer who bought $7.00 of credits (a pay-what-you-want
// price with till_credits "paid") sees the balance, the purchase in the history, a link to buy more (the
// seller's checkout link of the credit product), and turns auto-recharge on (below $5.00, charge $20.00) and off.
// In German, the history says till's own movements from their type and a usage movement from its
// product's name, never the API's English description; the top-up's own order is headed by its kind
// ("Aufladung des Guthabenkontos"), never its line's English label.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  server = await startServer();
  await server.worker.start();
  browser = await launchForPages();
  seller = await createSeller(server, "portal-wallet");
}, 60_000);

afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

describe("the portal's wallet", () => {
  it("shows the balance and history, links to buy credits, and turns auto-recharge on and off", async () => {
    const credits = await seller.sdk.products.create({
      name: "Credits",
      metadata: { till_credits: "paid" },
      prices: [{ amountType: "custom", minimumAmount: 500, maximumAmount: 100_000, presetAmount: 1000, priceCurrency: "usd" }],
    });
    const link = await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", products: [credits.id], label: "Top up" });
    const checkout = await seller.sdk.checkouts.create({ products: [credits.id], amount: 700 });
    const confirmed = await pay(server, checkout, { customerEmail: uniqueBuyer("portal-wallet") });
    if (!confirmed.customerId) throw new Error("no customer");
    const { customerPortalUrl } = await seller.sdk.customerSessions.create({ customerId: confirmed.customerId });
    const context = await browser.newContext({ baseURL: server.url, locale: "en-US", timezoneId: "UTC" });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    // the credit is the worker's (order.paid): reload until it shows
    for (let i = 0; i < 20; i++) {
      await page.goto(customerPortalUrl);
      await page.getByRole("heading", { name: "Your purchases" }).waitFor();
      if (await page.getByText("Balance: $7.00").isVisible().catch(() => false)) break;
      await page.waitForTimeout(300);
    }
    const wallet = page.getByRole("region", { name: "Wallet" });
    await expect.poll(() => wallet.getByText("Balance: $7.00").isVisible()).toBe(true);
    // the history is its own request: it may show after the balance
    await expect.poll(() => wallet.getByRole("list", { name: "History of the USD wallet" }).innerText()).toContain("Credits purchased +$7.00");
    // (a retried test finds the first try's link too)
    const hrefs = await page.getByRole("link", { name: "Buy credits: Top up" }).evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    expect(hrefs).toContain(link.url);

    const form = wallet.getByRole("form", { name: "Auto-recharge" });
    expect(await form.innerText()).toContain("Auto-recharge is off.");
    await form.getByLabel("When the balance is below").fill("5.00");
    await form.getByLabel("Charge my card").fill("20.00");
    await form.getByRole("button", { name: "Turn auto-recharge on" }).click();
    await wallet.getByText("Auto-recharge is on: below $5.00, your card is charged $20.00.").waitFor();
    await form.getByRole("button", { name: "Turn auto-recharge off" }).click();
    await wallet.getByText("Auto-recharge is off.").first().waitFor();
    await page.screenshot({ path: "/tmp/i29-portal-wallet.png", fullPage: true });
    expect(problems).toEqual([]);
  }, 90_000);

  it("says the history in German: till's movements by their type, usage with its product's name, an adjustment as the seller wrote it", async () => {
    // a plan whose usage the wallet pays as it happens; the customer bought it in German
    const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);
    const meter = await seller.sdk.meters.create({
      name: "Tokens",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens-de" }] },
      aggregation: { func: "sum", property: "units" },
    });
    const plan = await raw("POST", "/v1/products/", {
      name: "Prepaid API",
      recurring_interval: "month",
      metadata: { till_usage_from_wallet: true },
      prices: [
        { amount_type: "fixed", price_amount: 1000, price_currency: "usd" },
        { amount_type: "metered_unit", meter_id: meter.id, price_currency: "usd", unit_amount: "1" },
      ],
    });
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    const checkout = await seller.sdk.checkouts.create({ products: [String(plan.body.id)], locale: "de" });
    const { customerId } = await pay(server, checkout, { customerEmail: uniqueBuyer("portal-wallet-de") });
    if (!customerId) throw new Error("no customer");
    const walletId = String((await raw("POST", "/v1/wallets/", { customer_id: customerId, currency: "usd" })).body.id);
    // a top-up from the saved card ($30.00), the seller's adjustment ($2.50), then 400 tokens at 1¢ paid from the
    // wallet
    expect((await raw("POST", `/v1/wallets/${walletId}/top-up`, { amount: 3000 })).status).toBe(200);
    expect((await raw("POST", `/v1/wallets/${walletId}/adjustments`, { amount: 250, reason: "Kulanzgutschrift" })).status).toBe(201);
    const ingested = await raw("POST", "/v1/events/ingest", { events: [{ name: "tokens-de", customer_id: customerId, metadata: { units: 400 } }] });
    expect(ingested.status, JSON.stringify(ingested.body)).toBe(200);
    // the API keeps its English description
    const history = (await raw("GET", `/v1/wallets/${walletId}/transactions`)).body.items as Array<{ type: string; description: string }>;
    expect(history.map((t) => [t.type, t.description])).toEqual([
      ["usage", "Usage: Prepaid API"],
      ["adjustment", "Kulanzgutschrift"],
      ["top_up", "Top-up"],
    ]);

    const { customerPortalUrl } = await seller.sdk.customerSessions.create({ customerId });
    const context = await browser.newContext({ baseURL: server.url, locale: "de-DE", timezoneId: "UTC" });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    await page.goto(customerPortalUrl);
    const list = page.getByRole("list", { name: "Verlauf des USD-Guthabenkontos" });
    await list.locator("li").nth(2).waitFor();
    const de = (minor: number) => new Intl.NumberFormat("de-DE", { style: "currency", currency: "USD" }).format(minor / 100);
    const lines = (await list.locator("li").allInnerTexts()).map((l) => l.replace(/\s+/g, " "));
    expect(lines.map((l) => l.replace(/^[^:]*: /, ""))).toEqual(
      [`Nutzung: Prepaid API ${de(-400)}`, `Kulanzgutschrift +${de(250)}`, `Aufladung +${de(3000)}`].map((l) => l.replace(/\s+/g, " ")),
    );
    expect(lines.join("\n")).not.toMatch(/Usage|Top-up/);
    // the orders: the plan, and the top-up's order (no product) headed by its kind in German
    const orders = page.getByRole("region", { name: "Bestellungen" });
    expect(await orders.getByRole("heading", { level: 3 }).allInnerTexts()).toEqual(expect.arrayContaining(["Prepaid API", "Aufladung des Guthabenkontos"]));
    expect(await orders.innerText()).not.toContain("Wallet top-up");
    await page.screenshot({ path: "/tmp/i30-portal-wallet-de.png", fullPage: true });
    await context.close();
    expect(problems).toEqual([]);
  }, 90_000);
});
