// The checkout page in the buyer's language (issue 30), in a real Chromium against the real server:
// - the pseudo-locale (en-XA, every message bracketed and ~40% longer): the checkout form, its errors and the
//   success view show no text outside a bracketed message but data (names, amounts, the order number), no
//   horizontal overflow on a phone or a desktop, a layout that only grows downwards against English (screenshots
//   compared by size) and no serious axe violation;
// - the portal's sign-in (asking for the email, then the code) likewise, in the browser's language;
// - each locale given as `locale` at checkouts.create (through @polar-sh/sdk 0.47 and 0.49 in turn): `<html lang>`,
//   the amount and the trial's first-charge date as `Intl` writes them in that locale, its words from its catalog;
// - without a checkout locale: the browser's language, else the organization's default, and the confirm records
//   the language the page spoke.
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LOCALES } from "../../shared/i18n/locales.js";
import { rawRequest } from "../helpers/api.js";
import { CARDS, createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { launchForPages, PageWatch, seriousViolations } from "../helpers/browser.js";
import { type Seller } from "../helpers/seller.js";
import { startWithSellers, type SellerSetup } from "../helpers/seller.js";

let setup: SellerSetup;
let seller: Seller;
let browser: Browser;
const watch = new PageWatch(() => ({ browser, options: { baseURL: setup.server.url, timezoneId: "UTC" }, timeout: 15_000 }));

const catalog = (locale: string) =>
  JSON.parse(readFileSync(new URL(`../../web/src/i18n/checkout/${locale}.json`, import.meta.url), "utf8")) as Record<string, string>;

beforeAll(async () => {
  setup = await startWithSellers("i18n-page");
  seller = setup.seller;
  browser = await launchForPages();
}, 180_000);
afterEach(async () => expect(await watch.done()).toEqual([]));
afterAll(async () => {
  await browser?.close();
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
