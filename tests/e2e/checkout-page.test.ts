// The hosted checkout as a buyer uses it, in Chromium on a phone and a desktop, light and dark: a base price
// with usage prices, seats, pay what you want, a discount, a declined card, every problem of an empty form at
// once, the success view's receipt details (amount, order number, benefits, license key, downloads, the receipt email
// only when one is sent), a trial's terms, a product description in markdown that cannot inject markup, the
// two panes on a wide screen, the expiry and CVC inputs on one row on the narrowest phones, the product's
// benefits before paying, an unknown checkout's next step, and axe's serious/critical checks of the checkout and
// success pages.
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchForPages, PageWatch, seriousViolations } from "../helpers/browser.js";
import { CARDS, createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { uploadFile } from "../helpers/files.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
let meterId: string;
/** This test's pages, closed after it; the script and console errors they log fail it. */
const pages = new PageWatch(() => ({ browser, options: { baseURL: server.url }, timeout: 15_000 }));

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
const DESKTOP = { viewport: { width: 1280, height: 900 } };
type Device = typeof PHONE | typeof DESKTOP;
type Theme = "light" | "dark";

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "checkout-page");
  const meter = await seller.sdk.meters.create({
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
    aggregation: { func: "count" },
  });
  meterId = meter.id;
  browser = await launchForPages();
});

afterEach(async () => {
  expect(await pages.done()).toEqual([]);
});

afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

const newPage = (device: Device, theme: Theme): Promise<Page> => pages.open({ colorScheme: theme, ...device });

async function open(page: Page, productIds: string[], theme: Theme, extra: Record<string, unknown> = {}) {
  const created = await seller.sdk.checkouts.create({ products: productIds, ...extra });
  await page.goto(`/checkout/${created.clientSecret}?theme=${theme}`);
  await page.getByLabel("Email", { exact: true }).waitFor();
  return created;
}

const totals = async (page: Page) => ((await page.getByTestId("totals").textContent()) ?? "").replace(/\s+/g, " ");
const payButton = (page: Page) => page.locator("button.pay");

async function fillBuyer(page: Page, card: string = CARDS.ok, email = uniqueBuyer("page")) {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
  await page.getByLabel("Country", { exact: true }).selectOption("DE");
  await page.getByLabel("Card number", { exact: true }).fill(card);
  await page.getByLabel("Expiry (MM / YY)", { exact: true }).fill("12 / 34");
  await page.getByLabel("CVC", { exact: true }).fill("123");
  return email;
}

async function expectNoSeriousViolations(page: Page, what: string) {
  expect(await seriousViolations(page), what).toEqual([]);
}

