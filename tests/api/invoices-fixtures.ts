// The set-up the invoice tests share (invoices*.test.ts): a server of the file's own with its jobs worker
// started, a German invoicer and another organization, the customer portal through both SDKs, a purchase, and
// the invoice once the worker made it, read back as a PDF's text.
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import type { Order } from "@polar-sh/sdk/models/components/order.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, expect } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { pdfTextOf } from "../helpers/pdf.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, makeGermanInvoicer, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function invoicesFixture() {
  const fx = {} as { server: TestServer; seller: Seller; other: Seller; fixed: Product; portal: Polar; portal049: Polar049 };
  const raw = (method: string, path: string, body?: unknown, token = fx.seller.token) => rawRequest(fx.server.url, token, method, path, body);

  async function buy(product: Product, extra: Record<string, unknown> = {}, s: Seller = fx.seller, sdk = s.sdk): Promise<Order> {
    const checkout = await sdk.checkouts.create({ products: [product.id] });
    await pay(fx.server, checkout, { customerEmail: uniqueBuyer("invoice"), ...extra });
    const [o] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!o) throw new Error("no order");
    return o;
  }

  async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 20_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      fx.server.worker.wake();
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The invoice once the worker made it (the seller's GET answers 404 before). */
  const invoiceReady = (orderId: string, token = fx.seller.token) =>
    until(`the invoice of ${orderId}`, async () => {
      const res = await raw("GET", `/v1/orders/${orderId}/invoice`, undefined, token);
      return res.status === 200 ? (res.body as { url: string; number: string; credit_notes: Array<{ number: string; url: string }> }) : null;
    });

  async function pdfText(url: string): Promise<string> {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe("%PDF-");
    return pdfTextOf(bytes);
  }

  async function sessionFor(customerId: string): Promise<string> {
    return (await fx.seller.sdk.customerSessions.create({ customerId })).token;
  }

  beforeAll(async () => {
    fx.server = await startServer();
    await fx.server.worker.start();
    [fx.seller, fx.other] = await Promise.all([createSeller(fx.server, "inv"), createSeller(fx.server, "inv-other")]);
    fx.portal = new Polar({ serverURL: fx.server.url });
    fx.portal049 = new Polar049({ serverURL: fx.server.url });
    fx.fixed = await createProduct(fx.seller, "fixed");
    const org = await makeGermanInvoicer(fx.server, fx.seller);
    expect(org.invoice_details).toMatchObject({ name: "Acme Software GmbH", tax_id: "DE123456789" });
  }, 60_000);
  afterAll(async () => fx.server?.close());

  return Object.assign(fx, { raw, buy, until, invoiceReady, pdfText, sessionFor });
}
