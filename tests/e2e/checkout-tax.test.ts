// The hosted checkout page shows the server's tax (issue 14 §1) in a real Chromium: a seller registered for
// French VAT, a checkout whose billing address is in France — the summary's Taxes line and its total are the
// server's tax_amount and total_amount. (The page itself is the checkout page's; this checks only the figures.)
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isWebBuildFresh } from "../../web/build.js";
import { rawRequest } from "../helpers/api.js";
import { CHROMIUM, launchChromium } from "../helpers/browser.js";
import { createProduct } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
  expect(isWebBuildFresh(), "web/dist is missing or older than web/: run npm run build:web").toBe(true);
  server = await startServer();
  seller = await createSeller(server, "checkout-tax-e2e");
  const res = await rawRequest(server.url, seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, {
    tax_settings: { registrations: [{ country: "FR" }] },
  });
  expect(res.status).toBe(200);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("checkout page: tax", () => {
  it("shows the server's tax and the total with it", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id], customerBillingAddress: { country: "FR" } });
    expect(checkout).toMatchObject({ taxAmount: 500, totalAmount: 3000 });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(checkout.url);
      const totals = async () => (await page.getByTestId("totals").textContent()) ?? "";
      await expect.poll(totals).toContain("Taxes$5.00");
      expect(await totals()).toContain("Total$30.00");
    } finally {
      await context.close();
    }
  });
});
