// `till checkouts|orders|subscriptions|refunds`, end to end: the CLI as a child process against the real server
// with an organization API key; checkouts it opens are paid the way the hosted page does it (the test card,
// tests/helpers/checkout.ts), and what it changed is read back through the Polar SDK. The ask-first commands
// (revoke, refund) run once under `script` for a real terminal.
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../cli/main.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { BIN, parseJson, tempConfigDir, till, TRACE_HOOK, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let oneTime: Product;
let monthly: Product;
let yearly: Product;
let seats: Product;

const run = (args: string[], extra: Partial<TillOptions> = {}): Promise<TillResult> => till(args, { ...cli, ...extra });
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};
const json = <T>(r: TillResult): T => parseJson<T>(ok(r).stdout);
const UUID = "0b5c1d2e-0000-4000-8000-000000000000";

interface Bought {
  checkoutId: string;
  orderId: string;
  customerId: string;
  subscriptionId: string | null;
}

/** `till <args>` under `script`, which gives it a terminal for stdin and stderr; `answer` is typed into it. */
function onTerminal(args: string, answer: string, as: TillOptions = cli) {
  return execa("script", ["-qec", `node ${BIN} ${args} --no-color`, "/dev/null"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir(), TILL_CONFIG_DIR: as.configDir, ...as.env },
    extendEnv: false,
    reject: false,
    input: `${answer}\n`,
    timeout: 60_000,
  });
}

/** A checkout opened through the SDK and paid with the test card; the order it made. */
async function buy(product: Product, extra: Record<string, unknown> = {}): Promise<Bought> {
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], ...extra });
  await pay(server, checkout);
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  return { checkoutId: checkout.id, orderId: order.id, customerId: order.customerId, subscriptionId: order.subscriptionId };
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-sales");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
  [oneTime, monthly, yearly, seats] = await Promise.all([
    createProduct(seller, "fixed"),
    createProduct(seller, "monthly"),
    seller.sdk.products.create({ name: "Yearly", recurringInterval: "year", prices: [{ amountType: "fixed", priceAmount: 9000, priceCurrency: "usd" }] }),
    createProduct(seller, "seats"),
  ]);
});
afterAll(async () => server?.close());