describe("money on the page", () => {
  it("a base price with a usage price: no choice between them, the unit price shown, the base charged (phone, dark)", async () => {
    const product = await seller.sdk.products.create({
      name: "Pro with usage",
      description: "Everything in **Pro**.\n\n<b onclick=\"x()\">bold?</b>",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId, unitAmount: "0.5", priceCurrency: "usd" },
      ],
    });
    const page = await newPage(PHONE, "dark");
    const created = await open(page, [product.id], "dark");
    expect(await page.getByRole("radio").count()).toBe(0);
    expect(await page.getByTestId("price").textContent()).toBe("$10.00 / month");
    expect(await page.getByTestId("metered-prices").textContent()).toBe("$0.005 per API call, billed monthly");
    expect(await totals(page)).toContain("Total$10.00");
    await expectNoSeriousViolations(page, "checkout, phone, dark");
    await fillBuyer(page);
    await payButton(page).click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
    expect(sub?.prices.length).toBe(2);
    expect((await seller.sdk.checkouts.get({ id: created.id })).amount).toBe(1000);
    // the portal shows the subscription's description as markdown too, its HTML as text
    await page.getByRole("link", { name: "See your purchase, license keys and subscriptions" }).click();
    const description = page.locator(".product-description");
    await description.locator("strong").waitFor();
    expect(await description.locator("strong").textContent()).toBe("Pro");
    expect(await description.locator("b").count()).toBe(0);
    expect(await description.textContent()).toContain('<b onclick="x()">bold?</b>');
  });

  it("seats: a stepper within the tiers' bounds, the per-seat price and tier follow, the seats reach the subscription (desktop, light)", async () => {
    const product = await createProduct(seller, "seats"); // 1–4 at $10, 5–20 at $8 (volume)
    const page = await newPage(DESKTOP, "light");
    await open(page, [product.id], "light");
    const quote = () => page.getByTestId("seat-quote").textContent();
    const seats = page.getByLabel("Seats", { exact: true });
    expect(await seats.inputValue()).toBe("1");
    expect(await page.getByRole("button", { name: "Remove a seat" }).isDisabled()).toBe(true);
    expect(await quote()).toContain("$10.00 per seat (1–4 seats)");
    for (let i = 0; i < 4; i++) await page.getByRole("button", { name: "Add a seat" }).click();
    expect(await seats.inputValue()).toBe("5");
    expect(await quote()).toContain("$8.00 per seat (5–20 seats) · $40.00");
    await expect.poll(() => totals(page)).toContain("Total$40.00");
    await expect.poll(() => payButton(page).textContent()).toBe("Pay $40.00");
    await seats.fill("25");
    expect(await seats.inputValue()).toBe("20");
    expect(await page.getByRole("button", { name: "Add a seat" }).isDisabled()).toBe(true);
    await seats.fill("6");
    await expect.poll(() => totals(page)).toContain("Total$48.00");
    await fillBuyer(page);
    await payButton(page).click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
    expect(sub).toMatchObject({ seats: 6, amount: 4800 });
    const [order] = (await seller.sdk.orders.list({ productId: product.id })).result.items;
    expect(order).toMatchObject({ seats: 6, totalAmount: 4800 });
  });

  it("pay what you want: the total and the Pay button follow the amount; below the minimum, Pay is disabled (phone, light)", async () => {
    const product = await createProduct(seller, "custom"); // min $5, max $100, preset $15
    const page = await newPage(PHONE, "light");
    await open(page, [product.id], "light");
    const amount = page.getByLabel("Amount (USD)", { exact: true });
    expect(await amount.inputValue()).toBe("15.00");
    await expect.poll(() => payButton(page).textContent()).toBe("Pay $15.00");
    await amount.fill("42.50");
    await expect.poll(() => payButton(page).textContent()).toBe("Pay $42.50");
    expect(await totals(page)).toContain("Total$42.50");
    await amount.fill("2");
    await expect.poll(() => payButton(page).isDisabled()).toBe(true);
    expect(await page.locator(`#checkout-amount-error`).textContent()).toBe("The amount must be at least $5.00.");
    await amount.fill("7");
    await expect.poll(() => payButton(page).textContent()).toBe("Pay $7.00");
    expect(await payButton(page).isDisabled()).toBe(false);
  });

  it("a discount code takes its share off the total (desktop, dark)", async () => {
    const product = await createProduct(seller, "fixed");
    const code = `HALF${Date.now().toString(36).toUpperCase()}`;
    await seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 5000, name: "Half", code });
    const page = await newPage(DESKTOP, "dark");
    await open(page, [product.id], "dark");
    await page.getByLabel("Discount code (optional)", { exact: true }).fill(code);
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await expect.poll(() => totals(page)).toContain(`Discount (${code})−$12.50`);
    expect(await totals(page)).toContain("Total$12.50");
    await expect.poll(() => payButton(page).textContent()).toBe("Pay $12.50");
  });
});

