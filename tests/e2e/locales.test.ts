// The checkout page in the buyer's language, in a real Chromium against the real server:
// - the pseudo-locale (en-XA, every message bracketed and ~40% longer): the checkout form, its errors and the
//   success view show no text outside a bracketed message but data (names, amounts, the order number), no
//   horizontal overflow on a phone or a desktop, a layout that only grows downwards against English (screenshots
//   compared by size) and no serious axe violation;
// - the portal's sign-in (asking for the email, then the code) likewise, in the browser's language;
// - the signed-in portal likewise, on a phone and a desktop, for a customer with a subscription (its usage against
//   a cap and tiers, its cancel form open), an order with its invoice, a saved card, a license key and a wallet;
//   and in German and Japanese, its headings from their catalogs and its amounts and dates as `Intl` writes them;
// - each locale given as `locale` at checkouts.create (through @polar-sh/sdk 0.47 and 0.49 in turn): `<html lang>`,
//   the amount and the trial's first-charge date as `Intl` writes them in that locale, its words from its catalog;
// - without a checkout locale: the browser's language, else the organization's default, and the confirm records
//   the language the page spoke.
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LOCALES } from "../../shared/i18n/locales.js";
import { rawRequest } from "../helpers/api.js";
import { CARDS, createProduct, pay as payCheckout, tieredCappedPlan, uniqueBuyer } from "../helpers/checkout.js";
import { closePages, launchForPages, PageWatch, seriousViolations } from "../helpers/browser.js";
import { type Seller } from "../helpers/seller.js";
import { startWithSellers, type SellerSetup } from "../helpers/seller.js";

let setup: SellerSetup;
let seller: Seller;
let browser: Browser;
const watch = new PageWatch(() => ({ browser, options: { baseURL: setup.server.url, timezoneId: "UTC" }, timeout: 15_000 }));

const catalog = (locale: string, surface = "checkout") =>
  JSON.parse(readFileSync(new URL(`../../web/src/i18n/${surface}/${locale}.json`, import.meta.url), "utf8")) as Record<string, string>;

beforeAll(async () => {
  setup = await startWithSellers("i18n-page");
  seller = setup.seller;
  browser = await launchForPages();
}, 180_000);
afterEach(async () => expect(await watch.done()).toEqual([]));
afterAll(async () => {
  await closePages(browser);
  await setup?.server.close();
});

async function checkoutOf(kind: "fixed" | "trial", locale?: string) {
  const product = await createProduct(seller, kind);
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], ...(locale ? { locale } : {}) });
  return { product, checkout };
}

/** Visible text nodes that are neither inside a bracketed (pseudo) message nor data the test names. */
async function untranslated(page: Page, data: string[]): Promise<string[]> {
  const texts = await page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      const text = node.textContent?.trim() ?? "";
      if (!el || !text || el.closest("option, script, style, [hidden]")) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 && box.height === 0 && !el.closest(".visually-hidden")) continue;
      out.push(text);
    }
    // what screen readers read besides text: labels of buttons
    for (const el of document.querySelectorAll("[aria-label]")) out.push(el.getAttribute("aria-label") ?? "");
    return out;
  });
  // data: what the test names, amounts, a date written out ("December 9, 2026", the trial's end), the order number
  const isData = (s: string) =>
    data.some((d) => s === d) || /^[\s\d$€£.,:·×−–/+%*-]+$/.test(s) || /^[A-Z][a-z]+ \d{1,2}, \d{4}$/.test(s) || /^[A-Z0-9]+-\d{4,}$/.test(s);
  return texts.filter((s) => !s.includes("[") && !s.includes("]") && !isData(s));
}

/** Horizontal overflow: the document wider than its window, or a control whose text does not fit. */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const found: string[] = [];
    if (document.documentElement.scrollWidth > document.documentElement.clientWidth) found.push(`document ${document.documentElement.scrollWidth}`);
    for (const el of document.querySelectorAll<HTMLElement>("button, label, legend, dt, dd, h1, h2, p, a, .status")) {
      if (el.closest(".visually-hidden")) continue;
      if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible") found.push(el.outerHTML.slice(0, 80));
      const box = el.getBoundingClientRect();
      if (box.right > window.innerWidth + 1) found.push(`off-screen: ${el.outerHTML.slice(0, 80)}`);
    }
    return found;
  });

/** A PNG's width and height (its IHDR chunk). */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

const pay = async (page: Page, email: string) => {
  await page.locator("#checkout-customer_email").fill(email);
  await page.locator("#checkout-customer_name").fill("Ada Käufer");
  const country = page.locator("#checkout-customer_billing_address-country");
  if (await country.count()) await country.selectOption("FR");
  await page.locator("#checkout-card-number").fill(CARDS.ok);
  await page.locator("#checkout-card-expiry").fill("12 / 40");
  await page.locator("#checkout-card-cvc").fill("123");
  await page.locator("button.pay").click();
  await page.getByTestId("receipt").waitFor();
};

