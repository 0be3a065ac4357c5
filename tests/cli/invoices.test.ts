// `till orders invoice`: the order's PDF invoice as a link (and its credit notes), saved with --output, made
// again with --generate; the CLI as a child process against the real server, whose worker makes the PDFs.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;

beforeAll(async () => {
  server = await startServer();
  await server.worker.start();
  seller = await createSeller(server, "cli-invoices");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
}, 60_000);
afterAll(async () => server?.close());

describe("till orders invoice", () => {
  it("shows the invoice's link, saves its PDF, makes it again; an unknown order exits 1", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerBillingName: "Ada Buyer", customerBillingAddress: { country: "FR" } });
    const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order) throw new Error("no order");
    for (let i = 0; !(await seller.sdk.orders.get({ id: order.id })).isInvoiceGenerated; i++) {
      if (i > 200) throw new Error("no invoice");
      server.worker.wake();
      await new Promise((r) => setTimeout(r, 100));
    }

    const shown = await till(["orders", "invoice", order.id], cli);
    expect(shown.exitCode, shown.stderr).toBe(0);
    // the seller's legal details are missing: said with the invoice, until they are set
    expect(shown.stderr).toContain("warning: invoices carry no seller address or tax id: set your legal details with `till orgs billing set");
    expect(shown.stdout).toMatch(new RegExp(`^Invoice: ${order.invoiceNumber}\\nPDF \\(1 hour\\): ${server.url}/v1/invoices/[0-9a-f-]{36}/pdf\\?expires=\\d+&signature=\\S+\\n$`));

    const file = path.join(os.tmpdir(), `till-invoice-${order.id}.pdf`);
    const saved = await till(["orders", "invoice", order.id, "--output", file], cli);
    expect(saved.exitCode, saved.stderr).toBe(0);
    expect(saved.stdout).toBe(`Saved invoice ${order.invoiceNumber} to ${file}.\n`);
    expect(readFileSync(file).subarray(0, 5).toString()).toBe("%PDF-");

    const again = await till(["orders", "invoice", order.id, "--generate", "--json"], cli);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(parseJson<{ status: string }>(again.stdout)).toEqual({ order_id: order.id, status: "generating" });

    const set = await till(["orgs", "billing", "set", "--line1", "1 rue X", "--city", "Paris", "--country", "FR", "--tax-id", "FR40303265045"], cli);
    expect(set.exitCode, set.stderr).toBe(0);
    const quiet = await till(["orders", "invoice", order.id], cli);
    expect([quiet.exitCode, quiet.stderr]).toEqual([0, ""]);

    const unknown = await till(["orders", "invoice", "0b5c1d2e-0000-4000-8000-000000000000"], cli);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain("Order not found");
  });
});
