// The seller's pages on live data in a real Chromium against the real server: the home's numbers, customers
// (search, detail with the customer's state, orders, subscriptions and benefit grants), subscriptions (cancel and
// uncancel at the period's end, end now after asking once more), settings (the legal details' warning goes once
// they are saved; dunning and the customer emails saved); a member's role sees the same data but no button the API
// would refuse; a user without an organization creates one; dark mode. Each page is checked with axe and
// photographed 375 px wide; in the sandbox the home's ranges end at the test clock's today, and a custom range works.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createProduct, pay } from "../helpers/checkout.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { rawRequest } from "../helpers/api.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages, seriousViolations } from "../helpers/browser.js";
import { checkPage, PASSWORD, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchForPages()]);
  // the jobs worker grants the benefits (the test server does not start its own)
  await server.worker.start();
  seller = await createSeller(server, "home");
  // a one-time product paid once, a monthly one with a benefit subscribed to
  const ebook = await seller.sdk.products.create({ name: "E-book", prices: [{ amountType: "fixed", priceAmount: 1999, priceCurrency: "usd" }] });
  const monthly = await createProduct(seller, "monthly");
  const perk = await seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: { note: "Mail us" } });
  await seller.sdk.products.updateBenefits({ id: monthly.id, productBenefitsUpdate: { benefits: [perk.id] } });
  await pay(server, await seller.sdk.checkouts.create({ products: [ebook.id] }), { customerEmail: "ada@example.com" });
  await pay(server, await seller.sdk.checkouts.create({ products: [monthly.id] }), { customerEmail: "bob@example.com" });
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

async function signedIn(email: string, opts: Parameters<Browser["newContext"]>[0] = {}): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, email, problems, opts);
  contexts.push(context);
  return page;
}

const flat = (s: string) => s.replace(/\s+/g, " ").trim();

