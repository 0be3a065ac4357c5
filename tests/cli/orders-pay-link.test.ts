// `till orders pay-link <id>`, end to end: the CLI as a child process against the real server with an
// organization API key. A failed renewal's order prints its pay link (the URL alone, for a pipe; --json the
// order's id, status and pay_url); once paid there is none: exit 1 with the reason, or pay_url null under --json.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-pay-link");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
}, 120_000);
afterAll(async () => server?.close());

describe("till orders pay-link", () => {
  it("prints a failed renewal's pay link; a paid order has none", async () => {
    const product = await createProduct(seller, "trial");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerEmail: uniqueBuyer("cli-pay-link") }, "4000 0000 0000 0341");
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
    if (!sub) throw new Error("no subscription");
    await rawRequest(server.url, seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    const orders = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"] })).result.items;
    const [pending, paid] = [orders[0], orders[1]];
    if (!pending || !paid) throw new Error("no orders");

    const printed = await till(["orders", "pay-link", pending.id], cli);
    expect(printed.exitCode, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(new RegExp(`^${server.url}/pay/[A-Za-z0-9_-]{48}\\.[A-Za-z0-9_-]+\\n$`));
    const opened = await fetch(`${server.url}/v1/pay/${printed.stdout.trim().split("/pay/")[1] ?? ""}`);
    expect(opened.status).toBe(200);

    const json = await till(["orders", "pay-link", pending.id, "--json"], cli);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(parseJson(json.stdout)).toMatchObject({ order_id: pending.id, status: "pending", pay_url: expect.stringMatching(/\/pay\//) });

    const none = await till(["orders", "pay-link", paid.id], cli);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain("nothing is owed");
    expect(none.stdout).toBe("");
    const noneJson = await till(["orders", "pay-link", paid.id, "--json"], cli);
    expect(noneJson.exitCode, noneJson.stderr).toBe(0);
    expect(parseJson(noneJson.stdout)).toEqual({ order_id: paid.id, status: "paid", pay_url: null });

    const bad = await till(["orders", "pay-link", "not-an-id"], cli);
    expect(bad.exitCode).toBe(2);
  }, 120_000);
});
