// The seat claim page (/seats/claim?token=…) in a real Chromium against the real server: the link of a seat
// invitation email (read from the SMTP peer) shows the product, the seller and the address, drops the token
// from the address bar, and Claim makes the person a customer with the product's benefit and opens their
// portal. On a phone in the dark colour scheme too; a spent or unknown link says the invitation is not
// available. The buyer gives and takes back seats in their customer portal. No serious or critical axe
// violation, no script or console error.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages, seriousViolations } from "../helpers/browser.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { claimLink, seatsProduct } from "../helpers/seats.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const NOTE = "Ask for your workspace at team@shop.example.";

let server: TestServer;
let seller: Seller;
let browser: Browser;
let product: Product;
let subscriptionId: string;
let orgName: string;
let pageProblems: string[] = [];

async function newPage(opts: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, locale: "en-US", timezoneId: "UTC", ...opts });
  const page = await context.newPage();
  page.on("pageerror", (err) => pageProblems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    // a 404 of the claim info (a spent link) and a 422 of a refused seat are answers the pages show
    if (msg.type() === "error" && !/status of (404|422)/.test(msg.text())) pageProblems.push(`console: ${msg.text()}`);
  });
  return page;
}

/** Assigns a seat to a new address and answers the claim link of its invitation email. */
async function invite(): Promise<{ email: string; link: string }> {
  const email = uniqueBuyer("claim-page");
  await seller.sdk.customerSeats.assignSeat({ subscriptionId, email });
  return { email, link: claimLink(await server.mailbox.waitFor(email, /seat/)) };
}

beforeAll(async () => {
  browser = await launchForPages();
  server = await startServer();
  seller = await createSeller(server, "claim-web");
  orgName = (await seller.sdk.organizations.get({ id: seller.organizationId })).name;
  ({ product } = await seatsProduct(seller, { description: "Team workspace", note: NOTE }));
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], seats: 3 });
  await pay(server, checkout);
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  subscriptionId = order?.subscriptionId ?? "";
  await server.worker.start();
}, 120_000);
afterEach(() => {
  expect(pageProblems).toEqual([]);
  pageProblems = [];
});
afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

describe("seat claim page", () => {
  for (const [name, opts] of [
    ["desktop, light", { viewport: { width: 1280, height: 800 }, colorScheme: "light" }],
    ["phone, dark", { viewport: { width: 390, height: 844 }, colorScheme: "dark", isMobile: true, hasTouch: true }],
  ] as const) {
    it(`shows the invitation and claims it (${name})`, { timeout: 120_000 }, async () => {
      const { email, link } = await invite();
      const page = await newPage(opts);
      await page.goto(new URL(link).pathname + new URL(link).search);
      await page.getByRole("heading", { name: "Claim your seat" }).waitFor();
      expect(page.url()).not.toContain("token=");
      const main = page.locator("main");
      await expect.poll(() => main.textContent()).toContain(product.name);
      const text = (await main.textContent()) ?? "";
      expect(text).toContain(orgName);
      expect(text).toContain(email);
      expect(await seriousViolations(page)).toEqual([]);
      // nothing wider than the screen
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      if (opts.colorScheme === "dark") {
        const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        expect(bg).not.toBe("rgb(255, 255, 255)");
      }

      await page.getByRole("button", { name: "Claim seat" }).click();
      await page.getByRole("heading", { name: "Seat claimed" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      const customers = (await seller.sdk.customers.list({ email })).result.items;
      expect(customers).toHaveLength(1);
      const grants = (await seller.sdk.benefitGrants.list({ customerId: customers[0]!.id })).result.items;
      expect(grants.map((g) => g.isGranted)).toEqual([true]);

      // the portal opens as the new customer, with the seat's benefit
      await page.getByRole("link", { name: "Open your customer portal" }).click();
      await page.waitForURL((u) => u.pathname === "/portal");
      await expect.poll(() => page.locator("main").textContent(), { timeout: 10_000 }).toContain(NOTE);
      await page.context().close();
    });
  }

  it("the buyer gives a seat from the customer portal, and takes it back", { timeout: 120_000 }, async () => {
    const checkout = await seller.sdk.checkouts.create({ products: [product.id], seats: 2 });
    const confirmed = await pay(server, checkout);
    const session = await seller.sdk.customerSessions.create({ customerId: confirmed.customerId ?? "" });
    const page = await newPage({ viewport: { width: 390, height: 844 }, colorScheme: "dark", isMobile: true, hasTouch: true });
    await page.goto(`/portal?customer_session_token=${encodeURIComponent(session.token)}`);
    await page.getByRole("heading", { name: "Seats", exact: true }).waitFor();
    await expect.poll(() => page.locator(".seats").textContent()).toContain("0 of 2 seats assigned, 2 free.");
    expect(await seriousViolations(page)).toEqual([]);

    const email = uniqueBuyer("portal-seat");
    await page.getByLabel("Give a seat to (email)").fill(email);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect.poll(() => page.locator(".seats").textContent()).toContain("1 of 2 seats assigned, 1 free.");
    expect(await page.locator(".seat-list").textContent()).toContain(email);
    expect(await page.getByRole("status").allTextContents()).toContain(`${email} is invited to a seat of ${product.name}: an email with a link to claim it is on its way.`);
    expect((await server.mailbox.waitFor(email, /seat/)).links.some((l) => l.includes("/seats/claim?token="))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    // the same email twice: the server's message by the field
    await page.getByLabel("Give a seat to (email)").fill(email);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect.poll(() => page.locator(".assign-seat").textContent()).toContain("already has a seat");

    await page.getByRole("button", { name: `Take back the seat of ${email}` }).click();
    await expect.poll(() => page.locator(".seats").textContent()).toContain("0 of 2 seats assigned, 2 free.");
    const seats = await seller.sdk.customerSeats.listSeats({ subscriptionId: (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items[0]?.subscriptionId ?? "" });
    expect(seats.seats.map((x) => x.status)).toEqual(["revoked"]);
    await page.context().close();
  });

  it("says a spent or unknown invitation is not available", { timeout: 120_000 }, async () => {
    const { link } = await invite();
    const token = new URL(link).searchParams.get("token") ?? "";
    const seats = await seller.sdk.customerSeats.listSeats({ subscriptionId });
    const pending = seats.seats.find((s) => s.status === "pending");
    await seller.sdk.customerSeats.revokeSeat({ seatId: pending?.id ?? "" });
    for (const t of [token, "till_seat_unknown"]) {
      const page = await newPage({ colorScheme: "dark" });
      await page.goto(`/seats/claim?token=${encodeURIComponent(t)}`);
      await page.getByRole("heading", { name: "Invitation not available" }).waitFor();
      expect(await page.getByRole("alert").textContent()).toContain("send it again");
      expect(await page.getByRole("button", { name: "Claim seat" }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await page.context().close();
    }
  });
});