describe("the seller's pages on live data", () => {
  it("home, customers, subscriptions and settings", async () => {
    const page = await signedIn(seller.user.email);
    await page.goto("/?mode=live&range=30d");
    await expect.poll(async () => (await page.getByTestId("monthly_recurring_revenue").innerText()).trim()).toBe("$9.00");
    expect((await page.getByTestId("revenue").innerText()).trim()).toBe("$28.99");
    expect((await page.getByTestId("active_subscriptions").innerText()).trim()).toBe("1");
    // the numbers behind each chart, as a table
    await page.getByText("Revenue by period").click();
    expect(await page.getByRole("region", { name: "Revenue by period" }).getByRole("row").count()).toBe(31);

    await page.goto("/customers?query=ada%40");
    const row = page.getByRole("row", { name: /ada@example\.com/ });
    await row.waitFor();
    expect(await page.getByRole("row", { name: /bob@example\.com/ }).count()).toBe(0);
    await checkPage(page, "customers");
    await row.getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "ada@example.com" }).waitFor();
    await page.getByRole("region", { name: "The customer's orders" }).getByText("E-book").waitFor();
    await page.getByText("No subscriptions.").waitFor();
    await page.getByText("No benefits granted.").waitFor();
    await checkPage(page, "customer");

    // the subscriber: their state (one active subscription, one benefit granted by the worker), subscription, grant
    await page.goto("/customers?query=bob%40");
    await page.getByRole("row", { name: /bob@example\.com/ }).getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "bob@example.com" }).waitFor();
    const facts = async () => flat(await page.locator("main dl").first().innerText());
    await expect.poll(
      async () => { await page.reload(); await page.getByRole("heading", { level: 2, name: "Benefit grants" }).waitFor(); return facts(); },
      { timeout: 20_000 },
    ).toMatch(/Active subscriptions 1 Granted benefits 1/);
    await page.getByRole("region", { name: "The customer's subscriptions" }).getByRole("row", { name: /monthly product \d+ Active \$9\.00 \/ month/ }).waitFor();
    await page.getByRole("region", { name: "The customer's benefit grants" }).getByRole("row", { name: /Priority support Custom granted \d{4}-\d\d-\d\d/ }).waitFor();
    await page.getByRole("region", { name: "The customer's orders" }).getByText(/monthly product/).waitFor();
    await checkPage(page, "customer-subscriber");

    await page.goto("/subscriptions");
    const sub = page.getByRole("row", { name: /bob@example\.com/ });
    expect(flat(await sub.innerText())).toMatch(/monthly product \d+ bob@example\.com Active \d{4}-\d\d-\d\d \$9\.00 \/ month/);
    await checkPage(page, "subscriptions");
    await sub.getByRole("link").click();
    // cancelling at the period's end asks once more, in a dialog; the result is a toast
    await page.getByRole("button", { name: "Cancel at the period's end" }).click();
    await page.getByRole("dialog", { name: /at the period's end\?$/ }).getByRole("button", { name: "Yes, cancel at period end" }).click();
    await page.locator(".toast").getByText(/^It ends on \d{4}-\d\d-\d\d\.$/).waitFor();
    await page.getByText("Active, ends at the period's end", { exact: true }).waitFor();
    await checkPage(page, "subscription");
    await page.getByRole("button", { name: "Keep it renewing (uncancel)" }).click();
    await page.locator(".toast").getByText("It renews again.").waitFor();
    // ending it now asks once more; "Keep it" changes nothing
    const subId = new URL(page.url()).pathname.split("/")[2]!;
    await page.getByRole("button", { name: "End it now" }).click();
    await page.getByRole("dialog", { name: "End this subscription now?" }).getByRole("button", { name: "Keep it", exact: true }).click();
    await page.getByRole("button", { name: "End it now" }).click();
    expect((await seller.sdk.subscriptions.get({ id: subId })).status).toBe("active");
    await page.getByRole("button", { name: "Yes, end it now" }).click();
    await page.locator(".toast").getByText("Ended now.").waitFor();
    await page.getByText(/^This subscription ended on \d{4}-\d\d-\d\d\.$/).waitFor();
    expect((await seller.sdk.subscriptions.get({ id: subId })).status).toBe("canceled");
    expect(await page.getByRole("heading", { name: "Change product" }).count()).toBe(0);

    await page.goto("/settings/payments");
    await page.getByText(/No Stripe account is connected on this side/).waitFor();
    await checkPage(page, "settings");
    await page.goto("/settings/legal");
    const warning = page.getByText(/Your invoices lack your address and tax id/);
    await warning.waitFor();
    const legal = page.getByRole("form", { name: "Legal details on invoices" });
    await legal.getByLabel("Street", { exact: true }).fill("1 rue de la Paix");
    await legal.getByLabel("Postal code").fill("75002");
    await legal.getByLabel("City").fill("Paris");
    await legal.getByLabel("Country").selectOption("FR");
    await legal.getByLabel("Tax id (e.g. VAT number)").fill("FR12345678901");
    await page.getByRole("button", { name: "Save legal details" }).click();
    await page.locator(".toast").getByText("Saved: legal details on invoices.").waitFor();
    expect(await warning.count()).toBe(0);

    // dunning and the customer emails, each in its section, read back through the API
    await page.goto("/settings/dunning");
    await page.getByLabel("Retry after (days, comma-separated)").fill("2, 4");
    await page.getByLabel("After the last retry").selectOption({ label: "Mark it unpaid" });
    await page.getByRole("button", { name: "Save dunning" }).click();
    await page.locator(".toast").getByText("Saved: failed renewals.").waitFor();
    // a switch for each email till sends, by its name; none for Polar's keys of emails till never sends
    await page.goto("/settings/emails");
    const emails = page.getByRole("form", { name: "Customer emails" }).getByRole("checkbox");
    await emails.first().waitFor();
    expect(await emails.count()).toBe(10);
    for (const label of ["Order receipt", "Renewal receipt", "Refund completed", "Renewal payment failed"]) expect(await page.getByLabel(label, { exact: true }).isChecked()).toBe(true);
    expect(await page.getByRole("form", { name: "Customer emails" }).getByText(/_|subscription (paused|resumed)|renewal reminder/i).count()).toBe(0);
    await page.getByLabel("Renewal receipt", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Save customer emails" }).click();
    await page.locator(".toast").getByText("Saved: customer emails.").waitFor();
    const org = (await (await fetch(`${server.url}/v1/organizations/${seller.organizationId}`, { headers: { authorization: `Bearer ${seller.token}` } })).json()) as {
      dunning_settings: unknown;
      customer_email_settings: Record<string, boolean>;
    };
    expect(org.dunning_settings).toEqual({ retry_intervals_days: [2, 4], final_action: "unpaid" });
    expect(org.customer_email_settings).toMatchObject({ subscription_cycled: false, order_confirmation: true, order_refunded: true, subscription_paused: true, subscription_renewal_reminder: true });
    await page.reload();
    expect(await page.getByLabel("Renewal receipt", { exact: true }).isChecked()).toBe(false);
    await page.goto("/settings/dunning");
    expect(await page.getByLabel("Retry after (days, comma-separated)").inputValue()).toBe("2, 4");
    expect(problems).toEqual([]);
  }, 120_000);

  it("a member reads everything and is offered no change the API would refuse", async () => {
    const email = uniqueEmail("member");
    await new Client(server.url).signUp(email, PASSWORD, "Mia Member");
    const invite = await seller.client.post<{ id: string }>("/api/auth/organization/invite-member", { email, role: "member", organizationId: seller.organizationId });
    expect(invite.status, invite.text).toBe(200);
    const page = await signedIn(email);
    const accepted = await page.context().request.post("/api/auth/organization/accept-invitation", { data: { invitationId: invite.body.id }, headers: { origin: server.url } });
    expect(accepted.status()).toBe(200);

    await page.goto(`/products?org=${seller.slug}&mode=live`);
    await page.getByRole("row", { name: /E-book/ }).waitFor();
    expect(await page.getByRole("link", { name: "New product" }).count()).toBe(0);
    await page.getByRole("link", { name: "E-book" }).click();
    await page.getByText("Your role in this organization may not change products.").waitFor();
    expect(await page.getByRole("button", { name: /Archive/ }).count()).toBe(0);
    await checkPage(page, "member-product");

    await page.goto("/orders");
    await page.getByRole("row", { name: /E-book/ }).getByRole("link").click();
    await page.getByText("Your role in this organization may not refund orders.").waitFor();
    await page.goto("/settings/legal");
    await page.getByText("Your role in this organization may not change the organization.").first().waitFor();
    expect(await page.getByRole("button", { name: "Save legal details" }).isDisabled()).toBe(true);
    expect(problems).toEqual([]);
  }, 120_000);

  it("a user without an organization creates one and lands on its home", async () => {
    const email = uniqueEmail("new");
    await new Client(server.url).signUp(email, PASSWORD, "Nia New");
    const page = await signedIn(email);
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Your organizations" }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel("Organization name").fill("Nia's Shop");
    await page.getByRole("button", { name: "Create organization" }).click();
    await page.waitForURL(/org=nia-s-shop/);
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await page.getByText("Nia's Shop", { exact: true }).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("reads in dark mode; signed out, / is the way in and a seller page sends to sign-in", async () => {
    const dark = await signedIn(seller.user.email, { colorScheme: "dark" });
    await dark.goto("/orders");
    await dark.getByRole("row", { name: /E-book/ }).waitFor();
    expect(await dark.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(17, 20, 24)");
    await checkPage(dark, "orders-dark");

    const context = await browser.newContext({ baseURL: server.url });
    contexts.push(context);
    const out = await context.newPage();
    await out.goto("/");
    await out.getByRole("link", { name: "Sign in" }).waitFor();
    await out.goto("/orders?mode=sandbox");
    await out.waitForURL(/\/sign-in\?callbackURL=%2Forders%3Fmode%3Dsandbox/);
  }, 60_000);

  it("in the sandbox, the home's ranges end at the test clock's today; a custom range is offered too", async () => {
    const key = await seller.createSandboxKey();
    const advanced = await rawRequest(server.url, key, "POST", "/v1/test-clock/advance", { by: "84d" });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    const clockDay = String(advanced.body.now).slice(0, 10);
    const sandbox = sdkFor(server, key);
    const course = await sandbox.products.create({ name: "Sandbox course", prices: [{ amountType: "fixed", priceAmount: 4200, priceCurrency: "usd" }] });
    await pay(server, await sandbox.checkouts.create({ products: [course.id] }), { customerEmail: "sam@example.com" });

    const page = await signedIn(seller.user.email, { timezoneId: "UTC" });
    await page.goto("/?mode=sandbox&range=30d");
    const revenue = async () => (await page.getByTestId("revenue").innerText()).trim();
    // the sale is 84 days ahead of the wall clock: a range ending at the wall clock's today would show $0.00
    await expect.poll(revenue).toBe("$42.00");
    expect(await page.getByTestId("range-dates").innerText()).toMatch(new RegExp(`to ${clockDay}`));

    await page.getByLabel("From", { exact: true }).fill(clockDay);
    await page.getByLabel("To", { exact: true }).fill(clockDay);
    await page.getByRole("button", { name: "Show", exact: true }).click();
    await page.waitForURL(new RegExp(`range=custom&from=${clockDay}&to=${clockDay}`));
    await expect.poll(async () => (await page.getByTestId("range-dates").innerText()).trim()).toMatch(new RegExp(`^${clockDay} to ${clockDay}`));
    expect(await revenue()).toBe("$42.00");
    await checkPage(page, "home-sandbox-custom");
    expect(problems).toEqual([]);
  }, 120_000);
});
