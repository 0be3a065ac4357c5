// The hosted checkout and the embed script in a real Chromium against the real server: paying with the test
// processor's cards (success, a declined card's message), the dark theme, the headers that let only
// /checkout/* be framed, and a seller's page on a second loopback origin that opens the overlay through
// `${server.url}/embed.js`, pays inside it and lands on its success URL — closable before confirm, not while
// the payment is in progress, closable again after success, and deaf to messages from other origins; light unless
// asked for dark, and driven by Polar's own snippet (data-polar-checkout) as well.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContextOptions, Frame, FrameLocator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages, PageWatch } from "../helpers/browser.js";
import { CARDS, createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const DECLINED = "4000 0000 0000 0002";

let server: TestServer;
let seller: Seller;
let productId: string;
let browser: Browser;
let shop: { url: string; close: () => Promise<void> };
/** This test's pages, closed after it; the script and console errors they log fail it. */
const pages = new PageWatch(() => ({ browser, options: { baseURL: server.url }, timeout: 15_000 }));

/** A seller's site on another loopback port (so another origin): a product page loading till's embed.js. */
async function startShop(tillUrl: string): Promise<{ url: string; close: () => Promise<void> }> {
  const httpServer = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/thanks") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><title>Thanks</title><h1>Thanks for buying</h1><p id="id">${url.searchParams.get("checkout_id") ?? ""}</p>`);
      return;
    }
    const checkout = url.searchParams.get("checkout") ?? "";
    const theme = url.searchParams.get("theme");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    if (url.pathname === "/polar") {
      // Polar's own snippet (@polar-sh/checkout's embed), only the script's address changed
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>
<h1>Shop</h1>
<a href="${checkout}" data-polar-checkout data-polar-checkout-theme="${theme ?? "light"}"><span>Purchase</span></a>
<script src="${tillUrl}/embed.js" defer data-auto-init></script>
</body></html>`);
      return;
    }
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>
<h1>Shop</h1>
<a id="buy" href="${checkout}" data-till-checkout${theme ? ` data-till-checkout-theme="${theme}"` : ""}>Buy now</a>
<script src="${tillUrl}/embed.js"></script>
</body></html>`);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => httpServer.close(() => resolve())),
  };
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "checkout-e2e");
  productId = (await createProduct(seller, "fixed")).id;
  shop = await startShop(server.url);
  browser = await launchForPages();
});

afterEach(async () => {
  expect(await pages.done()).toEqual([]);
});

afterAll(async () => {
  await closePages(browser);
  await shop?.close();
  await server?.close();
});

const newPage = (opts: BrowserContextOptions = {}): Promise<Page> => pages.open(opts);

async function newCheckout(extra: Record<string, unknown> = {}) {
  return seller.sdk.checkouts.create({ products: [productId], ...extra });
}

type Scope = Page | FrameLocator;

/** Fills the customer's details and the card, and presses Pay. */
async function fillAndPay(scope: Scope, card: string, email = uniqueBuyer("e2e")): Promise<void> {
  await scope.getByLabel("Email", { exact: true }).fill(email);
  await scope.getByLabel("Name", { exact: true }).fill("Ada Buyer");
  await scope.getByLabel("Country", { exact: true }).selectOption("DE");
  await scope.getByLabel("Card number", { exact: true }).fill(card);
  await scope.getByLabel("Expiry (MM / YY)", { exact: true }).fill("12 / 34");
  await scope.getByLabel("CVC", { exact: true }).fill("123");
  await scope.getByRole("button", { name: "Pay $25.00", exact: true }).click();
}

const thanks = (scope: Scope) => scope.getByRole("heading", { level: 1, name: "Thank you for your purchase", exact: true }).waitFor();