describe("problems, shown where they are", () => {
  it.each([
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const)("an empty submit shows every problem at once, beside each field and in the banner, and focuses the first (%s)", async (_label, device) => {
    const product = await createProduct(seller, "fixed");
    {
      const page = await newPage(device, "light");
      await open(page, [product.id], "light");
      await payButton(page).click();
      const banner = page.getByTestId("error-summary");
      await banner.waitFor();
      const listed = await banner.getByRole("listitem").allTextContents();
      expect(listed).toEqual([
        "Email: Enter your email address.",
        "Name: Enter your name.",
        "Country: Choose your country.",
        "Card number: Enter your card number.",
        "Expiry: Enter your card's expiration date.",
        "CVC: Enter your card's security code.",
      ]);
      expect(await page.getByRole("alert").count()).toBe(1);
      expect(await page.locator(".field-error").count()).toBe(6);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("checkout-customer_email");
      await expectNoSeriousViolations(page, "checkout with errors");
      // fixing a field takes its problem away; the banner's link moves to its field
      await page.getByLabel("Email", { exact: true }).fill("ada@example.com");
      expect(await page.locator(".field-error").count()).toBe(5);
      await banner.getByRole("link", { name: /^CVC:/ }).click();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("checkout-card-cvc");
    }
  });

  it("a declined card's message sits by the card number; the checkout stays open (phone, dark)", async () => {
    const product = await createProduct(seller, "fixed");
    const page = await newPage(PHONE, "dark");
    const created = await open(page, [product.id], "dark");
    await fillBuyer(page, CARDS.declined);
    await payButton(page).click();
    await expect.poll(() => page.locator("#checkout-card-number-error").textContent()).toBe("Your card was declined.");
    expect(await page.getByTestId("error-summary").textContent()).toContain("Card number: Your card was declined.");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("checkout-card-number");
    expect(await payButton(page).isEnabled()).toBe(true);
    expect((await seller.sdk.checkouts.get({ id: created.id })).status).toBe("open");
  });
});

describe("the success view", () => {
  it.each(["light", "dark"] as const)("says what was paid, the order number, the benefits and license key, the portal, and the receipt email (desktop, %s)", async (theme) => {
    const keys = await seller.sdk.benefits.create({ type: "license_keys", description: "App license", properties: { prefix: "APP" } });
    const product = await createProduct(seller, "fixed", { description: "The **app**." });
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [keys.id] } });
    {
      const page = await newPage(DESKTOP, theme);
      await open(page, [product.id], theme);
      await expectNoSeriousViolations(page, `checkout, desktop, ${theme}`);
      // what the product includes, before paying
      expect(await page.getByRole("list", { name: "Includes" }).textContent()).toBe("App license");
      const email = await fillBuyer(page);
      await payButton(page).click();
      await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
      const receipt = page.getByTestId("receipt");
      await expect.poll(() => receipt.textContent()).toMatch(/Amount paid\$25\.00Order number[A-Z0-9-]+-\d+/);
      await page.getByTestId("license-key").waitFor();
      expect(await page.getByTestId("license-key").textContent()).toMatch(/^APP/);
      expect(await page.getByTestId("benefits").textContent()).toBe("App license");
      expect(await page.getByTestId("receipt-email").textContent()).toBe(`A receipt was emailed to ${email}.`);
      await page.getByRole("link", { name: "See your purchase, license keys and subscriptions" }).waitFor();
      await expectNoSeriousViolations(page, `success, desktop, ${theme}`);
      const [order] = (await seller.sdk.orders.list({ productId: product.id, limit: 1 })).result.items;
      expect(await receipt.textContent()).toContain(order?.invoiceNumber ?? "?");
    }
    // a purchase, two axe scans and the worker's license key: a bound on a hang, not a speed check
  }, 90_000);

  it("says nothing of a receipt when the seller's settings send none (phone)", async () => {
    const quiet = await createSeller(server, "quiet-page");
    const off = await rawRequest(server.url, quiet.token, "PATCH", `/v1/organizations/${quiet.organizationId}`, {
      customer_email_settings: { order_confirmation: false },
    });
    expect(off.status).toBe(200);
    const product = await createProduct(quiet, "fixed");
    const created = await quiet.sdk.checkouts.create({ products: [product.id] });
    const page = await newPage(PHONE, "light");
    await page.goto(`/checkout/${created.clientSecret}`);
    await fillBuyer(page);
    await payButton(page).click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
    await expect.poll(() => page.getByTestId("receipt").textContent()).toContain("Order number");
    expect(await page.getByTestId("receipt-email").count()).toBe(0);
    await expectNoSeriousViolations(page, "success, phone, light");
  });

  it("lists the files the purchase gives, each link downloading the file (desktop, light)", async () => {
    const bytes = Buffer.from("%PDF-1.4 the guide\n".repeat(64));
    const file = await uploadFile(seller.sdk, "guide.pdf", bytes, "downloadable");
    const files = await seller.sdk.benefits.create({ type: "downloadables", description: "The guide", properties: { files: [file.id] } });
    const product = await createProduct(seller, "fixed");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [files.id] } });
    const page = await newPage(DESKTOP, "light");
    await open(page, [product.id], "light");
    await fillBuyer(page);
    await payButton(page).click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
    const link = page.getByRole("list", { name: "Downloads" }).getByRole("link", { name: "Download guide.pdf" });
    await link.waitFor();
    const href = await link.getAttribute("href");
    expect(href).toBeTruthy();
    const res = await fetch(new URL(href!, server.url));
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    await expectNoSeriousViolations(page, "success with downloads, desktop, light");
  });

  it("a trial: the terms before, the trial end and the first charge after (phone, dark)", async () => {
    const product = await createProduct(seller, "trial"); // 14 days, then $12.00 / month
    const page = await newPage(PHONE, "dark");
    await open(page, [product.id], "dark");
    const end = new Date(Date.now() + 14 * 86_400_000).toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric" });
    expect(await page.getByTestId("trial-terms").textContent()).toBe(
      `14-day free trial. Then $12.00 / month, first charged on ${end}. Cancel before then and you pay nothing.`,
    );
    expect(await totals(page)).toContain("Total due today$0.00");
    expect(await payButton(page).textContent()).toBe("Start trial");
    await fillBuyer(page);
    await payButton(page).click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor();
    const receipt = await page.getByTestId("receipt").textContent();
    expect(receipt).toContain(`Free trial until${end}`);
    expect(receipt).toContain(`First charge$12.00 / month on ${end}`);
    await expectNoSeriousViolations(page, "success of a trial, phone, dark");
  });
});

