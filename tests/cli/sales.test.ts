// `till checkouts|orders`, end to end: the CLI as a child process against the real server with an organization
// API key; checkouts it opens are paid the way the hosted page does it (the test card, tests/helpers/checkout.ts),
// and what it changed is read back through the Polar SDK; and the commands' output. Subscriptions:
// sales-subscriptions.test.ts; refunds: sales-refunds.test.ts.
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../cli/main.js";
import { pay } from "../helpers/checkout.js";
import { TRACE_HOOK } from "./till.js";
import { salesFixture, UUID, type Bought } from "./sales-fixtures.js";
import { json, ok } from "./seller-cli-fixtures.js";

const fx = salesFixture();

describe("till checkouts", () => {
  it("create prints the hosted link alone; the checkout carries the flags and can be paid", async () => {
    const r = ok(
      await fx.run([
        "checkouts", "create", "--product", fx.oneTime.id, "--email", "ada@example.com", "--success-url", "https://example.com/thanks",
        "--metadata", "campaign=spring", "--metadata", "seats:=3",
      ]),
    );
    expect(r.stdout).toMatch(new RegExp(`^${fx.server.url}/checkout/\\S+\\n$`));
    expect(r.stderr).toMatch(/^Checkout [0-9a-f-]{36}: fixed product \d+, \$25\.00; open until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\.\n$/);
    const id = /^Checkout ([0-9a-f-]{36})/.exec(r.stderr)?.[1] ?? "";
    const checkout = await fx.seller.sdk.checkouts.get({ id });
    expect(checkout).toMatchObject({
      url: r.stdout.trim(),
      customerEmail: "ada@example.com",
      successUrl: "https://example.com/thanks",
      metadata: { campaign: "spring", seats: 3 },
      productId: fx.oneTime.id,
    });
    // the link is what the customer pays through
    await pay(fx.server, checkout, { customerEmail: "ada@example.com" });
    expect((await fx.seller.sdk.checkouts.get({ id })).status).toBe("succeeded");

    const [get, got] = await Promise.all([fx.run(["checkouts", "get", id]), fx.run(["checkouts", "get", id, "--json"])]);
    expect(ok(get).stdout).toContain(`ID: ${id}\nStatus: succeeded\nURL: ${checkout.url}\nProduct: ${fx.oneTime.name} (${fx.oneTime.id})\n`);
    expect(get.stdout).toContain("Total: $25.00\n");
    expect(get.stdout).toContain("Customer: ada@example.com\n");
    expect(json<{ id: string; status: string; url: string }>(got)).toMatchObject({ id, status: "succeeded", url: checkout.url });
  });

  it("create --price selects a price of any of the products; --json prints the checkout", async () => {
    const yearlyPrice = fx.yearly.prices[0]?.id ?? "";
    const c = json<{ id: string; product_id: string; product_price_id: string; products: { id: string }[]; total_amount: number }>(
      await fx.run(["checkouts", "create", "--product", fx.monthly.id, "--product", fx.yearly.id, "--price", yearlyPrice, "--json"]),
    );
    expect(c).toMatchObject({ product_id: fx.yearly.id, product_price_id: yearlyPrice, total_amount: 9000 });
    expect(c.products.map((p) => p.id).sort()).toEqual([fx.monthly.id, fx.yearly.id].sort());

    // a metered price is never the checkout's price (the checkout charges the static one): refused, exit 2
    const meter = await fx.seller.sdk.meters.create({ name: "Calls", filter: { conjunction: "and", clauses: [] }, aggregation: { func: "count" } });
    const api = await fx.seller.sdk.products.create({
      name: "API",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "0.5", priceCurrency: "usd" },
      ],
    });
    const metered = api.prices.find((p) => p.amountType === "metered_unit")?.id ?? "";
    const m = await fx.run(["checkouts", "create", "--product", api.id, "--price", metered]);
    expect(m.exitCode).toBe(2);
    expect(m.stderr).toContain("A metered price cannot be the checkout's price");
  });

  it("list filters by status and product; tables show money", async () => {
    const open = json<{ id: string }>(await fx.run(["checkouts", "create", "--product", fx.monthly.id, "--external-customer-id", "user_77", "--json"])).id;
    const [byStatus, byProduct, plain] = await Promise.all([
      fx.run(["checkouts", "list", "--status", "open", "--all", "--json"]),
      fx.run(["checkouts", "list", "--product", fx.monthly.id, "--status", "open", "--json"]),
      fx.run(["checkouts", "list", "--product", fx.monthly.id, "--status", "open"]),
    ]);
    const statuses = json<{ id: string; status: string }[]>(byStatus);
    expect(statuses.map((c) => c.id)).toContain(open);
    expect(statuses.every((c) => c.status === "open")).toBe(true);
    expect(json<{ id: string }[]>(byProduct).map((c) => c.id)).toContain(open);
    expect(ok(plain).stdout).toMatch(new RegExp(`^${open}\topen\t${fx.monthly.name}\t\\$9\\.00\t\t\\d{4}-\\d{2}-\\d{2}$`, "m"));
  });

  it("bad input: one line, exit 2, nothing sent; the server's refusal: exit 1", async () => {
    const before = (await fx.seller.sdk.checkouts.list({ limit: 100 })).result.pagination.totalCount;
    const results = await Promise.all([
      fx.run(["checkouts", "create"]),
      fx.run(["checkouts", "create", "--product", "pro"]),
      fx.run(["checkouts", "create", "--product", fx.oneTime.id, "--success-url", "ftp://example.com"]),
      fx.run(["checkouts", "create", "--product", fx.oneTime.id, "--email", "not-an-email"]),
      fx.run(["checkouts", "create", "--product", fx.oneTime.id, "--price", fx.monthly.prices[0]?.id ?? ""]),
      fx.run(["checkouts", "create", "--product", fx.oneTime.id, "--product", fx.oneTime.id]),
      fx.run(["checkouts", "list", "--status", "paid"]),
    ]);
    expect(results.map((r) => r.stderr)).toEqual([
      "error: required option '--product <id>' not specified\n",
      "error: option '--product <id>' argument 'pro' is invalid. expected an id (a UUID such as 0b5c1d2e-…), see the list command.\n",
      "error: option '--success-url <url>' argument 'ftp://example.com' is invalid. expected an absolute http(s) URL such as https://example.com/thanks.\n",
      "error: option '--email <email>' argument 'not-an-email' is invalid. expected an email address such as ada@example.com.\n",
      `error: --price: ${fx.monthly.prices[0]?.id} is not a price of product ${fx.oneTime.id}\n`,
      `error: --product: ${fx.oneTime.id} is given twice\n`,
      "error: option '--status <status>' argument 'paid' is invalid. expected one of open, expired, confirmed, succeeded, failed.\n",
    ]);
    expect(results.map((r) => r.exitCode)).toEqual([2, 2, 2, 2, 2, 2, 2]);
    const unknown = await fx.run(["checkouts", "create", "--product", UUID, "--json"]);
    expect(unknown.exitCode).toBe(2);
    expect(JSON.parse(unknown.stderr)).toEqual({
      error: { message: "--product: Product does not exist.", code: "RequestValidationError", hint: null },
    });
    expect((await fx.seller.sdk.checkouts.list({ limit: 100 })).result.pagination.totalCount).toBe(before);
  });
});

