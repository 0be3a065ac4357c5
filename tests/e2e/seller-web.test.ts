// The seller's web app in a real Chromium against the real server: in the sandbox, create a product in the
// web app, buy it (a sandbox checkout paid through the API), see it on the home's numbers and in the orders,
// refund it; switch to live with the keyboard and see nothing of the sandbox. Every page visited is checked
// with axe and photographed 375 px wide; a member's role sees no button the API would refuse.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { pay } from "../helpers/checkout.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchForPages()]);
  // the jobs worker renders invoices (the test server does not start its own)
  await server.worker.start();
  seller = await createSeller(server, "web");
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

async function signedIn(email: string): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, email, problems);
  contexts.push(context);
  return page;
}

const text = async (page: Page, testId: string) => (await page.getByTestId(testId).innerText()).trim();

/** The revenue chart's periods that are not zero, as its table (opened once) lists them. */
async function revenueByPeriod(page: Page): Promise<string[]> {
  const table = page.getByRole("region", { name: "Revenue by period" });
  if (!(await table.isVisible())) await page.getByText("Revenue by period").click();
  // each period's own figure: its row's first number (the period before's follows it when comparing)
  const cells = await table.locator("tbody tr").evaluateAll((rows) => rows.map((r) => (r.querySelector("td.num") as HTMLElement | null)?.innerText ?? ""));
  expect(cells).toHaveLength(30);
  return cells.map((c) => c.trim()).filter((c) => c !== "$0.00");
}

describe("the seller web app", () => {
  it("sandbox: creates a product, sees its purchase on the home and in the orders, refunds it; live shows none of it", async () => {
    const page = await signedIn(seller.user.email);
    await page.goto("/?mode=sandbox&range=30d");
    const toggle = page.getByRole("switch", { name: "Sandbox" });
    await expect.poll(() => toggle.getAttribute("aria-checked")).toBe("true");
    await page.getByText("Sandbox: test data only").waitFor();
    expect(new URL(page.url()).searchParams.get("org")).toBe(seller.slug);
    await page.getByTestId("monthly_recurring_revenue").waitFor();
    await checkPage(page, "home-empty");

    // a product made in the web app, on the sandbox side
    // 375 px wide: the sections are behind the Menu button
    await page.getByRole("button", { name: /^Menu/ }).click();
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Products" }).click();
    await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
    await page.getByText("No products yet in the sandbox.").waitFor();
    await checkPage(page, "products-empty");
    await page.getByRole("link", { name: "New product" }).click();
    await page.getByLabel("Name").fill("Sandbox Pro");
    await page.getByLabel("Billing").selectOption("month");
    await page.getByLabel("Amount").fill("12.00");
    await checkPage(page, "product-new");
    await page.getByRole("button", { name: "Create product" }).click();
    await page.waitForURL(/\/products\/[0-9a-f-]{36}\?/);
    const productId = new URL(page.url()).pathname.split("/")[2]!;
    await page.getByRole("heading", { level: 1, name: "Sandbox Pro" }).waitFor();
    await page.getByText("$12.00 / month").waitFor();
    await checkPage(page, "product-edit");

    // a customer buys it in the sandbox
    const sandbox = sdkFor(server, await seller.createSandboxKey());
    await pay(server, await sandbox.checkouts.create({ products: [productId] }), { customerEmail: "ada@example.com" });

    await page.goto("/?range=30d");
    await expect.poll(() => text(page, "monthly_recurring_revenue")).toBe("$12.00");
    expect(await text(page, "revenue")).toBe("$12.00");
    expect(await text(page, "active_subscriptions")).toBe("1");
    // on the chart: its periods (the table behind the canvas) hold the purchase in one day of the 30
    expect(await revenueByPeriod(page)).toEqual(["$12.00"]);
    await checkPage(page, "home");

    // 375 px wide: the sections are behind the Menu button
    await page.getByRole("button", { name: /^Menu/ }).click();
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Orders" }).click();
    const row = page.getByRole("row", { name: /Sandbox Pro/ });
    await row.waitFor();
    expect((await row.innerText()).replace(/\s+/g, " ")).toMatch(/Sandbox Pro ada@example\.com Paid .*\$12\.00/);
    await checkPage(page, "orders");
    await row.getByRole("link").click();
    await page.getByRole("heading", { level: 2, name: "Refunds" }).waitFor();
    // the order's subscription
    expect(await page.getByRole("link", { name: "Open the subscription" }).getAttribute("href")).toMatch(/^\/subscriptions\/[0-9a-f-]{36}\?/);
    await checkPage(page, "order");
    // the invoice: generated on request (unless made already), then its PDF a link away
    const pdfLink = page.getByRole("link", { name: /^Invoice .+ \(PDF\)$/ });
    const generate = page.getByRole("button", { name: "Generate the invoice" });
    await pdfLink.or(generate).first().waitFor();
    if (await generate.isVisible()) await generate.click();
    await pdfLink.waitFor({ timeout: 30_000 });
    const pdf = await page.request.get((await pdfLink.getAttribute("href")) ?? "");
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()["content-type"]).toMatch(/^application\/pdf/);
    // a refund asks once more in a dialog, naming the amount; taking it back refunds nothing
    await page.getByRole("button", { name: "Refund…" }).click();
    await page.getByRole("dialog", { name: "Refund $12.00?" }).getByText(/A refund cannot be taken back\./).waitFor();
    await page.getByRole("button", { name: "Don't refund" }).click();
    await page.getByRole("dialog").waitFor({ state: "hidden" });
    const orderId = new URL(page.url()).pathname.split("/")[2]!;
    expect((await sandbox.orders.get({ id: orderId })).refundedAmount).toBe(0);
    await page.getByRole("button", { name: "Refund…" }).click();
    await page.getByRole("button", { name: "Yes, refund $12.00" }).click();
    await page.locator(".toast").getByText("Refunded $12.00.").or(page.getByRole("alert")).first().waitFor();
    expect(await page.getByRole("alert").count(), await page.locator("main").innerText()).toBe(0);
    await page.getByText("Nothing left to refund.").waitFor();
    await page.goto(page.url());
    await page.locator("dl.facts").getByText("Refunded", { exact: true }).waitFor();

    // live, chosen with the keyboard: none of the sandbox's rows
    await page.getByRole("switch", { name: "Sandbox" }).focus();
    await page.keyboard.press("Space");
    await page.waitForURL(/\/orders\?.*mode=live/);
    await expect.poll(() => page.getByRole("switch", { name: "Sandbox" }).getAttribute("aria-checked")).toBe("false");
    await page.getByText("No orders yet.").waitFor();
    expect(await page.getByText("Sandbox: test data only").count()).toBe(0);
    await checkPage(page, "orders-live");
    await page.goto("/products");
    await page.getByText("No products yet.").waitFor();
    await page.goto("/customers");
    await page.getByText("No customers yet.").waitFor();
    await page.goto("/subscriptions");
    await page.getByText("No subscriptions yet.").waitFor();
    await page.goto("/?range=30d");
    await expect.poll(() => text(page, "monthly_recurring_revenue")).toBe("$0.00");
    expect(await text(page, "revenue")).toBe("$0.00");
    expect(await text(page, "active_subscriptions")).toBe("0");
    expect(await revenueByPeriod(page)).toEqual([]);
    expect(new URL(page.url()).searchParams.get("mode")).toBe("live");
    expect(problems).toEqual([]);
  }, 180_000);
});
