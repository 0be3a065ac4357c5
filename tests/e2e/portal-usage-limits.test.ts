// The portal's usage against the cap and the credits in a real Chromium: a subscription to a
// volume-tiered metered price capped at $40 whose usage went past the cap shows the amount so far, "$40.00 of
// $40.00 spending cap (reached)", that usage beyond it is not billed, and the tiers as the invoice bills them.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages } from "../helpers/browser.js";
import { rawRequest } from "../helpers/api.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  server = await startServer();
  browser = await launchForPages();
  seller = await createSeller(server, "portal-usage");
}, 60_000);

afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

describe("the portal's usage view", () => {
  it("shows the usage against the cap, and the tiers", async () => {
    const meter = await seller.sdk.meters.create({
      name: "Tokens",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] },
      aggregation: { func: "sum", property: "units" },
    });
    const created = await rawRequest(server.url, seller.token, "POST", "/v1/products/", {
      name: "Volume",
      recurring_interval: "month",
      prices: [
        {
          amount_type: "metered_unit",
          meter_id: meter.id,
          cap_amount: 4000,
          unit_tiers: {
            tier_type: "volume",
            tiers: [
              { up_to: 1000, unit_amount: "1" },
              { up_to: null, unit_amount: "0.25", flat_amount: 1000 },
            ],
          },
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkout = await seller.sdk.checkouts.create({ products: [created.body.id as string] });
    const confirmed = await pay(server, checkout, { customerEmail: uniqueBuyer("portal-usage") });
    if (!confirmed.customerId) throw new Error("no customer");
    const ingested = await rawRequest(server.url, seller.token, "POST", "/v1/events/ingest", {
      events: [{ name: "tokens", customer_id: confirmed.customerId, metadata: { units: 15000 } }],
    });
    expect(ingested.status).toBe(200);

    const { customerPortalUrl } = await seller.sdk.customerSessions.create({ customerId: confirmed.customerId });
    const context = await browser.newContext({ baseURL: server.url, locale: "en-US", timezoneId: "UTC" });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    await page.goto(customerPortalUrl);
    const usage = page.getByRole("table", { name: "Usage of Volume this period" });
    // 15,000 × $0.0025 + $10 = $47.50, capped at $40
    expect(await usage.getByRole("row", { name: /^Tokens / }).innerText()).toBe(["Tokens", "15,000", "0", "15,000", "$40.00"].join("\t"));
    const limits = page.getByRole("list", { name: "Limits of Volume this period" });
    const text = await limits.innerText();
    expect(text).toContain("$40.00 of $40.00 spending cap (reached)");
    expect(text).toContain("usage beyond the cap is not billed this period");
    expect(text).toContain("$0.01 per token for 1–1,000, $0.0025 per token above 1,000 + $10.00 (volume");
    expect(await limits.getByRole("meter", { name: "Tokens: spending cap" }).getAttribute("value")).toBe("4000");
    await page.screenshot({ path: "/tmp/i29-portal-usage.png", fullPage: true });
    expect(problems).toEqual([]);
  });
});