describe("till checkouts", () => {
  it("create prints the hosted link alone; the checkout carries the flags and can be paid", async () => {
    const r = ok(
      await run([
        "checkouts", "create", "--product", oneTime.id, "--email", "ada@example.com", "--success-url", "https://example.com/thanks",
        "--metadata", "campaign=spring", "--metadata", "seats:=3",
      ]),
    );
    expect(r.stdout).toMatch(new RegExp(`^${server.url}/checkout/\\S+\\n$`));
    expect(r.stderr).toMatch(/^Checkout [0-9a-f-]{36}: fixed product \d+, \$25\.00; open until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\.\n$/);
    const id = /^Checkout ([0-9a-f-]{36})/.exec(r.stderr)?.[1] ?? "";
    const checkout = await seller.sdk.checkouts.get({ id });
    expect(checkout).toMatchObject({
      url: r.stdout.trim(),
      customerEmail: "ada@example.com",
      successUrl: "https://example.com/thanks",
      metadata: { campaign: "spring", seats: 3 },
      productId: oneTime.id,
    });
    // the link is what the customer pays through
    await pay(server, checkout, { customerEmail: "ada@example.com" });
    expect((await seller.sdk.checkouts.get({ id })).status).toBe("succeeded");

    const [get, got] = await Promise.all([run(["checkouts", "get", id]), run(["checkouts", "get", id, "--json"])]);
    expect(ok(get).stdout).toContain(`ID: ${id}\nStatus: succeeded\nURL: ${checkout.url}\nProduct: ${oneTime.name} (${oneTime.id})\n`);
    expect(get.stdout).toContain("Total: $25.00\n");
    expect(get.stdout).toContain("Customer: ada@example.com\n");
    expect(json<{ id: string; status: string; url: string }>(got)).toMatchObject({ id, status: "succeeded", url: checkout.url });
  });

  it("create --price selects a price of any of the products; --json prints the checkout", async () => {
    const yearlyPrice = yearly.prices[0]?.id ?? "";
    const c = json<{ id: string; product_id: string; product_price_id: string; products: { id: string }[]; total_amount: number }>(
      await run(["checkouts", "create", "--product", monthly.id, "--product", yearly.id, "--price", yearlyPrice, "--json"]),
    );
    expect(c).toMatchObject({ product_id: yearly.id, product_price_id: yearlyPrice, total_amount: 9000 });
    expect(c.products.map((p) => p.id).sort()).toEqual([monthly.id, yearly.id].sort());

    // a metered price is never the checkout's price (the checkout charges the static one): refused, exit 2
    const meter = await seller.sdk.meters.create({ name: "Calls", filter: { conjunction: "and", clauses: [] }, aggregation: { func: "count" } });
    const api = await seller.sdk.products.create({
      name: "API",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "0.5", priceCurrency: "usd" },
      ],
    });
    const metered = api.prices.find((p) => p.amountType === "metered_unit")?.id ?? "";
    const m = await run(["checkouts", "create", "--product", api.id, "--price", metered]);
    expect(m.exitCode).toBe(2);
    expect(m.stderr).toContain("A metered price cannot be the checkout's price");
  });

  it("list filters by status and product; tables show money", async () => {
    const open = json<{ id: string }>(await run(["checkouts", "create", "--product", monthly.id, "--external-customer-id", "user_77", "--json"])).id;
    const [byStatus, byProduct, plain] = await Promise.all([
      run(["checkouts", "list", "--status", "open", "--all", "--json"]),
      run(["checkouts", "list", "--product", monthly.id, "--status", "open", "--json"]),
      run(["checkouts", "list", "--product", monthly.id, "--status", "open"]),
    ]);
    const statuses = json<{ id: string; status: string }[]>(byStatus);
    expect(statuses.map((c) => c.id)).toContain(open);
    expect(statuses.every((c) => c.status === "open")).toBe(true);
    expect(json<{ id: string }[]>(byProduct).map((c) => c.id)).toContain(open);
    expect(ok(plain).stdout).toMatch(new RegExp(`^${open}\topen\t${monthly.name}\t\\$9\\.00\t\t\\d{4}-\\d{2}-\\d{2}$`, "m"));
  });

  it("bad input: one line, exit 2, nothing sent; the server's refusal: exit 1", async () => {
    const before = (await seller.sdk.checkouts.list({ limit: 100 })).result.pagination.totalCount;
    const results = await Promise.all([
      run(["checkouts", "create"]),
      run(["checkouts", "create", "--product", "pro"]),
      run(["checkouts", "create", "--product", oneTime.id, "--success-url", "ftp://example.com"]),
      run(["checkouts", "create", "--product", oneTime.id, "--email", "not-an-email"]),
      run(["checkouts", "create", "--product", oneTime.id, "--price", monthly.prices[0]?.id ?? ""]),
      run(["checkouts", "create", "--product", oneTime.id, "--product", oneTime.id]),
      run(["checkouts", "list", "--status", "paid"]),
    ]);
    expect(results.map((r) => r.stderr)).toEqual([
      "error: required option '--product <id>' not specified\n",
      "error: option '--product <id>' argument 'pro' is invalid. expected an id (a UUID such as 0b5c1d2e-…), see the list command.\n",
      "error: option '--success-url <url>' argument 'ftp://example.com' is invalid. expected an absolute http(s) URL such as https://example.com/thanks.\n",
      "error: option '--email <email>' argument 'not-an-email' is invalid. expected an email address such as ada@example.com.\n",
      `error: --price: ${monthly.prices[0]?.id} is not a price of product ${oneTime.id}\n`,
      `error: --product: ${oneTime.id} is given twice\n`,
      "error: option '--status <status>' argument 'paid' is invalid. expected one of open, expired, confirmed, succeeded, failed.\n",
    ]);
    expect(results.map((r) => r.exitCode)).toEqual([2, 2, 2, 2, 2, 2, 2]);
    const unknown = await run(["checkouts", "create", "--product", UUID, "--json"]);
    expect(unknown.exitCode).toBe(2);
    expect(JSON.parse(unknown.stderr)).toEqual({
      error: { message: "--product: Product does not exist.", code: "RequestValidationError", hint: null },
    });
    expect((await seller.sdk.checkouts.list({ limit: 100 })).result.pagination.totalCount).toBe(before);
  });
});

