// The customer portal page (/portal) in a real Chromium against the real server: a seller's customer
// session link opens it (the token leaves the address bar and stays in the tab), the customer sees their
// subscription, orders and benefits (the whole license key, copied with its button; activations; a custom
// benefit's note), cancels with a reason and keeps the subscription again, saves billing details (the
// server's field messages shown), and an expired, unknown or missing session says so and leads back to the
// seller or to a sign-in code by email (the link of that email opens the portal with the code). Also the dark
// colour scheme and a phone's width. No script or console errors anywhere.
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Polar } from "@polar-sh/sdk";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages, PageWatch } from "../helpers/browser.js";
import { customerSession } from "../../server/db/schema/index.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { uploadFile } from "../helpers/files.js";
import { startServer, type TestServer } from "../helpers/server.js";

const SCREENSHOT_DIR = path.join(os.tmpdir(), "till-web-e2e");
const RETURN_URL = "https://shop.example/account";
const NOTE = "Mail support@shop.example for help.";

let server: TestServer;
let seller: Seller;
let browser: Browser;

let oneTime: Product;
let monthly: Product;
let customerId: string;
let customerEmail: string;
let subscriptionId: string;
let licenseKey: string;
/** This test's pages, closed after it; the script and console errors they log fail it. */
const pages = new PageWatch(() => ({ browser, options: { baseURL: server.url, locale: "en-US", timezoneId: "UTC" }, timeout: 10_000 }));
const HANDBOOK = Buffer.from("%PDF-1.4 the handbook");

beforeAll(async () => {
  server = await startServer();
  browser = await launchForPages();

  seller = await createSeller(server, "portal-web");
  const keys = await seller.sdk.benefits.create({ type: "license_keys", description: "App license", properties: { prefix: "APP", activations: { limit: 3, enableCustomerAdmin: true } } });
  const note = await seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: { note: NOTE } });
  [oneTime, monthly] = await Promise.all([createProduct(seller, "fixed"), createProduct(seller, "monthly")]);
  await seller.sdk.products.updateBenefits({ id: oneTime.id, productBenefitsUpdate: { benefits: [keys.id] } });
  const handbook = await uploadFile(seller.sdk, "handbook.pdf", HANDBOOK, "downloadable");
  const files = await seller.sdk.benefits.create({ type: "downloadables", description: "The handbook", properties: { files: [handbook.id] } });
  await seller.sdk.products.updateBenefits({ id: monthly.id, productBenefitsUpdate: { benefits: [note.id, files.id] } });

  customerEmail = uniqueBuyer("portal");
  for (const product of [oneTime, monthly]) {
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const confirmed = await pay(server, checkout, { customerEmail });
    customerId = confirmed.customerId ?? "";
  }
  const [subscription] = (await seller.sdk.subscriptions.list({ customerId })).result.items;
  subscriptionId = subscription?.id ?? "";
  const [key] = (await seller.sdk.licenseKeys.list({ organizationId: seller.organizationId })).result.items;
  licenseKey = key?.key ?? "";
  expect(licenseKey).toMatch(/^APP-/);
  // the software activated it once on the customer's machine
  await new Polar({ serverURL: server.url }).customerPortal.licenseKeys.activate({ key: licenseKey, organizationId: seller.organizationId, label: "Ada's laptop" });
});

afterEach(async () => {
  expect(await pages.done()).toEqual([]);
});

afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

const newPage = (opts: BrowserContextOptions = {}): Promise<Page> => pages.open(opts);

async function portalUrl(returnUrl: string | null = RETURN_URL) {
  const s = await seller.sdk.customerSessions.create({ customerId, ...(returnUrl ? { returnUrl } : {}) });
  return { url: s.customerPortalUrl, token: s.token, id: s.id };
}

const expire = (id: string) => server.database.db.update(customerSession).set({ expiresAt: new Date(Date.now() - 60_000) }).where(eq(customerSession.id, id));

const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true }).waitFor();
const pathOf = (page: Page) => {
  const u = new URL(page.url());
  return `${u.pathname}${u.search}`;
};
const section = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const statusIn = (page: Page, name: string) => section(page, name).getByRole("status");
const text = async (l: { textContent(): Promise<string | null> }) => (await l.textContent())?.replace(/\s+/g, " ").trim();
const longDate = (d: Date | string) => new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(d));

async function openPortal(opts: Parameters<Browser["newContext"]>[0] = {}) {
  const session = await portalUrl();
  const page = await newPage(opts);
  await page.goto(session.url);
  await heading(page, "Your purchases");
  await section(page, "Subscriptions").waitFor();
  return { page, session };
}

