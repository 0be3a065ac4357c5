// `till customers wallet <id>`, end to end: the CLI runs as a child process against the real server
// with a sandbox key; a customer who paid a checkout (their card saved) is topped up from that card, and the
// wallet's balance and history read back in text and JSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pay } from "../helpers/checkout.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let key: string;

const run = (args: string[]): Promise<TillResult> => till(args, cli);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-wallets");
  key = await seller.createSandboxKey();
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: key, TILL_SERVER: server.url } };
});
afterAll(async () => server?.close());

describe("till customers wallet", () => {
  it("tops a wallet up from the saved card and shows its balance and history", async () => {
    const sdk = sdkFor(server, key);
    const product = await sdk.products.create({ name: "One", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    const checkout = await sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerEmail: "cli-wallet@example.com" });
    const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const id = order!.customerId;

    const empty = await run(["customers", "wallet", id]);
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(empty.stdout + empty.stderr).toContain("No wallet");
    const missing = await run(["customers", "wallet", id, "--top-up", "2000"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("--top-up needs --currency");

    const topped = await run(["customers", "wallet", id, "--top-up", "2000", "--currency", "usd"]);
    expect(topped.exitCode, topped.stderr).toBe(0);
    expect(topped.stdout + topped.stderr).toContain("the balance is $20.00");
    const shown = await run(["customers", "wallet", "cli-wallet@example.com"]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout + shown.stderr).toContain("balance $20.00");
    expect(shown.stdout).toContain("Top-up");
    const json = parseJson<{ items: Array<{ balance: number; transactions: Array<{ type: string; amount: number }> }> }>((await run(["customers", "wallet", id, "--json"])).stdout);
    expect(json.items).toEqual([expect.objectContaining({ balance: 2000, transactions: [expect.objectContaining({ type: "top_up", amount: 2000 })] })]);
  });

  it("adjusts a wallet by hand: a credit and a debit with their reasons, an overdraft refused", async () => {
    const email = "cli-wallet@example.com";
    const credited = await run(["customers", "wallet", "adjust", email, "--credit", "500", "--currency", "usd", "--reason", "Goodwill credit"]);
    expect(credited.exitCode, credited.stderr).toBe(0);
    expect(credited.stdout + credited.stderr).toContain("Credited $5.00 to the USD wallet: the balance is $25.00.");
    const debited = parseJson<{ transaction: { type: string; amount: number; description: string }; wallet: { balance: number } }>(
      (await run(["customers", "wallet", "adjust", email, "--debit", "300", "--currency", "usd", "--reason", "Correction", "--json"])).stdout,
    );
    expect(debited).toMatchObject({ transaction: { type: "adjustment", amount: -300, description: "Correction" }, wallet: { balance: 2200 } });
    const over = await run(["customers", "wallet", "adjust", email, "--debit", "999999", "--currency", "usd", "--reason", "Too much"]);
    expect(over.exitCode).not.toBe(0);
    expect(over.stderr).toContain("more than the wallet's balance");
    const both = await run(["customers", "wallet", "adjust", email, "--credit", "1", "--debit", "1", "--currency", "usd", "--reason", "x"]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("one of --credit");
    const shown = await run(["customers", "wallet", email]);
    expect(shown.stdout).toContain("Goodwill credit");
    expect(shown.stdout + shown.stderr).toContain("balance $22.00");

    // a refund of the card-paid order to the wallet instead (--to-wallet)
    const sdk = sdkFor(server, key);
    const customer = (await sdk.customers.list({ email })).result.items[0]!;
    const order = (await sdk.orders.list({ customerId: customer.id, sorting: ["created_at"] })).result.items[0]!;
    const refunded = await run(["refunds", "create", "--order", order.id, "--amount", "300", "--reason", "customer_request", "--to-wallet", "--yes"]);
    expect(refunded.exitCode, refunded.stderr).toBe(0);
    expect((await run(["customers", "wallet", email])).stdout).toContain("Refund");
    expect((await run(["customers", "wallet", email])).stdout + "").toMatch(/\+\$3\.00/);
  });
});
