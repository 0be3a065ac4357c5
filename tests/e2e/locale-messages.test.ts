// The customer pages' generated wording in the buyer's language, in a real Chromium against the real
// server, in German:
// - a tiered, capped metered price on the checkout reads its tiers from the catalog, with `Intl`'s amounts and counts;
// - the server's errors a customer meets reach them in German by their machine codes (shared/customer-errors.ts): a
//   declined card on the checkout, a wrong code at the portal's sign-in.
import { readFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CARDS, createProduct, tieredCappedPlan, uniqueBuyer } from "../helpers/checkout.js";
import { closePages, launchForPages, PageWatch } from "../helpers/browser.js";
import { startWithSellers, type Seller, type SellerSetup } from "../helpers/seller.js";

let setup: SellerSetup;
let seller: Seller;
let browser: Browser;
const watch = new PageWatch(() => ({ browser, options: { baseURL: setup.server.url, timezoneId: "UTC" }, timeout: 15_000 }));

beforeAll(async () => {
  setup = await startWithSellers("i18n-messages");
  seller = setup.seller;
  browser = await launchForPages();
}, 180_000);
afterEach(async () => expect(await watch.done()).toEqual([]));
afterAll(async () => {
  await closePages(browser);
  await setup?.server.close();
});

const catalog = (surface: "checkout" | "portal") =>
  JSON.parse(readFileSync(new URL(`../../web/src/i18n/${surface}/de.json`, import.meta.url), "utf8")) as Record<string, string>;

/** Intl's spaces (a no-break space before "$" in German) read as plain ones. */
const spaced = (s: string) => s.replace(/\s+/g, " ").trim();

describe("the checkout in German", () => {
  it("reads a tiered, capped metered price in German, its amounts and counts as Intl writes them", async () => {
    const suffix = Date.now().toString(36);
    const { planId } = await tieredCappedPlan(setup.server, seller, suffix);
    const checkout = await seller.sdk.checkouts.create({ products: [planId], locale: "de" });
    const page = await watch.open({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    await page.goto(`/checkout/${checkout.clientSecret}`);
    const metered = page.getByTestId("metered-prices");
    await metered.waitFor();
    expect(spaced(await metered.innerText())).toBe(
      `0,01 $ pro Tokens ${suffix} für 1–1.000, 0,0025 $ pro Tokens ${suffix} über 1.000 + 5,00 $ (gestaffelt), monatlich abgerechnet, höchstens 40,00 $`,
    );
  });
});

describe("the server's errors in German", () => {
  it("a declined card: the checkout says so in German, by the card number and in the summary", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id], locale: "de" });
    const page = await watch.open({ viewport: { width: 1280, height: 900 }, locale: "de-DE" });
    await page.goto(`/checkout/${checkout.clientSecret}`);
    await page.locator("button.pay").waitFor();
    await page.locator("#checkout-customer_email").fill(uniqueBuyer("de-declined"));
    await page.locator("#checkout-customer_name").fill("Ada Käufer");
    await page.locator("#checkout-customer_billing_address-country").selectOption("DE");
    await page.locator("#checkout-card-number").fill(CARDS.declined);
    await page.locator("#checkout-card-expiry").fill("12 / 40");
    await page.locator("#checkout-card-cvc").fill("123");
    await page.locator("button.pay").click();
    const declined = catalog("checkout")["server.declined"];
    expect(declined).toBe("Ihre Karte wurde abgelehnt.");
    await expect.poll(() => page.locator("#checkout-card-number-error").textContent()).toBe(declined);
    expect(await page.getByTestId("error-summary").textContent()).toContain(declined);
  });

  it("a wrong sign-in code: the portal says so in German", async () => {
    const page = await watch.open({ viewport: { width: 1280, height: 900 }, locale: "de-DE" });
    await page.goto(`/portal?organization=${seller.slug}`);
    await page.locator("input[name=email]").fill(uniqueBuyer("de-code"));
    await page.locator("button[type=submit]").click();
    await page.locator("input[name=code]").fill("WRONG123");
    await page.locator("button[type=submit]").click();
    const messages = catalog("portal");
    await expect.poll(() => page.locator(".field-error").textContent()).toBe(messages["signIn.codeWrong"]);
    expect(await page.locator(".status.error").textContent()).toContain(messages["signIn.codeFailed"]);
  });
});