describe("the hosted checkout page", () => {
  it("answers /checkout/* with the app shell and headers that let any site frame it (and only it)", async () => {
    const created = await newCheckout();
    for (const p of [`/checkout/${created.clientSecret}`, `/checkout/${created.clientSecret}/confirmation`]) {
      const res = await fetch(`${server.url}${p}`);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("x-frame-options")).toBeNull();
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors *");
      expect(csp).not.toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(await res.text()).toContain('<div id="root"></div>');
    }
    expect((await fetch(`${server.url}/sign-in`)).headers.get("x-frame-options")).toBe("DENY");
    for (const file of ["embed.js", "embed.mjs"]) {
      const res = await fetch(`${server.url}/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^(text|application)\/javascript; charset=utf-8$/);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(await res.text()).toContain("POLAR_CHECKOUT");
    }
  });

  it("pays with 4242 4242 4242 4242 and shows the success view", async () => {
    const created = await newCheckout();
    const page = await newPage();
    await page.goto(`/checkout/${created.clientSecret}`);
    await page.getByRole("heading", { level: 1, name: created.product?.name ?? "", exact: true }).waitFor();
    await expect.poll(() => page.getByTestId("totals").textContent()).toContain("$25.00");
    await fillAndPay(page, CARDS.ok);
    await thanks(page);
    expect((await page.getByRole("status").first().textContent())?.trim()).toContain("was successful");
    expect((await seller.sdk.checkouts.get({ id: created.id })).status).toBe("succeeded");
    // the way on to the customer portal, with the session the confirm made for the buyer
    const href = (await page.getByRole("link", { name: "See your purchase, license keys and subscriptions" }).getAttribute("href")) ?? "";
    const token = new URL(href, server.url).searchParams.get("customer_session_token") ?? "";
    expect(href.startsWith("/portal?")).toBe(true);
    const me = await fetch(`${server.url}/v1/customer-portal/orders/`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { items: Array<{ checkout_id: string }> }).items.map((o) => o.checkout_id)).toEqual([created.id]);
  });

  it("shows the declined card's message and keeps the checkout open", async () => {
    const created = await newCheckout();
    const page = await newPage();
    await page.goto(`/checkout/${created.clientSecret}`);
    await fillAndPay(page, DECLINED);
    // the processor's message by the card number, and in the banner that lists the form's problems
    await expect.poll(async () => (await page.locator("#checkout-card-number-error").textContent())?.trim()).toBe("Your card was declined.");
    expect(await page.getByRole("alert").textContent()).toContain("Card number: Your card was declined.");
    await expect.poll(() => page.getByRole("button", { name: "Pay $25.00", exact: true }).isEnabled()).toBe(true);
    expect((await seller.sdk.checkouts.get({ id: created.id })).status).toBe("open");
  });

  it("updates the totals as the customer types an amount, applies a code, switches product; asks a business for its details", async () => {
    const custom = await createProduct(seller, "custom");
    const code = `TEN${Date.now().toString(36).toUpperCase()}`;
    await seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 1000, name: "Ten", code });
    const created = await seller.sdk.checkouts.create({ products: [custom.id, productId] });
    const page = await newPage();
    const totals = async () => (await page.getByTestId("totals").textContent()) ?? "";
    await page.goto(`/checkout/${created.clientSecret}`);
    await expect.poll(totals).toContain("Total$15.00");
    const amount = page.getByLabel("Amount (USD)", { exact: true });
    expect(await amount.inputValue()).toBe("15.00");
    await amount.fill("40");
    await expect.poll(totals).toContain("Total$40.00");
    // below the minimum: the message on the field, and no Pay
    await amount.fill("1");
    await expect.poll(async () => (await page.locator("#checkout-amount-error").textContent())?.trim() ?? "").toBe("The amount must be at least $5.00.");
    expect(await page.locator("button.pay").isDisabled()).toBe(true);
    await amount.fill("40");
    await expect.poll(totals).toContain("Total$40.00");
    await expect.poll(() => page.locator(".field-error").count()).toBe(0);

    await page.getByLabel("Discount code (optional)", { exact: true }).fill("NOPE");
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await page.getByText("Discount code (optional)").waitFor();
    await expect.poll(() => page.locator(".field-error").count()).toBe(1);
    await page.getByLabel("Discount code (optional)", { exact: true }).fill(code);
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await expect.poll(totals).toContain(`Discount (${code})−$4.00`);
    await expect.poll(totals).toContain("Total$36.00");

    // the other product
    await page.getByRole("radio", { name: /\$25\.00$/ }).check();
    await expect.poll(totals).toContain("Subtotal$25.00");
    await expect.poll(() => page.getByLabel("Amount (USD)", { exact: true }).count()).toBe(0);

    // a business is asked for its name, tax id and full address
    expect(await page.getByLabel("Business name", { exact: true }).count()).toBe(0);
    await page.getByLabel("I'm purchasing as a business", { exact: true }).check();
    await page.getByLabel("Business name", { exact: true }).waitFor();
    await page.getByLabel("Tax ID (optional)", { exact: true }).waitFor();
    await page.getByLabel("Address line 1", { exact: true }).waitFor();
    await page.getByLabel("City", { exact: true }).waitFor();
  });

  it("asks the product's custom fields and keeps their answers", async () => {
    const stamp = Date.now().toString(36);
    const [company, plan, terms] = await Promise.all([
      seller.sdk.customFields.create({ type: "text", slug: `company_${stamp}`, name: "Company", properties: { formLabel: "Your company" } }),
      seller.sdk.customFields.create({ type: "select", slug: `plan_${stamp}`, name: "Plan", properties: { options: [{ value: "a", label: "Plan A" }, { value: "b", label: "Plan B" }] } }),
      seller.sdk.customFields.create({ type: "checkbox", slug: `terms_${stamp}`, name: "I accept the terms", properties: {} }),
    ]);
    const product = await createProduct(seller, "fixed", {
      attachedCustomFields: [
        { customFieldId: company.id, required: true },
        { customFieldId: plan.id, required: false },
        { customFieldId: terms.id, required: true },
      ],
    });
    const created = await seller.sdk.checkouts.create({ products: [product.id] });
    const page = await newPage();
    await page.goto(`/checkout/${created.clientSecret}`);
    await page.getByLabel("Plan (optional)", { exact: true }).selectOption("b");
    await page.getByLabel("I accept the terms", { exact: true }).check();
    await fillAndPay(page, CARDS.ok);
    await expect.poll(async () => (await page.getByRole("alert").textContent())?.trim() ?? "").toContain("Your company: Fill in “Your company”.");
    expect(await page.evaluate(() => document.activeElement?.id)).toMatch(/^checkout-custom_field_data-company_/);
    await page.getByLabel("Your company", { exact: true }).fill("Acme");
    await page.getByRole("button", { name: "Pay $25.00", exact: true }).click();
    await thanks(page);
    const done = await seller.sdk.checkouts.get({ id: created.id });
    expect(done.customFieldData).toMatchObject({ [`company_${stamp}`]: "Acme", [`plan_${stamp}`]: "b", [`terms_${stamp}`]: true });
  });

  it("renders the dark theme from ?theme=dark and light by default, even when the system prefers dark", async () => {
    const created = await newCheckout();
    const page = await newPage({ colorScheme: "dark" });
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.goto(`/checkout/${created.clientSecret}?theme=dark`);
    await page.getByLabel("Email", { exact: true }).waitFor();
    expect(await background()).toBe("rgb(17, 20, 24)");
    await page.goto(`/checkout/${created.clientSecret}`);
    await page.getByLabel("Email", { exact: true }).waitFor();
    expect(await background()).toBe("rgb(246, 247, 249)");
  });
});

describe("the embed script on a seller's page (another origin)", () => {
  const frame = (page: Page) => page.frameLocator("iframe.till-embed-frame");
  const overlayCount = (page: Page) => page.locator("iframe.till-embed-frame").count();

  const devices = [
    ["desktop", "dark", { viewport: { width: 1280, height: 900 } }],
    ["phone", "light", { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
  ] as const;
  it.each(devices)("opens the overlay, pays inside it and lands on the success URL (%s, %s)", async (_label, theme, device) => {
    const created = await newCheckout({ successUrl: `${shop.url}/thanks?checkout_id={CHECKOUT_ID}`, embedOrigin: shop.url });
    const page = await newPage(device);
    await page.goto(`${shop.url}/?checkout=${encodeURIComponent(created.url)}&theme=${theme}`);
    await page.getByRole("link", { name: "Buy now" }).click();
    const src = new URL((await page.locator("iframe.till-embed-frame").getAttribute("src")) ?? "");
    expect(src.searchParams.get("embed")).toBe("true");
    expect(src.searchParams.get("embed_origin")).toBe(shop.url);
    expect(src.searchParams.get("theme")).toBe(theme);
    // the loader goes once the page says `loaded`
    await frame(page).getByLabel("Email", { exact: true }).waitFor();
    await expect.poll(() => page.locator(".till-embed-loader").count()).toBe(0);
    expect(await page.evaluate(() => document.body.classList.contains("till-no-scroll"))).toBe(true);
    await fillAndPay(frame(page), CARDS.ok);
    await page.waitForURL(`${shop.url}/thanks?checkout_id=${created.id}`);
    await page.getByRole("heading", { name: "Thanks for buying" }).waitFor();
    expect((await seller.sdk.checkouts.get({ id: created.id })).status).toBe("succeeded");
  });

  it("closes before confirm, not while the payment is in progress, and again after success", async () => {
    const created = await newCheckout({ embedOrigin: shop.url });
    const page = await newPage();
    await page.goto(`${shop.url}/?checkout=${encodeURIComponent(created.url)}`);

    // a click on the link, then the page's Close button
    await page.getByRole("link", { name: "Buy now" }).click();
    await frame(page).getByRole("button", { name: "Close checkout" }).click();
    await expect.poll(() => overlayCount(page)).toBe(0);
    expect(await page.evaluate(() => document.body.classList.contains("till-no-scroll"))).toBe(false);

    // by keyboard: the link, then Escape inside the checkout (focus is moved into it once loaded)
    await page.getByRole("link", { name: "Buy now" }).focus();
    await page.keyboard.press("Enter");
    await frame(page).getByLabel("Email", { exact: true }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("IFRAME");
    await frame(page).getByLabel("Email", { exact: true }).press("Escape");
    await expect.poll(() => overlayCount(page)).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("buy");

    // through the API, recording what the page tells it
    await page.evaluate(async (url) => {
      const w = window as unknown as { TillEmbedCheckout: { create(u: string): Promise<EventTarget & { isClosable: boolean }> }; seen: string[]; embed: unknown };
      w.seen = [];
      const embed = await w.TillEmbedCheckout.create(url);
      w.embed = embed;
      for (const e of ["loaded", "close", "confirmed", "success"]) embed.addEventListener(e, () => w.seen.push(e));
    }, created.url);
    const seen = () => page.evaluate(() => (window as unknown as { seen: string[] }).seen.join(","));
    const closable = () => page.evaluate(() => (window as unknown as { embed: { isClosable: boolean } }).embed.isClosable);
    const checkoutFrame = (await (await page.locator("iframe.till-embed-frame").elementHandle())?.contentFrame()) as Frame;
    expect(checkoutFrame).toBeTruthy();
    const postFromCheckout = (message: Record<string, unknown>) =>
      checkoutFrame.evaluate(([m, origin]) => window.parent.postMessage({ ...(m as object), type: "POLAR_CHECKOUT" }, origin as string), [message, shop.url] as const);

    // the seller's own page (a foreign origin) cannot close it
    await page.evaluate(() => window.postMessage({ type: "POLAR_CHECKOUT", event: "close" }, "*"));
    // the payment is in progress: close is ignored
    await postFromCheckout({ event: "confirmed" });
    await expect.poll(seen).toBe("confirmed");
    expect(await closable()).toBe(false);
    await frame(page).getByRole("button", { name: "Close checkout" }).click();
    await expect.poll(seen).toBe("confirmed,close");
    expect(await overlayCount(page)).toBe(1);
    // succeeded without a redirect: closable again
    await postFromCheckout({ event: "success", successURL: `${shop.url}/thanks`, redirect: false });
    await expect.poll(seen).toBe("confirmed,close,success");
    expect(await closable()).toBe(true);
    expect(new URL(page.url()).pathname).toBe("/");
    await frame(page).getByRole("button", { name: "Close checkout" }).click();
    await expect.poll(() => overlayCount(page)).toBe(0);
  });

  it("is importable as an ES module from another origin, under Polar's name too", async () => {
    const page = await newPage();
    await page.goto(`${shop.url}/`);
    // a string, so the test runner's transform leaves the page's dynamic import alone
    const origin = await page.evaluate(
      `import(${JSON.stringify(`${server.url}/embed.mjs`)}).then((m) => [m.TillEmbedCheckout.origin, typeof m.TillEmbedCheckout.create, ` +
        `typeof m.TillEmbedCheckout.init, m.PolarEmbedCheckout === m.TillEmbedCheckout].join(" "))`,
    );
    expect(origin).toBe(`${server.url} function function true`);
  });

  it("opens light when the link names no theme, on a system that prefers dark", async () => {
    const created = await newCheckout({ embedOrigin: shop.url });
    const page = await newPage({ colorScheme: "dark" });
    await page.goto(`${shop.url}/?checkout=${encodeURIComponent(created.url)}`);
    await page.getByRole("link", { name: "Buy now" }).click();
    const src = new URL((await page.locator("iframe.till-embed-frame").getAttribute("src")) ?? "");
    expect(src.searchParams.get("theme")).toBe("light");
    await frame(page).getByLabel("Email", { exact: true }).waitFor();
    // the light theme's ink (the dark one's is rgb(230, 232, 235))
    expect(await frame(page).locator("main.checkout").evaluate((el) => getComputedStyle(el).color)).toBe("rgb(27, 31, 36)");
  });

  it("works with Polar's snippet unchanged but for the script's address: data-polar-checkout, its theme, window.Polar", async () => {
    const created = await newCheckout({ successUrl: `${shop.url}/thanks?checkout_id={CHECKOUT_ID}`, embedOrigin: shop.url });
    const page = await newPage();
    await page.goto(`${shop.url}/polar?checkout=${encodeURIComponent(created.url)}&theme=dark`);
    expect(await page.evaluate(() => typeof (window as unknown as { Polar?: { EmbedCheckout?: { create?: unknown } } }).Polar?.EmbedCheckout?.create)).toBe("function");
    // a click on the link's child, as on a styled button
    await page.getByText("Purchase", { exact: true }).click();
    const src = new URL((await page.locator("iframe.till-embed-frame").getAttribute("src")) ?? "");
    expect([src.searchParams.get("embed"), src.searchParams.get("embed_origin"), src.searchParams.get("theme")]).toEqual(["true", shop.url, "dark"]);
    await fillAndPay(frame(page), CARDS.ok);
    await page.waitForURL(`${shop.url}/thanks?checkout_id=${created.id}`);
    expect((await seller.sdk.checkouts.get({ id: created.id })).status).toBe("succeeded");
  });
});
