// Photographs every seller page at a desktop's and a phone's width, to look at before a change to the seller app
// is called done: a test server (PGlite unless DATABASE_URL) with a seller whose sandbox holds one of each thing
// (products of several price kinds, a paid order and its subscription, a discount, a link, a field, a meter, an
// endpoint), Chromium signed in as them, each page's full height saved as .tmp/screens/<width>-<page>.png, and a
// line per page with what a look may miss: content wider than the screen, axe's serious findings, a raw key name.
//
//   node --import tsx scripts/seller-screens.ts [filter]    # only the pages whose name contains `filter`
//   SCREEN_WIDTHS=390 node --import tsx scripts/seller-screens.ts   # only a phone's width
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { ensureWebBuild } from "../web/build.js";
import { launchChromium, seriousViolations } from "../tests/helpers/browser.js";
import { createSeller, sdkFor } from "../tests/helpers/seller.js";
import { startServer } from "../tests/helpers/server.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, ".tmp", "screens");
const WIDTHS = (process.env.SCREEN_WIDTHS ?? "1280,390").split(",").map(Number);
const PASSWORD = "correct-horse-battery";

/** A snake_case word shown as text (a key name a seller should not have to read), outside code and inputs. */
const RAW_KEY = /\b[a-z]+_[a-z_]+\b/;

async function pay(url: string, clientSecret: string): Promise<void> {
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${url}${p}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const year = new Date().getUTCFullYear() + 2;
  const token = await post(`/v1/checkouts/client/${clientSecret}/test-card`, { number: "4242 4242 4242 4242", exp_month: 12, exp_year: year, cvc: "123" });
  await post(`/v1/checkouts/client/${clientSecret}/confirm`, {
    customer_email: "ada@example.com",
    customer_name: "Ada Buyer",
    customer_billing_address: { country: "FR" },
    confirmation_token_id: token.confirmation_token_id,
  });
}

/** The seller's sandbox with one of each thing; the pages' paths by name. */
async function seed(url: string, key: string): Promise<Record<string, string>> {
  const sdk = sdkFor({ url }, key);
  const meter = await sdk.meters.create({
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
    aggregation: { func: "count" },
  });
  const plan = await sdk.products.create({ name: "Pro plan", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1900, priceCurrency: "usd" }] });
  await sdk.products.create({
    name: "Metered API",
    recurringInterval: "month",
    prices: [
      { amountType: "fixed", priceAmount: 900, priceCurrency: "usd" },
      { amountType: "metered_unit", meterId: meter.id, unitAmount: "0.2", capAmount: 10_000, priceCurrency: "usd" },
    ],
  });
  await sdk.products.create({ name: "Tip jar", prices: [{ amountType: "custom", minimumAmount: 500, priceCurrency: "usd" }] });
  const discount = await sdk.discounts.create({ name: "Launch", type: "percentage", basisPoints: 2000, duration: "once", code: "LAUNCH" });
  const link = await sdk.checkoutLinks.create({ paymentProcessor: "stripe", products: [plan.id], label: "Pricing page" });
  const field = await sdk.customFields.create({ type: "text", slug: "company", name: "Company", properties: {} });
  const endpoint = await sdk.webhooks.createWebhookEndpoint({ url: "https://example.com/hooks", format: "raw", events: ["order.paid"] });
  const checkout = await sdk.checkouts.create({ products: [plan.id] });
  await pay(url, checkout.clientSecret);
  const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order?.subscriptionId) throw new Error("the checkout made no subscription");
  await sdk.events.ingest({ events: [{ name: "api.call", customerId: order.customerId }] });
  const pages: Record<string, string> = {
    home: "/",
    products: "/products",
    "product-new": "/products/new",
    product: `/products/${plan.id}`,
    "product-edit": `/products/${plan.id}/edit`,
    orders: "/orders",
    order: `/orders/${order.id}`,
    refunds: "/orders?view=refunds",
    disputes: "/orders?view=disputes",
    subscriptions: "/subscriptions",
    subscription: `/subscriptions/${order.subscriptionId}`,
    customers: "/customers",
    customer: `/customers/${order.customerId}`,
    discounts: "/discounts",
    "discount-new": "/discounts/new",
    discount: `/discounts/${discount.id}`,
    "checkout-links": "/checkout-links",
    "checkout-link-new": "/checkout-links/new",
    "checkout-link": `/checkout-links/${link.id}`,
    "custom-fields": "/custom-fields",
    "custom-field": `/custom-fields/${field.id}`,
    meters: "/meters",
    "meter-new": "/meters/new",
    meter: `/meters/${meter.id}`,
    webhooks: "/webhooks",
    "webhook-new": "/webhooks/new",
    webhook: `/webhooks/${endpoint.id}`,
    "api-keys": "/api-keys",
    "import-stripe": "/settings/import-stripe",
  };
  for (const s of ["organization", "legal", "payments", "tax", "dunning", "plans", "portal", "emails", "team", "developers"]) pages[`settings-${s}`] = `/settings/${s}`;
  return pages;
}

/** What a look may miss on the page as it is now: its overflow, axe's serious findings, raw key names shown. */
async function findings(page: Page): Promise<string[]> {
  const said: string[] = [];
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (overflow > 0) said.push(`${overflow}px wider than the screen`);
  for (const v of await seriousViolations(page)) said.push(`axe ${v.id}`);
  const texts = await page.evaluate(() => {
    const out: string[] = [];
    const walk = document.createTreeWalker(document.querySelector("main") ?? document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const parent = n.parentElement;
      if (!parent || parent.closest("code, pre, input, textarea, select, [data-raw]")) continue;
      const t = n.textContent?.trim();
      if (t) out.push(t);
    }
    return out;
  });
  const raw = [...new Set(texts.filter((t) => RAW_KEY.test(t)).map((t) => t.match(RAW_KEY)![0]))];
  if (raw.length) said.push(`raw words: ${raw.slice(0, 6).join(", ")}`);
  return said;
}

async function main(): Promise<void> {
  const only = process.argv[2];
  await ensureWebBuild();
  mkdirSync(OUT, { recursive: true });
  const server = await startServer();
  const browser = await launchChromium();
  try {
    const seller = await createSeller(server, "screens");
    const pages = await seed(server.url, await seller.createSandboxKey());
    for (const width of WIDTHS) {
      const context = await browser.newContext({ baseURL: server.url, viewport: { width, height: 900 } });
      const signIn = await context.request.post("/api/auth/sign-in/email", { data: { email: seller.user.email, password: PASSWORD }, headers: { origin: server.url } });
      if (!signIn.ok()) throw new Error(`sign-in: ${signIn.status()}`);
      const page = await context.newPage();
      page.on("pageerror", (err) => console.log(`  page error: ${err.message}`));
      for (const [name, p] of Object.entries(pages)) {
        if (only && !name.includes(only)) continue;
        await page.goto(`${p}${p.includes("?") ? "&" : "?"}mode=sandbox`);
        await page.locator("h1").first().waitFor();
        await page.waitForLoadState("networkidle");
        await page.screenshot({ path: path.join(OUT, `${width}-${name}.png`), fullPage: true });
        const said = await findings(page);
        console.log(`${String(width).padStart(4)} ${name.padEnd(20)} ${said.length ? said.join("; ") : "ok"}`);
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