describe("till orders", () => {
  let bought: Bought;
  beforeAll(async () => {
    bought = await buy(oneTime);
  });

  it("list by customer, product and billing type; get shows the amounts", async () => {
    const [byCustomer, byProduct, recurring, plain, get] = await Promise.all([
      run(["orders", "list", "--customer", bought.customerId, "--json"]),
      run(["orders", "list", "--product", oneTime.id, "--billing-type", "one_time", "--all", "--json"]),
      run(["orders", "list", "--billing-type", "recurring", "--all", "--json"]),
      run(["orders", "list", "--checkout", bought.checkoutId]),
      run(["orders", "get", bought.orderId]),
    ]);
    expect(json<{ id: string }[]>(byCustomer).map((o) => o.id)).toEqual([bought.orderId]);
    expect(json<{ id: string }[]>(byProduct).map((o) => o.id)).toContain(bought.orderId);
    expect(json<{ id: string }[]>(recurring).map((o) => o.id)).not.toContain(bought.orderId);
    const order = await seller.sdk.orders.get({ id: bought.orderId });
    expect(ok(plain).stdout).toBe(`${order.id}\t${order.invoiceNumber}\t${order.customer.email}\t${oneTime.name}\t$25.00\tpaid\t${order.createdAt.toISOString().slice(0, 10)}\n`);
    expect(ok(get).stdout).toContain(`ID: ${order.id}\nInvoice: ${order.invoiceNumber}\nStatus: paid\nCustomer: ${order.customer.email} (${order.customerId})\n`);
    expect(get.stdout).toContain("Subtotal: $25.00\n");
    expect(get.stdout).toContain("Total: $25.00\nRefunded: $0.00\nRefundable: $25.00\n");
    expect(get.stdout).toContain("Billing address: FR\n");
  });

  it("update sets the billing name and address lines, keeping the country", async () => {
    const r = ok(await run(["orders", "update", bought.orderId, "--billing-name", "Acme Inc", "--line1", "1 rue de la Paix", "--postal-code", "75002", "--city", "Paris"]));
    expect(r.stdout).toMatch(/^Updated order \S+ \([0-9a-f-]{36}\): billed to Acme Inc, 1 rue de la Paix, 75002 Paris, FR\.\n$/);
    expect(await seller.sdk.orders.get({ id: bought.orderId })).toMatchObject({
      billingName: "Acme Inc",
      billingAddress: { line1: "1 rue de la Paix", postalCode: "75002", city: "Paris", country: "FR" },
    });
    const again = json<{ billing_name: string; billing_address: { city: string; line1: string } }>(await run(["orders", "update", bought.orderId, "--city", "Lyon", "--json"]));
    expect(again).toMatchObject({ billing_name: "Acme Inc", billing_address: { city: "Lyon", line1: "1 rue de la Paix" } });
  });

  it("bad input: nothing to update and malformed flags exit 2; a country change is the server's 422, exit 1, nothing changed", async () => {
    const [nothing, country, id, type] = await Promise.all([
      run(["orders", "update", bought.orderId]),
      run(["orders", "update", bought.orderId, "--country", "France"]),
      run(["orders", "get", "INV-1"]),
      run(["orders", "list", "--billing-type", "monthly"]),
    ]);
    expect([nothing, country, id, type].map((r) => r.exitCode)).toEqual([2, 2, 2, 2]);
    expect(nothing.stderr).toBe("error: nothing to update: pass --billing-name or an address flag (--line1, --line2, --postal-code, --city, --state, --country)\n");
    expect(country.stderr).toBe("error: option '--country <code>' argument 'France' is invalid. expected a two-letter country code such as FR or US.\n");
    expect(id.stderr).toBe("error: command-argument value 'INV-1' is invalid for argument 'id'. expected an id (a UUID such as 0b5c1d2e-…), see the list command.\n");
    expect(type.stderr).toBe("error: option '--billing-type <type>' argument 'monthly' is invalid. expected one of one_time, recurring.\n");

    const moved = await run(["orders", "update", bought.orderId, "--country", "DE", "--billing-name", "Other"]);
    expect(moved.exitCode).toBe(2);
    expect(moved.stderr).toBe(`error: --country: Country and state fields cannot be updated.\n`);
    expect(await seller.sdk.orders.get({ id: bought.orderId })).toMatchObject({ billingName: "Acme Inc", billingAddress: { country: "FR" } });
    const missing = await run(["orders", "get", UUID]);
    expect([missing.exitCode, missing.stderr]).toEqual([1, `error: Order not found\n`]);
  });
});

