// The portal's wallet (issue 29 §3) in a real Chromium: a customer who bought $7.00 of credits (a pay-what-you-want
// price with till_credits "paid") sees the balance, the purchase in the history, a link to buy more (the
// seller's checkout link of the credit product), and turns auto-recharge on (below $5.00, charge $20.00) and off.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.js";
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
  browser = await launchChromium();
  seller = await createSeller(server, "portal-wallet");
}, 60_000);

afterAll(async () => {
  await browser?.close();
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
    expect(await wallet.getByRole("list", { name: "History of the USD wallet" }).innerText()).toContain("Credits purchased +$7.00");
    expect(await page.getByRole("link", { name: "Buy credits: Top up" }).getAttribute("href")).toBe(link.url);

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
});
