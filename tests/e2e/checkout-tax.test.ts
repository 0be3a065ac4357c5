// The hosted checkout page shows the server's tax in a real Chromium, and what it shows is what
// the buyer is charged: a seller registered for French VAT and California sales tax. A buyer who picks the US
// and then California sees the Taxes line and the Pay total change before paying, and the order charges that
// total; an EU business whose VAT id makes it reverse charge sees 0 tax; a total that changed after the page
// showed it (the seller registered in California meanwhile) is refused by the confirm, nothing charged, and
// the page shows the new total.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchForPages, seriousViolations } from "../helpers/browser.js";
import { CARDS, createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
let contexts: BrowserContext[] = [];

const REGISTRATIONS = [{ country: "FR" }, { country: "US", state: "CA" }];

async function registerFor(registrations: { country: string; state?: string }[]) {
  const res = await rawRequest(server.url, seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, { tax_settings: { registrations } });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  browser = await launchForPages();
  server = await startServer();
  seller = await createSeller(server, "checkout-tax-e2e");
  await registerFor(REGISTRATIONS);
});
afterEach(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  contexts = [];
});
afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

async function openCheckout(url: string): Promise<Page> {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(url);
  await page.getByLabel("Email", { exact: true }).waitFor();
  return page;
}

const totals = async (page: Page) => (await page.getByTestId("totals").textContent()) ?? "";
const payButton = (page: Page) => page.locator("button.pay");
/** The page's updates have been answered: Pay is disabled while one is waiting or in flight. */
const settled = (page: Page) => expect.poll(() => payButton(page).isEnabled()).toBe(true);

async function fillCard(page: Page) {
  await page.getByLabel("Card number", { exact: true }).fill(CARDS.ok);
  await page.getByLabel("Expiry (MM / YY)", { exact: true }).fill("12 / 34");
  await page.getByLabel("CVC", { exact: true }).fill("123");
}

async function fillUsBuyer(page: Page) {
  await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("tax-page"));
  await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
  await page.getByLabel("Country", { exact: true }).selectOption("US");
  // the US asks for the full address (the server's answer to the country brings these fields)
  await page.getByLabel("Address line 1", { exact: true }).fill("1 Market Street");
  await page.getByLabel("City", { exact: true }).fill("San Francisco");
  await page.getByLabel("Postal code", { exact: true }).fill("94105");
}

async function orderOf(checkoutId: string) {
  const [order] = (await seller.sdk.orders.list({ checkoutId })).result.items;
  if (!order) throw new Error("no order for the checkout");
  return order;
}