describe("the pseudo-locale", () => {
  it("leaves no string untranslated, clips nothing and is axe-clean: the form, its errors and the success view", async () => {
    const { product, checkout } = await checkoutOf("trial", "en-XA");
    const org = await rawRequest(setup.server.url, seller.token, "GET", `/v1/organizations/${seller.organizationId}`);
    const data = [product.name, String(org.body.name), "Ada Käufer", "×", "·"];
    const sizes: Record<string, { width: number; height: number }> = {};
    for (const [locale, viewport] of [
      ["en", { width: 1280, height: 900 }],
      ["en-XA", { width: 1280, height: 900 }],
    ] as const) {
      const english = locale === "en" ? await checkoutOf("trial", "en") : { checkout };
      const page = await watch.open({ viewport, locale: "en-US" });
      await page.goto(`/checkout/${english.checkout.clientSecret}`);
      await page.locator("button.pay").waitFor();
      sizes[locale] = pngSize(await page.locator("main").screenshot());
    }
    // longer text wraps: the page may grow taller, never wider
    expect(sizes["en-XA"]!.width).toBe(sizes.en!.width);
    expect(sizes["en-XA"]!.height).toBeGreaterThanOrEqual(sizes.en!.height);

    for (const viewport of [{ width: 360, height: 740 }, { width: 1280, height: 900 }]) {
      const page = await watch.open({ viewport, locale: "en-US" });
      await page.goto(`/checkout/${checkout.clientSecret}`);
      await page.locator("button.pay").waitFor();
      expect(await page.evaluate(() => document.documentElement.lang)).toBe("en");
      expect(await untranslated(page, data)).toEqual([]);
      expect(await overflow(page)).toEqual([]);
      expect(await seriousViolations(page)).toEqual([]);
      // the page's own checks: every problem at once, each in the pseudo-locale
      await page.locator("button.pay").click();
      await page.getByTestId("error-summary").waitFor();
      expect(await untranslated(page, data)).toEqual([]);
      expect(await overflow(page)).toEqual([]);
      if (viewport.width === 360) continue;
      const email = uniqueBuyer("pseudo");
      await pay(page, email);
      expect(await untranslated(page, [...data, email])).toEqual([]);
      expect(await overflow(page)).toEqual([]);
      expect(await seriousViolations(page)).toEqual([]);
    }
    // three pages, a payment and four axe runs: about 16 s alone, twice that beside another test file
  }, 120_000);
});

