// The product form's price kinds the shell's test (seller-products) leaves out, each made on the web and read back
// through the SDK: a yearly price in a currency without minor units (jpy) beside one with (gbp), per-seat volume
// tiers, usage priced per unit (a fraction of a cent) and in volume tiers with a flat fee, pay what you want from
// nothing; and a product made on the live side, which the sandbox never sees.
import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { sdkFor } from "../helpers/seller.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";

const pages = useSellerPages("price-kinds");
const { problems } = pages;

const price = (page: Page, n: number): Locator => page.getByRole("group", { name: `Price ${n}`, exact: true });

async function newProduct(page: Page, mode: "sandbox" | "live", name: string, billing: string): Promise<void> {
  await page.goto(`/products/new?mode=${mode}`);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Billing", { exact: true }).selectOption(billing);
}

async function create(page: Page, name: string): Promise<string> {
  await page.getByRole("button", { name: "Create product" }).click();
  await page.waitForURL(/\/products\/[0-9a-f-]{36}\?/);
  await page.getByRole("heading", { level: 1, name }).waitFor();
  return new URL(page.url()).pathname.split("/")[2]!;
}

/** The API's own answer (the fields the SDK does not know, like unit_tiers). */
async function rawPrices(id: string, key: string): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${pages.server.url}/v1/products/${id}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { prices: Array<Record<string, unknown>> }).prices;
}

