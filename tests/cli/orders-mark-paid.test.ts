// `till orders mark-paid <id>`, end to end: the CLI as a child process against the real server with an organization
// API key. An invoice with terms still owed is marked paid (who and when, the note kept; its pay link gone); marking it
// again changes nothing; a paid order is refused (exit 1 with the server's reason), and so is one whose bank debit is
// still processing; another organization's order is not found.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { eq } from "drizzle-orm";
import { order, payment } from "../../server/db/schema/index.js";
import { parseJson, tempConfigDir, till, type TillOptions } from "./till.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let cli: TillOptions;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-mark-paid");
  other = await createSeller(server, "cli-mark-paid-other");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
}, 120_000);
afterAll(async () => server?.close());

/** A subscription's renewal issued as an invoice with terms, still owed, and the order its checkout paid. */
async function invoiceOwed(tag: string) {
  const product = await createProduct(seller, "trial");
  const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
  await pay(server, checkout, { customerEmail: uniqueBuyer(tag) });
  const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
  if (!sub) throw new Error("no subscription");
  const terms = await rawRequest(server.url, seller.token, "PATCH", `/v1/subscriptions/${sub.id}/terms`, { collection_method: "send_invoice", days_until_due: 15 });
  expect(terms.status, JSON.stringify(terms.body)).toBe(200);
  await rawRequest(server.url, seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
  const orders = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"] })).result.items;
  const [invoice, paid] = [orders[0], orders[1]];
  if (!invoice || !paid) throw new Error("no orders");
  expect(invoice.status).toBe("pending");
  return { invoice, paid };
}

describe("till orders mark-paid", () => {
  it("marks an invoice with terms paid once; a paid order is refused; another organization's is not found", async () => {
    const { invoice, paid } = await invoiceOwed("cli-mark-paid");

    const marked = await till(["orders", "mark-paid", invoice.id, "--note", "wire ref 4711"], cli);
    expect(marked.exitCode, marked.stderr).toBe(0);
    expect(marked.stdout).toContain(`Order ${invoice.invoiceNumber} (${invoice.id}) is paid, marked paid at `);

    const again = await till(["orders", "mark-paid", invoice.id, "--json"], cli);
    expect(again.exitCode, again.stderr).toBe(0);
    const json = parseJson(again.stdout) as { id: string; status: string; marked_paid_at: string; marked_paid_by: { kind: string; note: string | null } };
    expect(json).toMatchObject({ id: invoice.id, status: "paid", marked_paid_by: { kind: "token", note: "wire ref 4711" } });
    expect(marked.stdout).toContain(json.marked_paid_at);
    const got = await rawRequest(server.url, seller.token, "GET", `/v1/orders/${invoice.id}`);
    expect(got.body).toMatchObject({ status: "paid", pay_url: null });
    const link = await till(["orders", "pay-link", invoice.id], cli);
    expect(link.exitCode).toBe(1);

    const refused = await till(["orders", "mark-paid", paid.id], cli);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr.length).toBeGreaterThan(0);

    const foreign = await till(["orders", "mark-paid", invoice.id], { ...cli, env: { ...cli.env, TILL_API_KEY: await other.createKey() } });
    expect(foreign.exitCode).toBe(1);
    expect(foreign.stderr).toMatch(/not found/i);

    const bad = await till(["orders", "mark-paid", "not-an-id"], cli);
    expect(bad.exitCode).toBe(2);
  }, 180_000);

  it("refuses an order whose bank debit is still processing: the server's reason, exit 1, nothing marked", async () => {
    const { invoice } = await invoiceOwed("cli-mark-paid-debit");
    // the test processor makes no bank debits: the order's debit on its way, as a SEPA renewal records it
    const [row] = await server.database.db.select({ organizationId: order.organizationId }).from(order).where(eq(order.id, invoice.id));
    await server.database.db.insert(payment).values({
      organizationId: row?.organizationId ?? "", customerId: invoice.customerId, orderId: invoice.id, processor: "stripe", processorPaymentId: "pi_cli_debit",
      status: "pending", amount: invoice.totalAmount, currency: invoice.currency, method: "sepa_debit", declineReason: "processing",
      declineMessage: "The payment is processing.", attempt: "renewal",
    });
    const refused = await till(["orders", "mark-paid", invoice.id], cli);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("A bank debit of this order is still processing");
    const json = await till(["orders", "mark-paid", invoice.id, "--json"], cli);
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: "DebitProcessing", message: expect.stringContaining("still processing") } });
    expect((await seller.sdk.orders.get({ id: invoice.id })).status).toBe("pending");
  }, 180_000);
});