describe("till subscriptions", () => {
  it("list and get; cancel with a reason, uncancel", async () => {
    const { subscriptionId, customerId } = await buy(monthly);
    const id = subscriptionId ?? "";
    const [listed, active, plain, get] = await Promise.all([
      run(["subscriptions", "list", "--customer", customerId, "--json"]),
      run(["subscriptions", "list", "--active", "--product", monthly.id, "--all", "--json"]),
      run(["subscriptions", "list", "--customer", customerId]),
      run(["subscriptions", "get", id]),
    ]);
    expect(json<{ id: string; status: string }[]>(listed)).toMatchObject([{ id, status: "active" }]);
    expect(json<{ id: string }[]>(active).map((s) => s.id)).toContain(id);
    const sub = await seller.sdk.subscriptions.get({ id });
    const periodEnd = sub.currentPeriodEnd?.toISOString().slice(0, 10);
    expect(ok(plain).stdout).toBe(`${id}\tactive\t${sub.customer.email}\t${monthly.name}\t$9.00 every month\t${periodEnd}\n`);
    expect(ok(get).stdout).toContain(`ID: ${id}\nStatus: active\nCustomer: ${sub.customer.email} (${customerId})\nProduct: ${monthly.name} (${monthly.id})\nAmount: $9.00 every month\n`);
    expect(get.stdout).toContain(`Renews: ${periodEnd}\n`);

    const canceled = ok(await run(["subscriptions", "cancel", id, "--reason", "too_expensive", "--comment", "asked by email"]));
    expect(canceled.stdout).toBe(
      `Subscription ${id} (${sub.customer.email}, ${monthly.name}) ends on ${periodEnd}; it stays active until then. \`till subscriptions uncancel ${id}\` keeps it.\n`,
    );
    expect(await seller.sdk.subscriptions.get({ id })).toMatchObject({
      status: "active",
      cancelAtPeriodEnd: true,
      customerCancellationReason: "too_expensive",
      customerCancellationComment: "asked by email",
    });
    expect(json<{ id: string }[]>(await run(["subscriptions", "list", "--canceling", "--all", "--json"])).map((s) => s.id)).toContain(id);
    expect(ok(await run(["subscriptions", "get", id])).stdout).toContain(`Status: active, ends ${periodEnd}\n`);

    const kept = json<{ cancel_at_period_end: boolean }>(await run(["subscriptions", "uncancel", id, "--json"]));
    expect(kept.cancel_at_period_end).toBe(false);
    expect((await seller.sdk.subscriptions.get({ id })).cancelAtPeriodEnd).toBe(false);
  });

  it("update: product with proration, discount and none, seats", async () => {
    const id = (await buy(monthly)).subscriptionId ?? "";
    const discount = await seller.sdk.discounts.create({ name: "Half", type: "percentage", basisPoints: 5000, duration: "forever" });
    const moved = ok(await run(["subscriptions", "update", id, "--product", yearly.id, "--proration", "invoice"]));
    expect(moved.stdout).toMatch(new RegExp(`^Updated subscription ${id} \\(\\S+\\): product Yearly; \\$90\\.00 every year\\.\\n$`));
    expect(await seller.sdk.subscriptions.get({ id })).toMatchObject({ productId: yearly.id, amount: 9000, recurringInterval: "year" });

    const withDiscount = json<{ discount_id: string }>(await run(["subscriptions", "update", id, "--discount", discount.id, "--json"]));
    expect(withDiscount.discount_id).toBe(discount.id);
    ok(await run(["subscriptions", "update", id, "--discount", "none"]));
    expect((await seller.sdk.subscriptions.get({ id })).discountId).toBeNull();

    const seated = (await buy(seats, { seats: 2 })).subscriptionId ?? "";
    const r = ok(await run(["subscriptions", "update", seated, "--seats", "5"]));
    expect(r.stdout).toMatch(/: 5 seats; \$40\.00 every month\.\n$/);
    expect(await seller.sdk.subscriptions.get({ id: seated })).toMatchObject({ seats: 5, amount: 4000 });
  });

  it("bad input exits 2 before anything is sent; the server's refusal exits 1 and changes nothing", async () => {
    const id = (await buy(monthly)).subscriptionId ?? "";
    const results = await Promise.all([
      run(["subscriptions", "update", id]),
      run(["subscriptions", "update", id, "--product", yearly.id, "--seats", "3"]),
      run(["subscriptions", "update", id, "--proration", "invoice", "--discount", "none"]),
      run(["subscriptions", "update", id, "--proration", "sometimes", "--product", yearly.id]),
      run(["subscriptions", "update", id, "--seats", "0"]),
      run(["subscriptions", "cancel", id, "--reason", "bored"]),
      run(["subscriptions", "list", "--status", "paused"]),
    ]);
    expect(results.map((r) => r.stderr)).toEqual([
      "error: nothing to update: pass --product, --discount, --trial-end, --seats or --billing-period-end\n",
      "error: --product and --seats: one kind of change per update (the API applies one at a time); run update once for each\n",
      "error: --proration: only with --product or --seats\n",
      "error: option '--proration <behavior>' argument 'sometimes' is invalid. expected one of invoice, prorate, next_period, reset.\n",
      "error: option '--seats <n>' argument '0' is invalid. expected a whole number of at least 1.\n",
      "error: option '--reason <reason>' argument 'bored' is invalid. expected one of customer_service, low_quality, missing_features, switched_service, too_complex, too_expensive, unused, other.\n",
      "error: option '--status <status>' argument 'paused' is invalid. expected one of incomplete, incomplete_expired, trialing, active, past_due, canceled, unpaid.\n",
    ]);
    expect(results.every((r) => r.exitCode === 2)).toBe(true);
    const notSeats = await run(["subscriptions", "update", id, "--seats", "3"]);
    expect([notSeats.exitCode, notSeats.stderr]).toEqual([2, `error: --seats: This subscription is not seat-based.\n`]);
    expect(await seller.sdk.subscriptions.get({ id })).toMatchObject({ status: "active", productId: monthly.id, cancelAtPeriodEnd: false });
  });

  it("revoke: refused without --yes when nobody can answer (exit 2, nothing changed); --yes revokes, with a reason too", async () => {
    const [a, b] = await Promise.all([buy(monthly), buy(monthly)]);
    const first = a.subscriptionId ?? "";
    const second = b.subscriptionId ?? "";
    const [refused, refusedJson] = await Promise.all([run(["subscriptions", "revoke", first]), run(["subscriptions", "revoke", first, "--json", "--reason", "unused"])]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      `error: revoke needs confirmation: subscription ${first} would end now, its benefits revoked, and nobody to ask\n` +
        `hint: check it with \`till subscriptions get ${first}\`, then run \`till subscriptions revoke ${first} --yes\`\n`,
    );
    expect(refusedJson.exitCode).toBe(2);
    expect(JSON.parse(refusedJson.stderr)).toMatchObject({ error: { code: "usage" } });
    expect(await seller.sdk.subscriptions.get({ id: first })).toMatchObject({ status: "active", endedAt: null });

    const revoked = ok(await run(["subscriptions", "revoke", first, "--yes"]));
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked subscription ${first} \\(\\S+, ${monthly.name}\\): ended now, benefits revoked\\.\\n$`));
    expect((await seller.sdk.subscriptions.get({ id: first })).status).toBe("canceled");
    const withReason = json<{ status: string; customer_cancellation_reason: string }>(
      await run(["subscriptions", "revoke", second, "--reason", "unused", "--comment", "moved on", "-y", "--json"]),
    );
    expect(withReason).toMatchObject({ status: "canceled", customer_cancellation_reason: "unused" });
    const third = (await buy(monthly)).subscriptionId ?? "";
    const declined = await onTerminal(`subscriptions revoke ${third}`, "no");
    expect(declined.exitCode).toBe(2);
    expect(String(declined.stdout)).toContain(`Revoke ${monthly.name} ($9.00 every month) of `);
    expect(String(declined.stdout)).toContain("Cancelled: nothing was changed.");
    expect(String(declined.stdout)).not.toContain("error:");
    expect(await seller.sdk.subscriptions.get({ id: third })).toMatchObject({ status: "active", endedAt: null });

    const again = await run(["subscriptions", "revoke", second, "--yes"]);
    expect([again.exitCode, again.stderr]).toEqual([
      1,
      `error: This subscription is already canceled or will be at the end of the period.\n`,
    ]);
  });
});

describe("till refunds", () => {
  it("create: refused without --yes when nobody can answer; --yes refunds; list shows it as money", async () => {
    const { orderId } = await buy(oneTime);
    const refused = await run(["refunds", "create", "--order", orderId, "--amount", "1000", "--reason", "customer_request"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      `error: refund needs confirmation: order ${orderId} would be refunded 1000 (minor units, plus its tax), and nobody to ask\n` +
        `hint: check the order with \`till orders get ${orderId}\`, then run \`till refunds create --order ${orderId} --amount 1000 --reason customer_request --yes\`\n`,
    );
    expect((await seller.sdk.refunds.list({ orderId })).result.items).toEqual([]);

    const refund = json<{ id: string; amount: number; currency: string; reason: string; order_id: string; status: string }>(
      await run(["refunds", "create", "--order", orderId, "--amount", "1000", "--reason", "customer_request", "--comment", "late delivery", "--yes", "--json"]),
    );
    expect(refund).toMatchObject({ amount: 1000, currency: "usd", reason: "customer_request", order_id: orderId, status: "succeeded" });
    expect(await seller.sdk.orders.get({ id: orderId })).toMatchObject({ refundedAmount: 1000, status: "partially_refunded" });

    const plain = ok(await run(["refunds", "create", "--order", orderId, "--amount", "500", "--reason", "other", "--yes"]));
    expect(plain.stdout).toMatch(new RegExp(`^Refunded \\$5\\.00 of order ${orderId} \\(succeeded\\): refund [0-9a-f-]{36}\\.\\n$`));

    const [listed, table] = await Promise.all([run(["refunds", "list", "--order", orderId, "--json"]), run(["refunds", "list", "--order", orderId])]);
    expect(json<{ id: string; amount: number }[]>(listed).map((r) => r.amount).sort()).toEqual([1000, 500].sort());
    expect(ok(table).stdout).toContain(`${refund.id}\t${orderId}\t$10.00\tcustomer_request\tsucceeded\t`);
    expect(ok(await run(["orders", "get", orderId])).stdout).toContain("Total: $25.00\nRefunded: $15.00\nRefundable: $10.00\n");
  });

  it("bad input exits 2 before anything is sent; too much is the server's error, exit 1, nothing refunded", async () => {
    const { orderId } = await buy(oneTime);
    const base = ["refunds", "create", "--order", orderId, "--reason", "customer_request", "--yes"];
    const results = await Promise.all([
      run([...base, "--amount", "10.50"]),
      run([...base, "--amount", "0"]),
      run(["refunds", "create", "--order", orderId, "--amount", "100", "--reason", "changed_mind", "--yes"]),
      run(["refunds", "create", "--amount", "100", "--reason", "other", "--yes"]),
    ]);
    expect(results.map((r) => r.stderr)).toEqual([
      "error: option '--amount <amount>' argument '10.50' is invalid. expected a whole amount in the currency's smallest unit (cents for usd: 1999 for 19.99), not a decimal.\n",
      "error: option '--amount <amount>' argument '0' is invalid. expected an amount of at least 1, in the currency's smallest unit (1000 for 10.00 usd).\n",
      "error: option '--reason <reason>' argument 'changed_mind' is invalid. expected one of duplicate, fraudulent, customer_request, service_disruption, satisfaction_guarantee, other.\n",
      "error: required option '--order <id>' not specified\n",
    ]);
    expect(results.every((r) => r.exitCode === 2)).toBe(true);
    const tooMuch = await run([...base, "--amount", "2501", "--json"]);
    expect(tooMuch.exitCode).toBe(1);
    expect(JSON.parse(tooMuch.stderr)).toEqual({
      error: { message: "Refund amount exceeds remaining order balance: 2500", code: "RefundAmountTooHigh", hint: null },
    });
    expect((await seller.sdk.refunds.list({ orderId })).result.items).toEqual([]);
  });

  it("on a terminal it asks: no cancels (exit 2 without an error line, nothing refunded), yes refunds", async () => {
    const { orderId } = await buy(oneTime);
    const order = await seller.sdk.orders.get({ id: orderId });
    const onTty = (answer: string) => onTerminal(`refunds create --order ${orderId} --amount 700 --reason duplicate`, answer);
    const no = await onTty("n");
    expect(no.exitCode).toBe(2);
    expect(String(no.stdout)).toContain(`Refund $7.00 of ${order.invoiceNumber} (${oneTime.name}, $25.00; $25.00 refundable) to ${order.customer.email}? [y/N]`);
    expect(String(no.stdout)).toContain("Cancelled: nothing was changed.");
    expect(String(no.stdout)).not.toContain("error:");
    expect((await seller.sdk.refunds.list({ orderId })).result.items).toEqual([]);

    const yes = await onTty("y");
    expect(yes.exitCode, String(yes.stdout)).toBe(0);
    expect(String(yes.stdout)).toMatch(/Refunded \$7\.00 of order /);
    expect((await seller.sdk.refunds.list({ orderId })).result.items.map((r) => r.amount)).toEqual([700]);
  });
});

