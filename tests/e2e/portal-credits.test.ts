// The portal's credit sentences in a real Chromium, in the buyer's words: credits given once with the purchase that
// carry over until used, a yearly plan's credits given month by month that add up until the renewal, and a credit
// pool of the subscription's own; in English and in German. Screenshots go to /work/notes/shots-credits when that
// folder exists (for a person to look at), else to the system's temporary folder.
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
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
const SHOTS = existsSync("/work/notes/shots-credits") ? "/work/notes/shots-credits" : os.tmpdir();

beforeAll(async () => {
  server = await startServer();
  browser = await launchForPages();
  seller = await createSeller(server, "portal-credits");
}, 60_000);

afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

const raw = (method: string, p: string, body?: unknown) => rawRequest(server.url, seller.token, method, p, body);

/** A plan with one credit benefit, bought by a new customer; the customer's portal URL. */
async function bought(name: string, interval: "month" | "year", description: string, properties: Record<string, unknown>): Promise<string> {
  const b = await raw("POST", "/v1/benefits/", { type: "meter_credit", description, properties });
  expect(b.status, JSON.stringify(b.body)).toBe(201);
  const price = { amount_type: "fixed", price_amount: interval === "year" ? 12_000 : 1000, price_currency: "usd" };
  const product = await raw("POST", "/v1/products/", { name, recurring_interval: interval, prices: [price] });
  expect(product.status).toBe(201);
  await raw("POST", `/v1/products/${product.body.id}/benefits`, { benefits: [b.body.id] });
  const checkout = await seller.sdk.checkouts.create({ products: [product.body.id as string] });
  const confirmed = await pay(server, checkout, { customerEmail: uniqueBuyer("portal-credits") });
  if (!confirmed.customerId) throw new Error("no customer");
  // the grant is made by the worker's fan-out: wait until the customer holds it
  for (let i = 0; i < 100; i++) {
    const state = await raw("GET", `/v1/customers/${confirmed.customerId}/state`);
    if ((state.body.granted_benefits as unknown[] | undefined)?.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return (await seller.sdk.customerSessions.create({ customerId: confirmed.customerId })).customerPortalUrl;
}

async function creditText(url: string, locale: string, shot: string): Promise<string> {
  const context = await browser.newContext({ baseURL: server.url, locale, timezoneId: "UTC" });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  await page.goto(url);
  const hint = page.locator("p.hint").filter({ hasText: /credit|Guthaben/ }).first();
  await hint.waitFor();
  await page.screenshot({ path: path.join(SHOTS, shot), fullPage: true });
  const text = await hint.innerText();
  await context.close();
  return text;
}

describe("the portal's credit sentences", () => {
  it("say once, monthly on a yearly plan and a subscription's own pool in the buyer's words", async () => {
    const meter = await seller.sdk.meters.create({ name: "Tokens", filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] }, aggregation: { func: "count" } });
    const once = await bought("Starter", "month", "Welcome credits", { units: 500, rollover: true, meter_id: meter.id, schedule: "once" });
    const monthly = await bought("Annual", "year", "Monthly credits", { units: 100, rollover: false, meter_id: meter.id, schedule: "monthly" });
    const pool = await bought("Team", "month", "Team credits", { units: 50, rollover: false, meter_id: meter.id, pool: "subscription" });

    expect(await creditText(once, "en-US", "once-en.png")).toBe(
      "500 credits, given once with your purchase. Credits you don't use carry over until they're used up. 500 credits this period.",
    );
    const yearly = await creditText(monthly, "en-US", "monthly-en.png");
    expect(yearly).toMatch(
      /^100 credits each month\. Credits you don't use add up from month to month until your plan renews, then end\. Next credits on .+\. 100 credits so far this billing period\.$/,
    );
    expect(await creditText(pool, "en-US", "pool-en.png")).toBe(
      "50 credits each billing period. Credits you don't use end with the billing period. They cover only this subscription's usage. 50 credits this period.",
    );
    const german = await creditText(monthly, "de-DE", "monthly-de.png");
    expect(german).toContain("100 Guthaben-Einheiten pro Monat. Nicht genutztes Guthaben sammelt sich von Monat zu Monat an, bis Ihr Tarif verlängert wird");
    expect(await creditText(pool, "de-DE", "pool-de.png")).toContain("Es gilt nur für die Nutzung dieses Abonnements.");
    expect(problems).toEqual([]);
  });
});
