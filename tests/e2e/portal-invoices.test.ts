// The customer portal page's invoices in a real Chromium against the real server: a paid order lists its
// invoice with a download link whose PDF is the order's invoice, and after a refund the credit note beside it.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages } from "../helpers/browser.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { pdfTextOf } from "../helpers/pdf.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
let product: Product;
const problems: string[] = [];

beforeAll(async () => {
  server = await startServer();
  await server.worker.start();
  browser = await launchForPages();
  seller = await createSeller(server, "portal-inv");
  product = await createProduct(seller, "fixed");
}, 60_000);

afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

async function until<T>(what: string, probe: () => Promise<T | null | false>): Promise<T> {
  const end = Date.now() + 20_000;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    server.worker.wake();
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function openPortal(customerId: string): Promise<Page> {
  const { customerPortalUrl } = await seller.sdk.customerSessions.create({ customerId });
  const context = await browser.newContext({ baseURL: server.url, locale: "en-US", timezoneId: "UTC" });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  await page.goto(customerPortalUrl);
  await page.getByRole("heading", { level: 2, name: "Orders" }).waitFor();
  return page;
}

async function download(page: Page, name: RegExp): Promise<string> {
  const link = page.getByRole("link", { name });
  const href = await link.getAttribute("href");
  if (!href) throw new Error("no href");
  const res = await page.request.get(href);
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toBe("application/pdf");
  return pdfTextOf(new Uint8Array(await res.body()));
}

describe("the portal's orders", () => {
  it("list the order's invoice with a download link, and a refund's credit note once issued", async () => {
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const confirmed = await pay(server, checkout, {
      customerEmail: uniqueBuyer("portal-inv"),
      customerBillingName: "Grace Hopper",
      customerBillingAddress: { country: "US", state: "NY", line1: "1 Main St", city: "New York", postalCode: "10001" },
    });
    const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order || !confirmed.customerId) throw new Error("no order");
    await until("the invoice", async () => (await seller.sdk.orders.get({ id: order.id })).isInvoiceGenerated);

    const page = await openPortal(confirmed.customerId);
    const text = await download(page, new RegExp(`Download invoice ${order.invoiceNumber} \\(PDF\\)`));
    expect(text).toContain(`Invoice number: ${order.invoiceNumber}`);
    expect(text).toContain("Bill to Grace Hopper 1 Main St 10001 New York NY United States");
    expect(text).toContain("Total $25.00");

    await seller.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 500 });
    await until("the credit note", async () => {
      const res = await fetch(`${server.url}/v1/orders/${order.id}/invoice`, { headers: { authorization: `Bearer ${seller.token}` } });
      const body = (await res.json()) as { credit_notes?: unknown[] };
      return (body.credit_notes?.length ?? 0) > 0;
    });
    await page.reload();
    await page.getByRole("heading", { level: 2, name: "Orders" }).waitFor();
    const note = await download(page, new RegExp(`Download credit note ${order.invoiceNumber}-CN1 \\(PDF\\)`));
    expect(note).toContain(`Credits invoice ${order.invoiceNumber}`);
    expect(note).toContain("Total credited $5.00");
    expect(problems).toEqual([]);
  });
});