describe("till refunds, taxed", () => {
  it("the prompt, the answer, orders list and get say what goes back to the card, tax included", async () => {
    // a German seller's sale to a German consumer: 19% VAT on $25.00, $29.75 paid
    const taxed = await createSeller(server, "cli-sales-tax");
    const org = await rawRequest(server.url, taxed.token, "PATCH", `/v1/organizations/${taxed.organizationId}`, {
      country: "DE",
      tax_settings: { registrations: [{ country: "DE" }], prices_include_tax: false },
    });
    expect(org.status).toBe(200);
    const as: TillOptions = { configDir: tempConfigDir(), env: { TILL_API_KEY: await taxed.createKey(), TILL_SERVER: server.url } };
    const product = await createProduct(taxed, "fixed");
    const checkout = await taxed.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerBillingAddress: { country: "DE" } });
    const [order] = (await taxed.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order) throw new Error("no order");
    expect(order).toMatchObject({ netAmount: 2500, taxAmount: 475, totalAmount: 2975 });

    const onTty = (answer: string) => onTerminal(`refunds create --order ${order.id} --amount 500 --reason other`, answer, as);
    const no = await onTty("n");
    expect(String(no.stdout)).toContain(`Refund $5.95 ($5.00 + $0.95 tax) of ${order.invoiceNumber} (${product.name}, $29.75; $29.75 refundable) to ${order.customer.email}? [y/N]`);
    const yes = await onTty("y");
    expect(yes.exitCode, String(yes.stdout)).toBe(0);
    expect(String(yes.stdout)).toContain(`Refunded $5.95 ($5.00 + $0.95 tax) of order ${order.id} (succeeded)`);
    const [refund] = (await taxed.sdk.refunds.list({ orderId: order.id })).result.items;
    expect(refund).toMatchObject({ amount: 500, taxAmount: 95 });

    const second = await till(["refunds", "create", "--order", order.id, "--amount", "1000", "--reason", "other", "--yes"], as);
    expect(second.stdout).toMatch(new RegExp(`^Refunded \\$11\\.90 \\(\\$10\\.00 \\+ \\$1\\.90 tax\\) of order ${order.id} \\(succeeded\\)`));
    expect(await taxed.sdk.orders.get({ id: order.id })).toMatchObject({ refundedAmount: 1500, refundedTaxAmount: 285 });

    const [list, get, refunds] = await Promise.all([
      till(["orders", "list"], as),
      till(["orders", "get", order.id], as),
      till(["refunds", "list", "--order", order.id], as),
    ]);
    expect(ok(list).stdout).toContain(`\t$29.75 ($17.85 refunded)\tpartially_refunded\t`);
    expect(ok(get).stdout).toContain("Total: $29.75\nRefunded: $17.85 ($15.00 + $2.85 tax)\nRefundable: $11.90 ($10.00 + $1.90 tax)\n");
    expect(ok(refunds).stdout).toContain("\t$11.90\tother\tsucceeded\t");
    expect(refunds.stdout).toContain("\t$5.95\tother\tsucceeded\t");
  });
});

describe("output", () => {
  it("--json never loads Ink or React", async () => {
    const { orderId, subscriptionId } = await buy(monthly);
    const trace = async (name: string, args: string[]) => {
      const file = path.join(os.tmpdir(), `till-cli-sales-${process.pid}-${name}.txt`);
      writeFileSync(file, "");
      ok(await run(args, { nodeArgs: ["--import", TRACE_HOOK], env: { ...cli.env, TILL_TRACE_FILE: file } }));
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
