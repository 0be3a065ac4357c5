// The seller app's other sections in a real Chromium against the real server, on the sandbox side: a checkout
// link made for a product, a discount, a meter's usage chart from ingested events (and a customer's usage past
// their credit said as overage), a webhook endpoint added in the page whose failed delivery is sent again, and a
// sandbox API key made and revoked; live, a product edited and archived, a subscription moved, and a customer's
// many subscriptions and grants a page at a time. Each page is checked with axe and photographed 375 px wide. Each
// test has a seller of its own, so that a retry (CI retries a failed test once) starts from an empty organization
// rather than from its first try's customers and counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createProduct, pay } from "../helpers/checkout.js";
import { uniqueEmail } from "../helpers/client.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { Receiver } from "../helpers/receiver.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let receiver: Receiver;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  receiver = new Receiver();
  [server, browser] = await Promise.all([startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" }), launchForPages(), receiver.start()]);
  // the jobs worker delivers the webhooks (the test server does not start its own)
  await server.worker.start();
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
  await receiver?.stop();
});

const flat = (s: string) => s.replace(/\s+/g, " ").trim();

/** The seller app, signed in as this seller. */
async function sellerPage(seller: Seller): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems);
  contexts.push(context);
  return page;
}

describe("the seller app's sections, in the sandbox", () => {
  it("checkout links, discounts and a meter's usage", async () => {
    const seller = await createSeller(server, "sections");
    const sandbox = sdkFor(server, await seller.createSandboxKey());
    await sandbox.products.create({ name: "Starter kit", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    const meter = await sandbox.meters.create({
      name: "API calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
      aggregation: { func: "count" },
    });
    const customer = await sandbox.customers.create({ email: uniqueEmail("meter-user") });
    // a plan crediting 2 calls, bought by the customer who then makes 3: one call past the credit
    const credit = await sandbox.benefits.create({ type: "meter_credit", description: "2 calls included", properties: { meterId: meter.id, units: 2, rollover: false } });
    const plan = await sandbox.products.create({ name: "Calls plan", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] });
    await sandbox.products.updateBenefits({ id: plan.id, productBenefitsUpdate: { benefits: [credit.id] } });
    await pay(server, await sandbox.checkouts.create({ products: [plan.id], customerId: customer.id }), { customerEmail: customer.email });
    await expect.poll(async () => (await sandbox.customers.getState({ id: customer.id })).activeMeters[0]?.creditedUnits, { timeout: 30_000 }).toBe(2);
    await sandbox.events.ingest({ events: [1, 2, 3].map(() => ({ name: "api.call", customerId: customer.id })) });

    const page = await sellerPage(seller);
    await page.goto("/checkout-links?mode=sandbox");
    await page.getByText("No checkout links yet in the sandbox.").waitFor();
    await page.getByRole("link", { name: "Create your first checkout link" }).click();
    await page.getByLabel("Add a product", { exact: true }).selectOption({ label: "Starter kit" });
    await page.getByRole("list", { name: "Products the link sells" }).getByText("Starter kit").waitFor();
    await page.getByLabel("Label (optional)").fill("Spring offer");
    await page.getByRole("button", { name: "Create checkout link" }).click();
    await page.getByRole("heading", { level: 1, name: "Spring offer" }).waitFor();
    await page.goto("/checkout-links?mode=sandbox");
    await page.getByRole("row", { name: /Spring offer .*Starter kit/ }).waitFor();
    await checkPage(page, "checkout-links");

    await page.goto("/discounts/new");
    await page.getByLabel("Name", { exact: true }).fill("Spring");
    await page.getByLabel("Code (optional)").fill("SPRING20");
    await page.getByLabel("Percentage off").fill("20");
    await page.getByRole("button", { name: "Create discount" }).click();
    await page.locator(".toast").getByText("Created Spring.").waitFor();
    await page.goto("/discounts");
    expect((await page.getByRole("row", { name: /SPRING20/ }).innerText()).replace(/\s+/g, " ")).toMatch(/Spring SPRING20 20 % once 0/);
    await checkPage(page, "discounts");

    await page.goto("/meters");
    await page.getByRole("link", { name: "API calls" }).click();
    await page.waitForURL(new RegExp(`/meters/${meter.id}`));
    await expect.poll(async () => (await page.getByTestId("meter-total").innerText()).trim()).toBe("3");
    // the chart's days, as its table lists them: the three calls on one day of the 30
    await page.getByText("Usage by day", { exact: true }).click();
    const days = (await page.getByRole("region", { name: "Usage by day" }).locator("tbody td.num").allInnerTexts()).map((c) => c.trim());
    expect(days.length).toBeGreaterThanOrEqual(30);
    expect(days.filter((c) => c !== "0")).toEqual(["3"]);
    await checkPage(page, "meter");

    // the customer's page says the call past the credit in words, not as a negative remainder
    await page.goto(`/customers/${customer.id}?mode=sandbox`);
    const meters = page.getByRole("region", { name: "The customer's meters" });
    await expect.poll(async () => flat(await meters.locator("tbody tr").first().innerText())).toMatch(/API calls.*3.*2.*1 over the credit/);
    expect(await meters.getByText("−1").count() + (await meters.getByText("-1").count())).toBe(0);
    await checkPage(page, "customer-meter-overage");
    expect(problems).toEqual([]);
  }, 120_000);

  it("a webhook endpoint's deliveries, sent again; a sandbox API key made and revoked", async () => {
    const seller = await createSeller(server, "sections");
    receiver.answer("/hook", 500);
    const page = await sellerPage(seller);
    await page.goto("/webhooks/new?mode=sandbox");
    await page.getByLabel("URL").fill(`${receiver.url}/hook`);
    await page.getByRole("button", { name: "Add the endpoint" }).click();
    await page.getByRole("group", { name: "Signing secret" }).getByText(/^whsec_|\S{16,}/).waitFor();
    await page.goto("/webhooks?mode=sandbox");
    await checkPage(page, "webhooks");

    // an event for it: a customer made in the sandbox
    const sandbox = sdkFor(server, await seller.createSandboxKey());
    await sandbox.customers.create({ email: uniqueEmail("hooked") });
    await receiver.until((hits) => hits.some((h) => h.path === "/hook"));
    await page.getByRole("link", { name: `${receiver.url}/hook` }).click();
    const failed = page.getByRole("row", { name: /customer\.created failed \(HTTP 500\)/ });
    // the list as loaded anew (its pager, or the empty line, shows once the answer is in)
    const reloaded = async () => {
      await page.reload();
      await page.getByRole("navigation", { name: "Pages" }).or(page.getByText("Nothing delivered yet.")).waitFor();
    };
    await expect.poll(async () => { await reloaded(); return failed.count(); }, { timeout: 20_000 }).toBeGreaterThan(0);
    await checkPage(page, "webhook-deliveries");
    await failed.first().getByRole("button", { name: /^Actions for customer\.created/ }).click();
    await page.getByRole("menuitem", { name: "Redeliver" }).click();
    await page.locator(".toast").getByText(/^Sent customer\.created again/).waitFor();
    await expect.poll(async () => { await reloaded(); return page.getByRole("row", { name: /customer\.created delivered \(HTTP 200\)/ }).count(); }, { timeout: 20_000 }).toBeGreaterThan(0);

    await page.goto("/api-keys");
    await page.getByText("No sandbox API keys yet.").or(page.getByRole("row", { name: /till_test_/ }).first()).waitFor();
    await page.getByLabel("Name").fill("ci sandbox");
    await page.getByRole("button", { name: "Create the key" }).click();
    await page.getByRole("group", { name: "New key ci sandbox" }).getByText(/^till_test_\w+/).waitFor();
    const row = page.getByRole("row", { name: /ci sandbox till_test_/ });
    await row.waitFor();
    await checkPage(page, "api-keys");
    await row.getByRole("button", { name: "Actions for ci sandbox" }).click();
    await page.getByRole("menuitem", { name: "Revoke…" }).click();
    await page.getByRole("dialog", { name: "Revoke ci sandbox?" }).getByRole("button", { name: "Yes, revoke it" }).click();
    await page.locator(".toast").getByText(/^Revoked ci sandbox/).waitFor();
    await expect.poll(() => page.getByRole("row", { name: /ci sandbox/ }).count()).toBe(0);
    expect(problems).toEqual([]);
  }, 120_000);

  it("live: a product's name, price and benefits edited and archived; a subscription moved to another product; lists a page at a time", async () => {
    const seller = await createSeller(server, "sections");
    const benefit = await seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: { note: "Mail us" } });
    const basic = await createProduct(seller, "monthly");
    const pro = await createProduct(seller, "monthly");
    await pay(server, await seller.sdk.checkouts.create({ products: [basic.id] }), { customerEmail: "mover@example.com" });
    for (let i = 0; i < 20; i++) await seller.sdk.customers.create({ email: `many-${i}@example.com` });

    const page = await sellerPage(seller);
    await page.goto(`/products/${basic.id}?mode=live`);
    await page.getByRole("link", { name: "Edit product" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Basic plan");
    await page.getByRole("button", { name: "Change $9.00 / month" }).click();
    await page.getByLabel("Amount").fill("15.00");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator(".toast").getByText("Saved Basic plan.").waitFor();
    await page.getByText("$15.00 / month").waitFor();
    await page.getByRole("checkbox", { name: /Priority support/ }).check();
    await page.getByRole("button", { name: "Save benefits" }).click();
    await page.locator(".toast").getByText("Benefits saved (1).").waitFor();
    expect((await seller.sdk.products.get({ id: basic.id })).benefits.map((b) => b.id)).toEqual([benefit.id]);
    await page.getByRole("button", { name: "Archive the product" }).click();
    await page.getByRole("button", { name: "Yes, archive it" }).click();
    await page.locator(".toast").getByText("Archived: new checkouts can no longer sell it.").waitFor();
    expect((await seller.sdk.products.get({ id: basic.id })).isArchived).toBe(true);
    // its sales, a click away: the subscriptions narrowed to it
    await page.getByRole("link", { name: "its subscriptions" }).click();
    await page.waitForURL(new RegExp(`/subscriptions\\?.*product_id=${basic.id}`));
    await page.getByText("Showing one product's subscriptions.").waitFor();
    expect(flat(await page.getByRole("row", { name: /mover@example\.com/ }).innerText())).toMatch(/^Basic plan mover@example\.com Active/);
    expect(await page.getByRole("row").count()).toBe(2);

    await page.goto("/subscriptions");
    await page.getByRole("row", { name: /mover@example\.com/ }).getByRole("link").click();
    await page.getByRole("button", { name: "Change plan or seats…" }).click();
    const change = page.getByRole("dialog", { name: /^Change / });
    await change.getByLabel("New plan", { exact: true }).selectOption({ label: `${pro.name} ($9.00 / month)` });
    await change.getByRole("button", { name: "Review the change" }).click();
    await change.getByRole("button", { name: "Confirm the change" }).click();
    await page.locator(".toast").getByText(`Changed: ${pro.name}`).waitFor();

    // 21 customers: two pages of 20, the page in the address
    await page.goto("/customers");
    await page.getByText("Page 1 of 2 · 21 in all").waitFor();
    await page.getByRole("link", { name: "Next page" }).click();
    await page.waitForURL(/page=2/);
    await page.getByText("Page 2 of 2 · 21 in all").waitFor();
    expect(await page.getByRole("row").count()).toBe(2);
    expect(problems).toEqual([]);
  }, 120_000);

  it("live: a customer with eleven subscriptions: the detail links to all of them and pages through their grants", async () => {
    const seller = await createSeller(server, "sections");
    const email = uniqueEmail("collector");
    const customer = await seller.sdk.customers.create({ email });
    // another customer's subscription, which the customer's own list must leave out
    const other = await seller.sdk.customers.create({ email: uniqueEmail("other") });
    for (let i = 0; i < 11; i++) {
      const perk = await seller.sdk.benefits.create({ type: "custom", description: `Perk ${i}`, properties: {} });
      const plan = await createProduct(seller, "free", { recurringInterval: "month" });
      await seller.sdk.products.updateBenefits({ id: plan.id, productBenefitsUpdate: { benefits: [perk.id] } });
      await seller.sdk.subscriptions.create({ productId: plan.id, customerId: customer.id });
      if (i === 0) await seller.sdk.subscriptions.create({ productId: plan.id, customerId: other.id });
    }
    // the grants are the worker's
    await expect.poll(async () => (await seller.sdk.benefitGrants.list({ customerId: customer.id, isGranted: true })).result.pagination.totalCount, { timeout: 30_000 }).toBe(11);

    const page = await sellerPage(seller);
    await page.goto(`/customers/${customer.id}?mode=live`);
    await page.getByRole("heading", { level: 1, name: email }).waitFor();
    const grants = page.getByRole("region", { name: "The customer's benefit grants" });
    await page.getByText("Page 1 of 2 · 11 in all").waitFor();
    expect(await grants.getByRole("row").count()).toBe(11);
    await checkPage(page, "customer-many");
    // the grants' second page, in the address (the pager's link, reached by keyboard)
    await page.getByRole("navigation", { name: "Pages of benefit grants" }).getByRole("link", { name: "Next page" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/grants_page=2/);
    await page.getByText("Page 2 of 2 · 11 in all").waitFor();
    expect(await grants.getByRole("row").count()).toBe(2);
    // the pager's link loaded the page anew: each section shows once its own list has come
    await expect.poll(() => page.getByRole("region", { name: "The customer's subscriptions" }).getByRole("row").count()).toBe(11);

    await page.getByRole("link", { name: "All 11 subscriptions" }).click();
    await page.waitForURL(new RegExp(`/subscriptions\\?.*customer_id=${customer.id}`));
    await page.getByText("Showing one customer's subscriptions.").waitFor();
    await page.getByText("Page 1 of 1 · 11 in all").waitFor();
    expect(await page.getByRole("row", { name: email }).count()).toBe(11);
    expect(await page.getByRole("row", { name: other.email! }).count()).toBe(0);
    await checkPage(page, "subscriptions-of-customer");
    expect(problems).toEqual([]);
  }, 150_000);
});
