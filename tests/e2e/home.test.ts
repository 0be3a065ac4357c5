// The signed-in web home in a real Chromium against the real server: the seller's organizations, each with its
// products, recent orders and subscriptions (money as money) and API keys; a member sees what the role allows;
// the "create organization" form adds one; light and dark, and a phone's width; no serious accessibility issue.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createProduct, pay } from "../helpers/checkout.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { launchChromium, seriousViolations } from "../helpers/browser.js";

const PASSWORD = "correct-horse-battery";

let server: TestServer;
let browser: Browser;
let seller: Seller;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  seller = await createSeller(server, "home");
  // a one-time product paid once, a monthly one subscribed to, a key
  const ebook = await seller.sdk.products.create({ name: "E-book", prices: [{ amountType: "fixed", priceAmount: 1999, priceCurrency: "usd" }] });
  const monthly = await createProduct(seller, "monthly");
  await pay(server, await seller.sdk.checkouts.create({ products: [ebook.id] }), { customerEmail: "ada@example.com" });
  await pay(server, await seller.sdk.checkouts.create({ products: [monthly.id] }), { customerEmail: "bob@example.com" });
  const key = await seller.client.post("/api/auth/api-key/create", { organizationId: seller.organizationId, name: "ci deploys" });
  expect(key.status).toBe(200);
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await server?.close();
});

async function signedIn(email: string, opts: Parameters<Browser["newContext"]>[0] = {}): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, ...opts });
  context.setDefaultTimeout(15_000);
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  const res = await context.request.post("/api/auth/sign-in/email", { data: { email, password: PASSWORD }, headers: { origin: server.url } });
  expect(res.status(), await res.text()).toBe(200);
  return page;
}

const list = async (page: Page, org: string, title: string) =>
  (await page.getByRole("article", { name: new RegExp(`^${org}`) }).getByRole("region", { name: title }).innerText()).replace(/\s+/g, " ").trim();

describe("the signed-in home", () => {
  it("shows each organization's products, recent orders, subscriptions and API keys", async () => {
    const page = await signedIn(seller.user.email);
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Your organizations" }).waitFor();
    const org = (await seller.client.get<{ name: string }>("/api/auth/organization/get-full-organization")).body.name;
    await page.getByRole("heading", { level: 2, name: new RegExp(`^${org}`) }).waitFor();

    expect(await list(page, org, "Products")).toMatch(/^Products (E-book \$19\.99 monthly product \d+ \$9\.00 \/ month|monthly product \d+ \$9\.00 \/ month E-book \$19\.99)$/);
    const orders = await list(page, org, "Recent orders");
    expect(orders).toContain("E-book · ada@example.com $19.99 paid");
    expect(orders).toMatch(/monthly product \d+ · bob@example\.com \$9\.00 paid/);
    expect(await list(page, org, "Subscriptions")).toMatch(/^Subscriptions monthly product \d+ · bob@example\.com \$9\.00 \/ month active$/);
    expect(await list(page, org, "API keys")).toMatch(/^API keys ci deploys till_live_\w{4}… never expires$/);

    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("a member sees the lists the role allows; the form creates an organization, which then shows, empty", async () => {
    const email = uniqueEmail("member");
    await new Client(server.url).signUp(email, PASSWORD, "Mia Member");
    const invite = await seller.client.post<{ id: string }>("/api/auth/organization/invite-member", { email, role: "member", organizationId: seller.organizationId });
    expect(invite.status, invite.text).toBe(200);
    const page = await signedIn(email);
    const accepted = await page.context().request.post("/api/auth/organization/accept-invitation", {
      data: { invitationId: invite.body.id },
      headers: { origin: server.url },
    });
    expect(accepted.status()).toBe(200);

    await page.goto("/");
    const org = (await seller.client.get<{ name: string }>("/api/auth/organization/get-full-organization")).body.name;
    await page.getByRole("heading", { level: 2, name: new RegExp(`^${org}`) }).waitFor();
    expect(await list(page, org, "Recent orders")).toContain("E-book · ada@example.com $19.99");
    expect(await list(page, org, "API keys")).toBe("API keys Your role in this organization does not show these.");

    await page.getByLabel("Organization name").fill("Mia's Shop");
    await page.getByRole("button", { name: "Create organization" }).click();
    await page.getByText("Created Mia's Shop (mia-s-shop).").waitFor();
    await page.getByRole("heading", { level: 2, name: /^Mia's Shop/ }).waitFor();
    expect(await list(page, "Mia's Shop", "Products")).toBe('Products No products yet: till products create "E-book" --price 1999');
    expect(await list(page, "Mia's Shop", "API keys")).toBe("API keys No API keys: till keys create ci --scope products:read");
    expect(problems).toEqual([]);
  });

  it("reads in dark mode and on a phone: no overflow, the cards stack", async () => {
    const dark = await signedIn(seller.user.email, { colorScheme: "dark" });
    await dark.goto("/");
    await dark.getByRole("heading", { level: 2 }).first().waitFor();
    const background = await dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe("rgb(17, 20, 24)");
    expect(await seriousViolations(dark)).toEqual([]);

    const phone = await signedIn(seller.user.email, { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    await phone.goto("/");
    await phone.getByRole("region", { name: "API keys" }).first().waitFor();
    const fits = await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(fits).toBe(true);
    // one column: the orders list sits below the products list
    const [products, orders] = await Promise.all([
      phone.getByRole("region", { name: "Products" }).first().boundingBox(),
      phone.getByRole("region", { name: "Recent orders" }).first().boundingBox(),
    ]);
    expect(orders!.y).toBeGreaterThan(products!.y + products!.height - 1);
    expect(orders!.x).toBe(products!.x);
  });

  it("GET /api/home without a session is 401", async () => {
    const res = await fetch(`${server.url}/api/home`);
    expect(res.status).toBe(401);
  });
});
