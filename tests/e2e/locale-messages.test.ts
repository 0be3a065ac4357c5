// The customer pages' generated wording in the buyer's language (issue 30), in a real Chromium against the real
// server, in German:
// - a tiered, capped metered price on the checkout reads its tiers from the catalog, with `Intl`'s amounts and counts;
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { launchForPages, PageWatch } from "../helpers/browser.js";
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
  await browser?.close();
  await setup?.server.close();
});

/** Intl's spaces (a no-break space before "$" in German) read as plain ones. */
const spaced = (s: string) => s.replace(/\s+/g, " ").trim();

describe("the checkout in German", () => {
  it("reads a tiered, capped metered price in German, its amounts and counts as Intl writes them", async () => {
    const suffix = Date.now().toString(36);
    const meter = await seller.sdk.meters.create({
      name: `Tokens ${suffix}`,
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: `tokens-${suffix}` }] },
      aggregation: { func: "sum", property: "units" },
    });
    const plan = await rawRequest(setup.server.url, seller.token, "POST", "/v1/products/", {
      name: `Pro plan ${suffix}`,
      recurring_interval: "month",
      prices: [
        { amount_type: "fixed", price_amount: 900, price_currency: "usd" },
        {
          amount_type: "metered_unit",
          meter_id: meter.id,
          cap_amount: 4000,
          unit_tiers: { tier_type: "graduated", tiers: [{ up_to: 1000, unit_amount: "1" }, { up_to: null, unit_amount: "0.25", flat_amount: 500 }] },
        },
      ],
    });
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    const checkout = await seller.sdk.checkouts.create({ products: [String(plan.body.id)], locale: "de" });
    const page = await watch.open({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    await page.goto(`/checkout/${checkout.clientSecret}`);
    const metered = page.getByTestId("metered-prices");
    await metered.waitFor();
    expect(spaced(await metered.innerText())).toBe(
      `0,01 $ pro Tokens ${suffix} für 1–1.000, 0,0025 $ pro Tokens ${suffix} über 1.000 + 5,00 $ (gestaffelt), monatlich abgerechnet, höchstens 40,00 $`,
    );
  });
});
