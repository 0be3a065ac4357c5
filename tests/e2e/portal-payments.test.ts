// The portal page's payments in a real Chromium against the real server: a customer whose renewal charge
// failed (Stripe's 4000 0000 0000 0341) sees the past-due order with a payment form, pays it at once with a new
// card — saved as the default and listed under Payment methods — and the subscription is active again.
import { existsSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isWebBuildFresh } from "../../web/build.js";
import { CHROMIUM, launchChromium } from "../helpers/browser.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing`).toBe(true);
  expect(isWebBuildFresh(), "web/dist is missing or older than web/: run npm run build:web").toBe(true);
  server = await startServer();
  browser = await launchChromium();
  seller = await createSeller(server, "portal-pay");
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("a past-due order in the portal", () => {
  it("is paid at once with a new card, which becomes the saved default; the subscription is active again", async () => {
    const product = await createProduct(seller, "trial");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const confirmed = await pay(server, checkout, { customerEmail: uniqueBuyer("portal-pay") }, "4000 0000 0000 0341");
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
    if (!sub) throw new Error("no subscription");
    const renewed = await rawRequest(server.url, seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    expect(renewed.body.status).toBe("past_due");

    const session = await seller.sdk.customerSessions.create({ customerId: confirmed.customerId ?? "" });
    const context = await browser.newContext({ baseURL: server.url, locale: "en-US", timezoneId: "UTC" });
    const page: Page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    await page.goto(session.customerPortalUrl);
    page.setDefaultTimeout(15_000);
    const orders = page.getByRole("region", { name: "Orders", exact: true });
    const form = orders.getByRole("form");
    await form.waitFor().catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await page.locator("body").innerText()}`);
    });
    const methods = page.getByRole("region", { name: "Payment methods", exact: true });
    await methods.getByText("visa ending in 0341").waitFor();

    await form.getByLabel("Card number").fill("4242 4242 4242 4242");
    await form.getByLabel("Expiry (MM/YY)").fill(`12/${(new Date().getUTCFullYear() + 3) % 100}`);
    await form.getByLabel("CVC").fill("123");
    await form.getByRole("button", { name: "Pay $12" }).click();
    // paid: the order shows Paid and its payment form goes away
    await form.waitFor({ state: "detached" }).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await page.locator("body").innerText()}`);
    });
    // the trial's order and this one
    await expect.poll(() => orders.getByText("Paid", { exact: true }).count()).toBe(2);
    await methods.getByText(/visa ending in 4242.*\(default\)/).waitFor();

    expect((await seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    const order = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"] })).result.items[0];
    expect(order?.status).toBe("paid");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