describe("till orders", () => {
  let bought: Bought;
  beforeAll(async () => {
    bought = await fx.buy(fx.oneTime);
  });

  it("list by customer, product and billing type; get shows the amounts", async () => {
    const [byCustomer, byProduct, recurring, plain, get] = await Promise.all([
      fx.run(["orders", "list", "--customer", bought.customerId, "--json"]),
      fx.run(["orders", "list", "--product", fx.oneTime.id, "--billing-type", "one_time", "--all", "--json"]),
      fx.run(["orders", "list", "--billing-type", "recurring", "--all", "--json"]),
      fx.run(["orders", "list", "--checkout", bought.checkoutId]),
      fx.run(["orders", "get", bought.orderId]),
    ]);
    expect(json<{ id: string }[]>(byCustomer).map((o) => o.id)).toEqual([bought.orderId]);
    expect(json<{ id: string }[]>(byProduct).map((o) => o.id)).toContain(bought.orderId);
    expect(json<{ id: string }[]>(recurring).map((o) => o.id)).not.toContain(bought.orderId);
    const order = await fx.seller.sdk.orders.get({ id: bought.orderId });
    expect(ok(plain).stdout).toBe(`${order.id}\t${order.invoiceNumber}\t${order.customer.email}\t${fx.oneTime.name}\t$25.00\tpaid\t${order.createdAt.toISOString().slice(0, 10)}\n`);
    expect(ok(get).stdout).toContain(`ID: ${order.id}\nInvoice: ${order.invoiceNumber}\nStatus: paid\nCustomer: ${order.customer.email} (${order.customerId})\n`);
    expect(get.stdout).toContain("Subtotal: $25.00\n");
    expect(get.stdout).toContain("Total: $25.00\nRefunded: $0.00\nRefundable: $25.00\n");
    expect(get.stdout).toContain("Billing address: FR\n");
  });

  it("update sets the billing name and address lines, keeping the country", async () => {
    const r = ok(await fx.run(["orders", "update", bought.orderId, "--billing-name", "Acme Inc", "--line1", "1 rue de la Paix", "--postal-code", "75002", "--city", "Paris"]));
    expect(r.stdout).toMatch(/^Updated order \S+ \([0-9a-f-]{36}\): billed to Acme Inc, 1 rue de la Paix, 75002 Paris, FR\.\n$/);
    expect(await fx.seller.sdk.orders.get({ id: bought.orderId })).toMatchObject({
      billingName: "Acme Inc",
      billingAddress: { line1: "1 rue de la Paix", postalCode: "75002", city: "Paris", country: "FR" },
    });
    const again = json<{ billing_name: string; billing_address: { city: string; line1: string } }>(await fx.run(["orders", "update", bought.orderId, "--city", "Lyon", "--json"]));
    expect(again).toMatchObject({ billing_name: "Acme Inc", billing_address: { city: "Lyon", line1: "1 rue de la Paix" } });
  });

  it("bad input: nothing to update and malformed flags exit 2; a country change is the server's 422, exit 1, nothing changed", async () => {
    const [nothing, country, id, type] = await Promise.all([
      fx.run(["orders", "update", bought.orderId]),
      fx.run(["orders", "update", bought.orderId, "--country", "France"]),
      fx.run(["orders", "get", "INV-1"]),
      fx.run(["orders", "list", "--billing-type", "monthly"]),
    ]);
    expect([nothing, country, id, type].map((r) => r.exitCode)).toEqual([2, 2, 2, 2]);
    expect(nothing.stderr).toBe("error: nothing to update: pass --billing-name or an address flag (--line1, --line2, --postal-code, --city, --state, --country)\n");
    expect(country.stderr).toBe("error: option '--country <code>' argument 'France' is invalid. expected a two-letter country code such as FR or US.\n");
    expect(id.stderr).toBe("error: command-argument value 'INV-1' is invalid for argument 'id'. expected an id (a UUID such as 0b5c1d2e-…), see the list command.\n");
    expect(type.stderr).toBe("error: option '--billing-type <type>' argument 'monthly' is invalid. expected one of one_time, recurring.\n");

    const moved = await fx.run(["orders", "update", bought.orderId, "--country", "DE", "--billing-name", "Other"]);
    expect(moved.exitCode).toBe(2);
    expect(moved.stderr).toBe(`error: --country: Country and state fields cannot be updated.\n`);
    expect(await fx.seller.sdk.orders.get({ id: bought.orderId })).toMatchObject({ billingName: "Acme Inc", billingAddress: { country: "FR" } });
    const missing = await fx.run(["orders", "get", UUID]);
    expect([missing.exitCode, missing.stderr]).toEqual([1, `error: Order not found\n`]);
  });
});