describe("serving /portal", () => {
  it("answers with the app shell, no-cache, framing refused and no Referer at all", async () => {
    const res = await fetch(`${server.url}/portal?customer_session_token=till_cst_x`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  });
});

describe("the customer's purchases", () => {
  it("shows the subscription, the orders and the benefits; the token leaves the address bar and stays in the tab", async () => {
    const { page, session } = await openPortal();
    expect(pathOf(page)).toBe("/portal");
    expect(await page.evaluate(() => sessionStorage.getItem("till.portal"))).toContain(session.token);
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    expect(await text(page.locator("p.lead"))).toContain(`From ${org.name}, for`);

    const subscription = await seller.sdk.subscriptions.get({ id: subscriptionId });
    const subs = section(page, "Subscriptions");
    await subs.getByRole("heading", { level: 3, name: monthly.name }).waitFor();
    const subsText = await text(subs);
    expect(subsText).toContain("Price$9.00 / month");
    expect(subsText).toContain("StatusActive");
    expect(subsText).toContain(`Renews on${longDate(subscription.currentPeriodEnd ?? "")}`);
    await subs.getByRole("button", { name: "Cancel subscription" }).waitFor();

    const orders = (await seller.sdk.orders.list({ customerId })).result.items;
    expect(orders).toHaveLength(2);
    const ordersText = await text(section(page, "Orders"));
    for (const o of orders) {
      expect(ordersText).toContain(`Invoice number${o.invoiceNumber}`);
      expect(ordersText).toContain(`Date${longDate(o.createdAt)}`);
      expect(ordersText).toContain(o.description);
    }
    expect(ordersText).toContain("Amount$25.00");
    expect(ordersText).toContain("Amount$9.00");
    expect(ordersText).toContain("StatusPaid");

    const benefits = section(page, "Benefits");
    await benefits.getByRole("heading", { level: 3, name: "App license" }).waitFor();
    expect(await benefits.getByTestId("license-key").textContent()).toBe(licenseKey);
    const benefitsText = await text(benefits);
    expect(benefitsText).toContain("StatusActive");
    expect(benefitsText).toContain("ExpiresNever");
    expect(benefitsText).toContain("Activations1 of 3 used");
    expect(benefitsText).toContain("Ada's laptop");
    await benefits.getByRole("heading", { level: 3, name: "Priority support" }).waitFor();
    expect(benefitsText).toContain(NOTE);
    // a downloadables benefit's file, through its signed link
    const download = benefits.getByRole("link", { name: "Download handbook.pdf" });
    const href = (await download.getAttribute("href")) ?? "";
    const res = await fetch(href);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(HANDBOOK)).toBe(true);

    // Copy puts the whole key on the clipboard
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await benefits.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => text(statusIn(page, "Benefits"))).toBe("License key copied.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(licenseKey);

    // back to the seller, at the session's return URL
    expect(await page.getByRole("link", { name: `Back to ${org.name}` }).getAttribute("href")).toBe(RETURN_URL);

    // a reload keeps working from the tab's storage
    await page.reload();
    await heading(page, "Your purchases");
    await section(page, "Orders").getByText(orders[0]?.invoiceNumber ?? "-").waitFor();
  });

  it("cancels the subscription with a reason and a comment, then keeps it", async () => {
    const { page } = await openPortal();
    const subs = section(page, "Subscriptions");
    const periodEnd = longDate((await seller.sdk.subscriptions.get({ id: subscriptionId })).currentPeriodEnd ?? "");
    await subs.getByRole("button", { name: "Cancel subscription" }).click();
    const reason = subs.getByLabel("Why are you canceling?");
    await expect.poll(() => reason.evaluate((el) => el === document.activeElement)).toBe(true);
    // a reason is asked for before anything is sent
    await subs.getByRole("button", { name: "Confirm cancellation" }).click();
    expect(await reason.evaluate((el) => (el as HTMLSelectElement).validity.valueMissing)).toBe(true);
    expect((await seller.sdk.subscriptions.get({ id: subscriptionId })).cancelAtPeriodEnd).toBe(false);

    await reason.selectOption({ label: "It is too expensive" });
    await subs.getByLabel("Anything else you want to tell us? (optional)").fill("Cheaper elsewhere.");
    await subs.getByRole("button", { name: "Confirm cancellation" }).click();
    await expect.poll(() => text(statusIn(page, "Subscriptions"))).toBe(`${monthly.name} is canceled. You keep it until ${periodEnd}; it will not renew.`);
    const canceled = await seller.sdk.subscriptions.get({ id: subscriptionId });
    expect(canceled).toMatchObject({ cancelAtPeriodEnd: true, customerCancellationReason: "too_expensive", customerCancellationComment: "Cheaper elsewhere.", status: "active" });
    const subsText = await text(subs);
    expect(subsText).toContain("StatusCanceled, active until it ends");
    expect(subsText).toContain(`Ends on${periodEnd}`);

    await subs.getByRole("button", { name: "Keep my subscription" }).click();
    await expect.poll(() => text(statusIn(page, "Subscriptions"))).toBe(`${monthly.name} will renew on ${periodEnd}.`);
    expect((await seller.sdk.subscriptions.get({ id: subscriptionId })).cancelAtPeriodEnd).toBe(false);
    expect(await text(subs)).toContain(`Renews on${periodEnd}`);
    await subs.getByRole("button", { name: "Cancel subscription" }).waitFor();
  });

  it("saves billing details, and shows the server's message next to a bad field without saving anything", async () => {
    const { page } = await openPortal();
    const billing = section(page, "Billing details");
    // the checkout's address (France, no lines) is filled in
    expect(await billing.getByLabel("Country").inputValue()).toBe("FR");
    await billing.getByLabel("Billing name").fill("Ada Lovelace Ltd");
    await billing.getByLabel("Country").selectOption({ label: "Germany" });
    await billing.getByLabel("Address line 1").fill("Unter den Linden 1");
    await billing.getByLabel("City").fill("Berlin");
    await billing.getByLabel("Postal code").fill("10117");
    await billing.getByLabel("Tax ID").fill("US-123");
    await billing.getByRole("button", { name: "Save billing details" }).click();
    await expect.poll(() => text(page.getByRole("alert"))).toBe("Your billing details are not saved: check the fields marked below.");
    const taxId = billing.getByLabel("Tax ID");
    expect(await taxId.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await taxId.getAttribute("aria-describedby")) ?? "";
    expect(await text(page.locator(`[id="${describedBy.split(" ").pop()}"]`))).toBe("Invalid tax ID.");
    await expect.poll(() => taxId.evaluate((el) => el === document.activeElement)).toBe(true);
    const unchanged = await seller.sdk.customers.get({ id: customerId });
    expect(unchanged).toMatchObject({ name: "Ada Buyer", billingAddress: { country: "FR" }, taxId: null });

    await taxId.fill("DE 123 456 789");
    await billing.getByRole("button", { name: "Save billing details" }).click();
    await expect.poll(() => text(statusIn(page, "Billing details"))).toBe("Your billing details are saved.");
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await taxId.getAttribute("aria-invalid")).toBeNull();
    expect(await taxId.inputValue()).toBe("DE123456789");
    // the business name is the customer's billing name (Polar's billing_name, read by 0.49.0); the person keeps theirs
    const saved = await seller.sdk049.customers.get({ id: customerId });
    expect(saved).toMatchObject({
      name: "Ada Buyer",
      billingName: "Ada Lovelace Ltd",
      billingAddress: { country: "DE", line1: "Unter den Linden 1", city: "Berlin", postalCode: "10117", line2: null, state: null },
      taxId: ["DE123456789", "eu_vat"],
    });

    // what was saved is what a new visit shows
    await page.reload();
    await heading(page, "Your purchases");
    expect(await billing.getByLabel("Billing name").inputValue()).toBe("Ada Lovelace Ltd");
    expect(await billing.getByLabel("Country").inputValue()).toBe("DE");
    expect(await billing.getByLabel("Address line 1").inputValue()).toBe("Unter den Linden 1");
  });
});