describe("the portal's sign-in in the pseudo-locale (the browser's language)", () => {
  it("leaves no string untranslated, clips nothing and is axe-clean, asking for the email and for the code", async () => {
    const org = await rawRequest(setup.server.url, seller.token, "GET", `/v1/organizations/${seller.organizationId}`);
    const data = [String(org.body.name)];
    const page = await watch.open({ viewport: { width: 360, height: 740 }, locale: "en-XA" });
    await page.goto(`/portal?organization=${seller.slug}`);
    await page.locator("input[name=email]").waitFor();
    await expect.poll(() => page.locator("h1").textContent()).toContain("[");
    // till's own name stands in the header until the seller's name has loaded: read the page once it has
    await expect.poll(() => page.getByTestId("brand").textContent()).toBe(data[0]);
    expect(await untranslated(page, data)).toEqual([]);
    expect(await overflow(page)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    const email = uniqueBuyer("portal-pseudo");
    await page.locator("input[name=email]").fill(email);
    await page.locator("button[type=submit]").click();
    await page.locator("input[name=code]").waitFor();
    expect(await untranslated(page, [...data, email])).toEqual([]);
    expect(await overflow(page)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });
});

/** What a customer has after buying: everything the portal's sections show. */
interface PortalCustomerSetup {
  customerId: string;
  email: string;
  /** Seller-entered names the portal shows as they are. */
  data: string[];
  order: { createdAt: Date; totalAmount: number };
}

/** Waits for the worker's work (a grant, an invoice, a wallet's credit) to show through `probe`. */
async function until<T>(what: string, probe: () => Promise<T | null | false | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await probe();
    if (v) return v;
    setup.server.worker.wake();
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${what}`);
}

/**
 * A customer with a monthly subscription (a fixed price, and a metered one capped and tiered, with usage), its
 * order invoiced, the card it was paid with saved, a license key, and credits bought into a wallet.
 */
async function portalCustomer(): Promise<PortalCustomerSetup> {
  const suffix = Date.now().toString(36);
  const { meter, planId } = await tieredCappedPlan(setup.server, seller, suffix);
  const keys = await seller.sdk.benefits.create({ type: "license_keys", description: `Pro license ${suffix}`, properties: { prefix: "PRO", activations: { limit: 3, enableCustomerAdmin: true } } });
  await seller.sdk.products.updateBenefits({ id: planId, productBenefitsUpdate: { benefits: [keys.id] } });
  const credits = await seller.sdk.products.create({
    name: `Credits ${suffix}`,
    metadata: { till_credits: "paid" },
    prices: [{ amountType: "custom", minimumAmount: 500, maximumAmount: 100_000, presetAmount: 1000, priceCurrency: "usd" }],
  });
  await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", products: [credits.id], label: `Top up ${suffix}` });

  const email = uniqueBuyer("portal-locales");
  const checkout = await seller.sdk.checkouts.create({ products: [planId] });
  const confirmed = await payCheckout(setup.server, checkout, { customerEmail: email });
  const customerId = confirmed.customerId ?? "";
  const topUp = await seller.sdk.checkouts.create({ products: [credits.id], amount: 700, customerId });
  await payCheckout(setup.server, topUp, { customerEmail: email });
  const ingested = await rawRequest(setup.server.url, seller.token, "POST", "/v1/events/ingest", {
    events: [{ name: `tokens-${suffix}`, customer_id: customerId, metadata: { units: 1500 } }],
  });
  expect(ingested.status).toBe(200);

  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  await until("invoice", async () => (await seller.sdk.orders.get({ id: order.id })).isInvoiceGenerated);
  await until("license key", async () => (await seller.sdk.licenseKeys.list({ benefitId: keys.id })).result.items.length > 0);
  await until("wallet", async () => {
    const wallets = await rawRequest(setup.server.url, seller.token, "GET", `/v1/wallets/?customer_id=${customerId}`);
    return wallets.status === 200 && JSON.stringify(wallets.body).includes('"balance":700');
  });
  const [key] = (await seller.sdk.licenseKeys.list({ benefitId: keys.id })).result.items;
  const org = await rawRequest(setup.server.url, seller.token, "GET", `/v1/organizations/${seller.organizationId}`);
  return {
    customerId,
    email,
    // the seller's words and the customer's data; ";" parts a meter's limits
    data: [String(org.body.name), email, `Pro plan ${suffix}`, `Pro license ${suffix}`, `Credits ${suffix}`, meter.name, `Top up ${suffix}`, key?.key ?? "", ";"],
    order: { createdAt: order.createdAt, totalAmount: order.totalAmount },
  };
}

/** The portal signed in as the customer, in a browser speaking `locale`, once every section has loaded. */
async function openPortal(customer: PortalCustomerSetup, options: { locale: string; viewport: { width: number; height: number } }): Promise<Page> {
  const { customerPortalUrl } = await seller.sdk.customerSessions.create({ customerId: customer.customerId });
  const page = await watch.open(options);
  await page.goto(customerPortalUrl);
  await page.locator("table.usage").waitFor();
  await page.getByTestId("invoice-download").first().waitFor();
  await page.getByTestId("license-key").waitFor();
  await page.locator("section[aria-labelledby=payment-methods-heading] li.item").first().waitFor();
  await page.locator(".wallet-history li").first().waitFor();
  await page.locator("section[aria-labelledby=wallets-heading] form").first().waitFor();
  return page;
}

describe("the signed-in portal in the browser's language", () => {
  let customer: PortalCustomerSetup;
  beforeAll(async () => {
    await setup.server.worker.start();
    customer = await portalCustomer();
  }, 120_000);

  it("in the pseudo-locale leaves no string untranslated, clips nothing and is axe-clean, on a phone and a desktop", async () => {
    for (const viewport of [{ width: 360, height: 740 }, { width: 1280, height: 900 }]) {
      const page = await openPortal(customer, { locale: "en-XA", viewport });
      expect(await page.locator("h1").textContent()).toContain("[");
      // the cancel form's words too
      await page.locator("section[aria-labelledby=subscriptions-heading] .actions button.danger").click();
      await page.locator("form.cancel select").waitFor();
      expect(await untranslated(page, customer.data)).toEqual([]);
      expect(await overflow(page)).toEqual([]);
      expect(await seriousViolations(page)).toEqual([]);
    }
  }, 120_000);

  it.each(["de", "ja"])("in %s: the headings from its catalog, amounts and dates as Intl writes them", async (locale) => {
    const page = await openPortal(customer, { locale, viewport: { width: 1280, height: 900 } });
    expect(await page.evaluate(() => document.documentElement.lang)).toBe(locale);
    const messages = catalog(locale, "portal");
    for (const id of ["portal.title", "subs.title", "orders.title", "payments.title", "wallet.title", "benefits.title", "billing.title"]) {
      await page.getByRole("heading", { name: messages[id], exact: true }).waitFor();
    }
    const orders = page.locator("section[aria-labelledby=orders-heading]");
    // Intl's spaces (a no-break space before "$" in German) read as plain ones on both sides
    const spaced = (s: string) => s.replace(/\s+/g, " ");
    const text = spaced(await orders.innerText());
    const money = (minor: number) => spaced(new Intl.NumberFormat(locale, { style: "currency", currency: "USD" }).format(minor / 100));
    expect(text).toContain(money(customer.order.totalAmount));
    expect(text).toContain(spaced(new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(customer.order.createdAt)));
    expect(text).toContain(messages["orders.status.paid"]);
    // a bare `download`: the server's Content-Disposition names the file in the invoice's language
    const link = page.getByTestId("invoice-download").first();
    expect(await link.getAttribute("download")).toBe("");
    expect(await link.innerText()).toContain(messages["orders.downloadInvoice"]!.split("{")[0]!.trim());
    const wallet = spaced(await page.locator("section[aria-labelledby=wallets-heading]").innerText());
    expect(wallet).toContain(money(700));
    expect(wallet).toContain(messages["wallet.type.credit_purchase"]);
    const usage = page.locator("table.usage");
    expect(await usage.getAttribute("aria-label")).toContain(customer.data[2]);
    expect(await usage.locator("thead").innerText()).toContain(messages["usage.consumed"]);
    expect(spaced(await usage.locator("tbody").innerText())).toContain(spaced(new Intl.NumberFormat(locale).format(1500)));
  }, 60_000);
});

describe("each locale", () => {
  it.each(LOCALES.map((l, i) => [l, i % 2 === 0 ? "0.47" : "0.49"] as const))(
    "%s given at checkouts.create (SDK %s): the page speaks it, with its amounts and dates",
    async (locale, version) => {
      const product = await createProduct(seller, "trial");
      const checkout =
        version === "0.47"
          ? await seller.sdk.checkouts.create({ products: [product.id], locale })
          : await seller.sdk049.checkouts.create({ products: [product.id], locale });
      expect(checkout.locale).toBe(locale);
      // the browser asks for another language: the checkout's wins
      const page = await watch.open({ viewport: { width: 1280, height: 900 }, locale: locale === "de" ? "fr-FR" : "de-DE" });
      await page.goto(`/checkout/${checkout.clientSecret}`);
      const messages = catalog(locale);
      await page.getByRole("button", { name: messages["pay.trial"], exact: true }).waitFor();
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(locale);
      const price = new Intl.NumberFormat(locale, { style: "currency", currency: "USD" }).format(12);
      const date = new Intl.DateTimeFormat(locale, { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" }).format(new Date(checkout.trialEnd!));
      const terms = (await page.getByTestId("trial-terms").textContent()) ?? "";
      expect(terms).toContain(price);
      expect(terms).toContain(date);
      const totals = (await page.getByTestId("totals").textContent()) ?? "";
      expect(totals).toContain(messages["totals.dueToday"]);
      expect(totals).toContain(new Intl.NumberFormat(locale, { style: "currency", currency: "USD" }).format(0));
    },
  );

  it("without a checkout locale: the browser's language, else the organization's default; the confirm records it", async () => {
    const { checkout } = await checkoutOf("fixed");
    const german = await watch.open({ viewport: { width: 1280, height: 900 }, locale: "de-AT" });
    await german.goto(`/checkout/${checkout.clientSecret}`);
    const amount = new Intl.NumberFormat("de", { style: "currency", currency: "USD" }).format(25);
    await german.getByRole("button", { name: `${amount} bezahlen`, exact: true }).waitFor();
    expect(await german.evaluate(() => document.documentElement.lang)).toBe("de");
    await pay(german, uniqueBuyer("de"));
    expect((await seller.sdk.checkouts.get({ id: checkout.id })).locale).toBe("de");

    const patch = (v: string | null) =>
      rawRequest(setup.server.url, seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, { default_locale: v });
    await patch("sv");
    const other = await checkoutOf("fixed");
    const korean = await watch.open({ viewport: { width: 1280, height: 900 }, locale: "ko-KR" });
    await korean.goto(`/checkout/${other.checkout.clientSecret}`);
    await korean.getByRole("heading", { name: catalog("sv")["summary.yourOrder"] }).waitFor({ state: "attached" });
    expect(await korean.evaluate(() => document.documentElement.lang)).toBe("sv");
    await patch(null);
  });
});