describe("output", () => {
  it("--json never loads Ink or React", async () => {
    const { orderId, subscriptionId } = await fx.buy(fx.monthly);
    const trace = async (name: string, args: string[]) => {
      const file = path.join(os.tmpdir(), `till-cli-sales-${process.pid}-${name}.txt`);
      writeFileSync(file, "");
      ok(await fx.run(args, { nodeArgs: ["--import", TRACE_HOOK], env: { ...fx.cli.env, TILL_TRACE_FILE: file } }));
      return readFileSync(file, "utf8").split("\n");
    };
    const loadsUi = (urls: string[]) => urls.some((u) => /\/node_modules\/(ink|react|ink-spinner)\/|\/dist\/cli\/ui-/.test(u));
    const traces = await Promise.all([
      trace("orders", ["orders", "get", orderId, "--json"]),
      trace("subs", ["subscriptions", "list", "--json"]),
      trace("checkouts", ["checkouts", "list", "--json"]),
      trace("refunds", ["refunds", "list", "--json"]),
      trace("cancel", ["subscriptions", "cancel", subscriptionId ?? "", "--json"]),
    ]);
    expect(traces[0]?.some((u) => u.endsWith("/bin/till.js"))).toBe(true);
    expect(traces.map(loadsUi)).toEqual([false, false, false, false, false]);
  });

  it("every sales command has a description and examples in --help", () => {
    const program = buildProgram();
    for (const noun of ["checkouts", "orders", "subscriptions", "refunds"]) {
      const group = program.commands.find((c) => c.name() === noun);
      expect(group, noun).toBeDefined();
      for (const cmd of [group, ...(group?.commands ?? [])]) {
        if (!cmd) continue;
        let help = "";
        cmd.configureOutput({ writeOut: (s) => (help += s), writeErr: (s) => (help += s) });
        cmd.outputHelp();
        const name = cmd === group ? noun : `${noun} ${cmd.name()}`;
        expect(cmd.description(), name).not.toBe("");
        expect(help, name).toContain("\nExamples:\n  $ till ");
        if (cmd !== group) expect(help, name).toContain(`  $ till ${name}`);
      }
    }
  });
});