describe("a session that is gone", () => {
  it("says an expired link has expired and leads back to the seller", async () => {
    const session = await portalUrl();
    await expire(session.id);
    const page = await newPage();
    await page.goto(session.url);
    await heading(page, "This link has expired");
    expect(pathOf(page)).toBe("/portal");
    expect(await text(page.getByRole("alert"))).toBe("This link to your purchases has expired or is not complete.");
    await page.getByText("Ask the seller for a new one").waitFor();
    // introspection was refused, so no return URL is known: the way back is the browser's
    await page.getByRole("button", { name: "Go back" }).waitFor();
  });

  it("says so when the session expires while the page is open, and keeps the seller's return URL", async () => {
    const { page, session } = await openPortal();
    await expire(session.id);
    await section(page, "Billing details").getByRole("button", { name: "Save billing details" }).click();
    await heading(page, "This link has expired");
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    expect(await page.getByRole("link", { name: `Back to ${org.name}` }).getAttribute("href")).toBe(RETURN_URL);
    expect(await page.evaluate(() => sessionStorage.getItem("till.portal"))).not.toContain(session.token);
    // a reload does not bring the spent token back
    await page.reload();
    await heading(page, "This link has expired");
    expect(await page.getByRole("link", { name: `Back to ${org.name}` }).getAttribute("href")).toBe(RETURN_URL);

    // the seller is known from the purchases: a new way in by email
    await page.getByRole("link", { name: "Email me a sign-in code" }).click();
    await heading(page, `Your purchases from ${org.name}`);
    expect(pathOf(page)).toBe(`/portal?organization=${seller.slug}`);
  });

  it("opens the portal with a code mailed to the customer (the link of that email)", async () => {
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    const page = await newPage();
    await page.goto(`/portal?organization=${seller.slug}`);
    await heading(page, `Your purchases from ${org.name}`);
    // the header names the seller, not till
    await expect.poll(() => page.getByTestId("brand").textContent()).toBe(org.name);
    await page.getByLabel("Email", { exact: true }).fill(customerEmail.toUpperCase());
    await page.getByRole("button", { name: "Email me a code" }).click();
    await heading(page, "Enter your code");
    // the code field starts empty (it once kept the email typed in the field before it)
    expect(await page.getByLabel("Code", { exact: true }).inputValue()).toBe("");
    const mail = await server.mailbox.waitFor(customerEmail, /^Access your .+ purchases$/);
    expect(mail.links[0]).toBe(`${server.url}/portal?organization=${seller.slug}`);
    expect(mail.fromName).toBe(org.name);
    const code = /^ *([A-Z2-9]{8})$/m.exec(mail.text)?.[1] ?? "";

    await page.getByLabel("Code", { exact: true }).fill("ABCDEFGH");
    await page.getByRole("button", { name: "Open my purchases" }).click();
    await expect.poll(() => text(page.getByRole("alert"))).toBe("That code did not work.");
    expect(await page.getByLabel("Code", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await page.getByText("This code is wrong, used already or expired. Check it, or ask for a new one.").waitFor();

    await page.getByLabel("Code", { exact: true }).fill(code.toLowerCase());
    await page.getByRole("button", { name: "Open my purchases" }).click();
    await heading(page, "Your purchases");
    await section(page, "Subscriptions").getByRole("heading", { level: 3, name: monthly.name }).waitFor();
    expect(await section(page, "Benefits").getByTestId("license-key").textContent()).toBe(licenseKey);
    expect(await page.getByTestId("brand").textContent()).toBe(org.name);
    expect(await page.title()).toBe(`Your purchases · ${org.name}`);
    await page.reload();
    await section(page, "Orders").waitFor();
  });

  it("says so for an unknown seller's sign-in link", async () => {
    const page = await newPage();
    await page.goto("/portal?organization=no-such-seller");
    await expect.poll(() => text(page.getByRole("alert"))).toBe("This seller was not found. Check the link in your email.");
    expect(await page.getByRole("button", { name: "Email me a code" }).isDisabled()).toBe(true);
  });

  it("says so without a token or with an unknown one", async () => {
    const page = await newPage();
    await page.goto("/portal");
    await heading(page, "This link has expired");
    await page.goto("/portal?customer_session_token=till_cst_not-a-real-token");
    await heading(page, "This link has expired");
    expect(pathOf(page)).toBe("/portal");
  });
});

describe("the look", () => {
  it("follows the dark colour scheme, fits a phone, and labels every field", async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const { page } = await openPortal({ colorScheme: "dark", viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(17, 20, 24)");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await section(page, "Subscriptions").getByRole("button", { name: "Cancel subscription" }).click();
    const unlabelled = await page.$$eval("input, select, textarea", (els) =>
      els.filter((e) => (e as HTMLInputElement).labels?.length !== 1).map((e) => e.outerHTML),
    );
    expect(unlabelled).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "portal-dark-phone.png"), fullPage: true });

    const light = await newPage({ colorScheme: "light" });
    await light.goto((await portalUrl(null)).url);
    await heading(light, "Your purchases");
    expect(await light.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(246, 247, 249)");
    expect(await light.getByRole("link", { name: /^Back to/ }).count()).toBe(0);
    await light.screenshot({ path: path.join(SCREENSHOT_DIR, "portal-light.png"), fullPage: true });
  });
});