describe("checkout page: tax", () => {
  it("shows the server's tax and the total with it", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id], customerBillingAddress: { country: "FR" } });
    expect(checkout).toMatchObject({ taxAmount: 500, totalAmount: 3000 });
    const page = await openCheckout(checkout.url);
    await expect.poll(() => totals(page)).toContain("Taxes$5.00");
    expect(await totals(page)).toContain("Total$30.00");
  });

  it("a US buyer who picks California sees its sales tax before paying, and is charged what the page showed", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const page = await openCheckout(checkout.url);
    await fillUsBuyer(page);
    // without a state the tax is unknown for a seller registered in a US state: no Taxes line yet
    await settled(page);
    expect(await payButton(page).textContent()).toBe("Pay $25.00");
    expect(await totals(page)).not.toContain("Taxes");
    await page.getByLabel("State / Province", { exact: true }).fill("CA");
    // 7.25% of $25.00 = $1.8125, rounded half up per line
    await expect.poll(() => totals(page)).toContain("Taxes$1.81");
    expect(await totals(page)).toContain("Total$26.81");
    await expect.poll(() => payButton(page).textContent()).toBe("Pay $26.81");
    await fillCard(page);
    await payButton(page).click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
    expect(await orderOf(checkout.id)).toMatchObject({ subtotalAmount: 2500, taxAmount: 181, totalAmount: 2681 });
  });

  it("an EU business with a VAT id of its country sees the reverse charge (0 tax) before paying", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const page = await openCheckout(checkout.url);
    await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("tax-page"));
    await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
    await page.getByLabel("Country", { exact: true }).selectOption("DE");
    // a consumer in Germany pays Germany's 19% (OSS)
    await expect.poll(() => totals(page)).toContain("Taxes$4.75");
    await expect.poll(() => payButton(page).textContent()).toBe("Pay $29.75");
    await page.getByLabel("I'm purchasing as a business", { exact: true }).check();
    await page.getByLabel("Business name", { exact: true }).fill("Acme GmbH");
    await page.getByLabel("Address line 1", { exact: true }).fill("Unter den Linden 1");
    await page.getByLabel("City", { exact: true }).fill("Berlin");
    await page.getByLabel("Postal code", { exact: true }).fill("10117");
    await page.getByLabel("Tax ID (optional)", { exact: true }).fill("DE123456789");
    // named as such, not a bare 0 tax
    await expect.poll(() => totals(page)).toContain("VAT reverse charged$0.00");
    expect(await totals(page)).toContain("Total$25.00");
    await expect.poll(() => payButton(page).textContent()).toBe("Pay $25.00");
    await fillCard(page);
    await payButton(page).click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
    expect(await orderOf(checkout.id)).toMatchObject({ taxAmount: 0, totalAmount: 2500, billingName: "Acme GmbH" });
  });

  it("a once-only discount on a plan with usage: the page states the renewal at the full price with its tax, and the renewal charges it", async () => {
    const meter = await seller.sdk.meters.create({ name: "Calls", filter: { conjunction: "and", clauses: [] }, aggregation: { func: "count" } });
    const product = await seller.sdk.products.create({
      name: "Team plan",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 1900, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "1", priceCurrency: "usd" },
      ],
    });
    const discount = await seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 2500, name: "Launch" });
    const checkout = await seller.sdk.checkouts.create({ products: [product.id], discountId: discount.id, customerBillingAddress: { country: "FR" } });
    // $19.00 − 25% = $14.25, France's 20% on it: $2.85; the renewal: $19.00 + $3.80
    expect(checkout).toMatchObject({ netAmount: 1425, taxAmount: 285, totalAmount: 1710 });
    const page = await openCheckout(checkout.url);
    await expect.poll(() => totals(page)).toContain("Total$17.10");
    expect(await page.getByTestId("recurring-terms").textContent()).toBe(
      "Renews automatically at $22.80 / month plus usage, billed after each period, until you cancel.",
    );
    expect(await page.getByTestId("discount-terms").textContent()).toBe("The discount applies to the first payment.");
    await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
    await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("renewal-terms"));
    await fillCard(page);
    await settled(page);
    await payButton(page).click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();

    // what the page said is what the renewal charges (no usage this period)
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
    if (!sub) throw new Error("no subscription");
    const current = await rawRequest(server.url, seller.token, "GET", `/v1/subscriptions/${sub.id}`);
    const renewed = await rawRequest(server.url, seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, {
      current_period_start: current.body.current_period_start,
    });
    expect(renewed.status).toBe(200);
    const orders = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["created_at"] })).result.items;
    expect(orders.map((o) => o.totalAmount)).toEqual([1710, 2280]);
  });

  it("a total that changed after the page showed it is not charged: the page shows the new total and the buyer pays again", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await registerFor([{ country: "FR" }]);
    try {
      const page = await openCheckout(checkout.url);
      await fillUsBuyer(page);
      await page.getByLabel("State / Province", { exact: true }).fill("CA");
      await settled(page);
      // outside every registration: no tax
      expect(await totals(page)).toContain("Taxes$0.00");
      expect(await payButton(page).textContent()).toBe("Pay $25.00");
      await fillCard(page);
      // the seller registers in California while the buyer looks at $25.00: the confirm would charge $26.81
      await registerFor(REGISTRATIONS);
      await payButton(page).click();
      await expect.poll(() => payButton(page).textContent()).toBe("Pay $26.81");
      expect(await totals(page)).toContain("Taxes$1.81");
      expect(await page.getByRole("alert").textContent()).toContain("The total changed: it is now $26.81, not $25.00. Nothing was charged");
      expect(await seriousViolations(page)).toEqual([]);
      expect((await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items).toEqual([]);
      await payButton(page).click();
      await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
      expect(await orderOf(checkout.id)).toMatchObject({ taxAmount: 181, totalAmount: 2681 });
    } finally {
      await registerFor(REGISTRATIONS);
    }
  });
});
