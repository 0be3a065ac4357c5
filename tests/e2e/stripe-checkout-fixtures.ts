// The set-up the hosted checkout's Stripe tests share (stripe-checkout-page.test.ts,
// stripe-payment-element.test.ts): a Stripe sandbox with its worker started, Chromium, a checkout opened on the
// page with the Stripe.js stand-in, the buyer's form filled, and what the stand-in Stripe saw.
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { formatMoney } from "../../shared/money.js";
import { closePages, launchForPages, PageWatch } from "../helpers/browser.js";
import { createProduct, uniqueBuyer, type ProductKind } from "../helpers/checkout.js";
import type { Seller } from "../helpers/seller.js";
import { installStripeJs, type StripeJsStandIn } from "../helpers/stripe-js-standin.js";
import { startStripeSandbox, type StripeSandbox } from "../helpers/stripe-sandbox.js";

export interface Opened {
  page: Page;
  stripeJs: StripeJsStandIn;
  checkout: { id: string; clientSecret: string };
}

/** A euro price for `kind` (SEPA Direct Debit is charged in euros only). */
export const EUR = { fixed: { prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "eur" }] } } as const;

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function stripeCheckoutFixture() {
  const fx = {} as { s: StripeSandbox; seller: Seller; browser: Browser };
  const pages = new PageWatch(() => ({ browser: fx.browser, options: { baseURL: fx.s.server.url }, timeout: 20_000 }));

  beforeAll(async () => {
    fx.s = await startStripeSandbox();
    fx.seller = { ...fx.s.seller, sdk: fx.s.sdk, token: fx.s.key };
    // Stripe's events (a 3-D Secure payment that succeeded) are processed by the worker
    await fx.s.server.worker.start();
    fx.browser = await launchForPages();
  }, 120_000);

  afterEach(async () => {
    expect(await pages.done()).toEqual([]);
  });

  afterAll(async () => {
    await closePages(fx.browser);
    await fx.s?.server.worker.stop();
    await fx.s?.close();
  });

  async function open(kind: ProductKind, currency: "usd" | "eur" = "usd"): Promise<Opened> {
    if (currency === "eur" && kind !== "fixed") throw new Error(`no euro price for ${kind}`);
    const product = await createProduct(fx.seller, kind, currency === "eur" ? EUR.fixed : {});
    // the success view stays on the page (till's base URL is Stripe's public one, not this server)
    const checkout = await fx.s.sdk.checkouts.create({ products: [product.id], successUrl: `${fx.s.server.url}/checkout/thanks?checkout_id={CHECKOUT_ID}` });
    const page = await pages.open({ viewport: { width: 1280, height: 900 } });
    const stripeJs = await installStripeJs(page, fx.s.peer);
    await page.goto(`/checkout/${checkout.clientSecret}`);
    await page.getByLabel("Email", { exact: true }).waitFor();
    await page.getByLabel("Card number", { exact: true }).waitFor();
    return { page, stripeJs, checkout };
  }

  async function fill(page: Page, card: string) {
    await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("stripe-page"));
    await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
    await page.getByLabel("Country", { exact: true }).selectOption("FR");
    await typeCard(page, card);
  }

  async function typeCard(page: Page, card: string) {
    await page.getByLabel("Card number", { exact: true }).fill(card);
    await page.getByLabel("Expiration date", { exact: true }).fill("12 / 34");
    await page.getByLabel("Security code", { exact: true }).fill("123");
  }

  /** The Pay button once the total is current, and the API's total it must show. */
  async function payButtonMatchesApi(page: Page, checkoutId: string) {
    const button = page.locator("button.pay");
    await expect.poll(() => button.isEnabled()).toBe(true);
    const api = await fx.s.sdk.checkouts.get({ id: checkoutId });
    if (!api.activeTrialInterval) await expect.poll(() => button.textContent()).toBe(`Pay ${formatMoney(api.totalAmount, api.currency)}`);
    return { button, total: api.totalAmount };
  }

  const thanks = (page: Page) => page.getByRole("heading", { level: 1, name: "Thank you for your purchase", exact: true }).waitFor();
  const intentsOf = (checkoutId: string) => [...fx.s.peer.payments.intents.values()].filter((i) => i.metadata.checkout_id === checkoutId);
  const ordersOf = async (checkoutId: string) => (await fx.s.sdk.orders.list({ limit: 100 })).result.items.filter((o) => o.checkoutId === checkoutId);

  function nothingLeft(stripeJs: StripeJsStandIn) {
    expect(stripeJs.escaped).toEqual([]);
    expect(stripeJs.scriptLoads).toBe(1);
  }

  return Object.assign(fx, { pages, open, fill, typeCard, payButtonMatchesApi, thanks, intentsOf, ordersOf, nothingLeft });
}