describe("layout and content", () => {
  it("two panes on a desktop, one column on a phone; the description is markdown and cannot inject markup", async () => {
    const product = await createProduct(seller, "fixed", {
      description: "Includes **priority support** and [docs](https://example.com/docs).\n\n" +
        "<img src=x onerror=\"window.injected=1\"><script>window.injected=2</script>\n\n" +
        "[click](javascript:window.injected=3)",
    });
    const desktop = await newPage(DESKTOP, "light");
    await open(desktop, [product.id], "light");
    const box = async (page: Page, selector: string) => (await page.locator(selector).boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 };
    const [summary, payment] = [await box(desktop, ".summary"), await box(desktop, ".payment")];
    expect(payment.x).toBeGreaterThan(summary.x + summary.width - 1);
    expect(Math.abs(payment.y - summary.y)).toBeLessThan(40);

    const description = desktop.locator(".summary .markdown");
    expect(await description.locator("strong").textContent()).toBe("priority support");
    expect(await description.locator("a").first().getAttribute("href")).toBe("https://example.com/docs");
    expect(await description.locator("img, script").count()).toBe(0);
    expect(await description.textContent()).toContain('<img src=x onerror="window.injected=1">');
    const hrefs = await description.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
    expect(hrefs.some((h) => h.startsWith("javascript:"))).toBe(false);
    expect(await desktop.evaluate(() => (window as unknown as { injected?: number }).injected)).toBeUndefined();

    const phone = await newPage(PHONE, "light");
    await open(phone, [product.id], "light");
    const [s, p] = [await box(phone, ".summary"), await box(phone, ".payment")];
    expect(p.y).toBeGreaterThanOrEqual(s.y + s.height - 1);
    expect(Math.abs(p.x - s.x)).toBeLessThan(2);
    // nothing wider than the phone's screen
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  it.each([320, 360, 390])("on a %i px phone the expiry and the CVC inputs share a row, whatever their labels' lengths", async (width) => {
    const product = await createProduct(seller, "fixed");
    const page = await newPage({ ...PHONE, viewport: { width, height: 800 } }, "light");
    await open(page, [product.id], "light");
    const box = async (label: string) => (await page.getByLabel(label, { exact: true }).boundingBox()) ?? { x: 0, y: -1, width: 0, height: 0 };
    const [expiry, cvc] = [await box("Expiry (MM / YY)"), await box("CVC")];
    expect(Math.abs(expiry.y - cvc.y), `expiry at ${expiry.y}, CVC at ${cvc.y}`).toBeLessThan(1);
    expect(cvc.x).toBeGreaterThan(expiry.x + expiry.width - 1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  });

  it("an unknown checkout address says what to do next and offers the way back", async () => {
    const page = await newPage(PHONE, "light");
    const product = await createProduct(seller, "fixed");
    const created = await open(page, [product.id], "light");
    await page.goto(`/checkout/${created.clientSecret}x`);
    await page.getByRole("heading", { level: 1, name: "This checkout link does not work" }).waitFor();
    await page.getByText("The link may be incomplete or mistyped, or the checkout was removed. Go back to the store and start your purchase again, or ask the seller for a new link.").waitFor();
    await expectNoSeriousViolations(page, "unknown checkout");
    await page.getByRole("button", { name: "Go back" }).click();
    await page.waitForURL(new RegExp(`/checkout/${created.clientSecret}\\?`));
    await page.getByLabel("Email", { exact: true }).waitFor();
  });
});
