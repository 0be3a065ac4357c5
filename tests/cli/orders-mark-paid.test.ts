// `till orders mark-paid <id>`, end to end: the CLI as a child process against the real server with an organization
// API key. An invoice with terms still owed is marked paid (who and when, the note kept; its pay link gone); marking it
// again changes nothing; a paid order is refused (exit 1 with the server's reason); another organization's order is
// not found.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
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

describe("till orders mark-paid", () => {
  it("marks an invoice with terms paid once; a paid order is refused; another organization's is not found", async () => {
    const product = await createProduct(seller, "trial");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerEmail: uniqueBuyer("cli-mark-paid") });
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
    if (!sub) throw new Error("no subscription");
    const terms = await rawRequest(server.url, seller.token, "PATCH", `/v1/subscriptions/${sub.id}/terms`, { collection_method: "send_invoice", days_until_due: 15 });
    expect(terms.status, JSON.stringify(terms.body)).toBe(200);
    await rawRequest(server.url, seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    const orders = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"] })).result.items;
    const [invoice, paid] = [orders[0], orders[1]];
    if (!invoice || !paid) throw new Error("no orders");
    expect(invoice.status).toBe("pending");

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
});