describe("every price kind made on the web", () => {
  it("desktop, sandbox: yearly in yen and pounds, seat volume tiers, usage per unit and in volume tiers, pay what you want from 0", async () => {
    const sandboxKey = await pages.seller.createSandboxKey();
    const sandbox = sdkFor(pages.server, sandboxKey);
    const meter = await sandbox.meters.create({
      name: "Tokens",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] },
      aggregation: { func: "sum", property: "n" },
    });
    const page = await pages.open(1280);

    // yearly, in a currency without minor units beside one with them
    await newProduct(page, "sandbox", "Annual licence", "year");
    await price(page, 1).getByLabel("Currency").fill("jpy");
    await price(page, 1).getByLabel("Amount").fill("12000");
    await page.getByRole("button", { name: "Add a price" }).click();
    await price(page, 2).getByLabel("Currency").fill("gbp");
    await price(page, 2).getByLabel("Amount").fill("99.99");
    const annual = await sandbox.products.get({ id: await create(page, "Annual licence") });
    expect([annual.recurringInterval, annual.recurringIntervalCount]).toEqual(["year", 1]);
    expect(annual.prices.map((p) => ("priceAmount" in p ? [p.priceCurrency, p.priceAmount] : null))).toEqual([["jpy", 12000], ["gbp", 9999]]);
    await page.getByText("¥12,000 / year").waitFor();
    await checkPage(page, "desktop-product-yen");

    // per seat, volume tiers (the form's default way)
    await newProduct(page, "sandbox", "Studio seats", "month");
    await price(page, 1).getByLabel("Kind").selectOption("seat_based");
    const seat1 = price(page, 1).getByRole("group", { name: "Seat tier 1" });
    await seat1.getByLabel("To seat").fill("10");
    await seat1.getByLabel("Price per seat").fill("12");
    await price(page, 1).getByRole("button", { name: "Add a seat tier" }).click();
    const seat2 = price(page, 1).getByRole("group", { name: "Seat tier 2" });
    await seat2.getByLabel("From seat").fill("11");
    await seat2.getByLabel("Price per seat").fill("9.50");
    const studio = await sandbox.products.get({ id: await create(page, "Studio seats") });
    expect(studio.prices[0]).toMatchObject({
      amountType: "seat_based",
      seatTiers: { seatTierType: "volume", tiers: [{ minSeats: 1, maxSeats: 10, pricePerSeat: 1200 }, { minSeats: 11, maxSeats: null, pricePerSeat: 950 }] },
    });

    // usage at a fraction of a cent per unit, no cap; and usage in volume tiers with a flat fee
    await newProduct(page, "sandbox", "Tokens plan", "month");
    await price(page, 1).getByLabel("Kind").selectOption("metered_unit");
    await price(page, 1).getByLabel("Meter").selectOption({ label: "Tokens" });
    await price(page, 1).getByLabel("Price per unit").fill("0.0005");
    await page.getByRole("button", { name: "Add a price" }).click();
    const tiers = price(page, 2);
    await tiers.getByLabel("Kind").selectOption("metered_unit");
    await tiers.getByLabel("Currency").fill("eur");
    await tiers.getByLabel("Meter").selectOption({ label: "Tokens" });
    await tiers.getByLabel("Price in tiers").check();
    await tiers.getByLabel("How tiers apply").selectOption("volume");
    await tiers.getByRole("group", { name: "Tier 1" }).getByLabel("Up to (units)").fill("100000");
    await tiers.getByRole("group", { name: "Tier 1" }).getByLabel("Per unit").fill("0.001");
    await tiers.getByRole("group", { name: "Tier 1" }).getByLabel("Flat fee").fill("5");
    await tiers.getByRole("button", { name: "Add a tier" }).click();
    await tiers.getByRole("group", { name: "Tier 2" }).getByLabel("Per unit").fill("0.0008");
    await checkPage(page, "desktop-product-new-volume-tiers");
    const tokens = await sandbox.products.get({ id: await create(page, "Tokens plan") });
    expect(tokens.prices.map((p) => [p.amountType, "meterId" in p ? p.meterId : null, "priceCurrency" in p ? p.priceCurrency : null])).toEqual([
      ["metered_unit", meter.id, "usd"],
      ["metered_unit", meter.id, "eur"],
    ]);
    expect(tokens.prices[0]).toMatchObject({ unitAmount: "0.05", capAmount: null });
    const raw = await rawPrices(tokens.id, sandboxKey);
    expect(raw.find((p) => p.price_currency === "eur")?.unit_tiers).toEqual({
      tier_type: "volume",
      tiers: [{ up_to: 100000, unit_amount: "0.1", flat_amount: 500 }, { up_to: null, unit_amount: "0.08", flat_amount: 0 }],
    });

    // pay what you want, from nothing, with no suggestion
    await newProduct(page, "sandbox", "Zine", "");
    await price(page, 1).getByLabel("Kind").selectOption("custom");
    await price(page, 1).getByLabel("Minimum").fill("0");
    const zine = await sandbox.products.get({ id: await create(page, "Zine") });
    expect(zine.prices[0]).toMatchObject({ amountType: "custom", minimumAmount: 0, maximumAmount: null, presetAmount: null });
    expect(problems).toEqual([]);
  }, 180_000);

  it("phone, live: a product made on the live side is the live key's, and the sandbox does not see it", async () => {
    const live = sdkFor(pages.server, await pages.seller.createKey());
    const sandbox = sdkFor(pages.server, await pages.seller.createSandboxKey());
    const page = await pages.open(390);
    await newProduct(page, "live", "Live quarterly", "month");
    await page.getByLabel("Periods per renewal").fill("3");
    await price(page, 1).getByLabel("Amount").fill("30");
    await checkPage(page, "phone-product-new-live");
    const id = await create(page, "Live quarterly");
    const made = await live.products.get({ id });
    expect([made.recurringInterval, made.recurringIntervalCount]).toEqual(["month", 3]);
    expect(made.prices.map((p) => ("priceAmount" in p ? [p.amountType, p.priceCurrency, p.priceAmount] : null))).toEqual([["fixed", "usd", 3000]]);
    await expect(sandbox.products.get({ id })).rejects.toMatchObject({ statusCode: 404 });
    await checkPage(page, "phone-product-live");
    expect(problems).toEqual([]);
  }, 120_000);
});
