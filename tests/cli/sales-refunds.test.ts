// `till refunds`, end to end: the CLI as a child process against the real server with an organization API key,
// the ask-first refund under `script` for a real terminal, and a taxed sale's refund (what goes back to the card).
import { describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller } from "../helpers/seller.js";
import { tempConfigDir, till, type TillOptions } from "./till.js";
import { salesFixture } from "./sales-fixtures.js";
import { json, ok } from "./seller-cli-fixtures.js";

const fx = salesFixture();

describe("till refunds", () => {
  it("create: refused without --yes when nobody can answer; --yes refunds; list shows it as money", async () => {
    const { orderId } = await fx.buy(fx.oneTime);
    const refused = await fx.run(["refunds", "create", "--order", orderId, "--amount", "1000", "--reason", "customer_request"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      `error: refund needs confirmation: order ${orderId} would be refunded 1000 (minor units, plus its tax), and nobody to ask\n` +
        `hint: check the order with \`till orders get ${orderId}\`, then run \`till refunds create --order ${orderId} --amount 1000 --reason customer_request --yes\`\n`,
    );
    expect((await fx.seller.sdk.refunds.list({ orderId })).result.items).toEqual([]);

    const refund = json<{ id: string; amount: number; currency: string; reason: string; order_id: string; status: string }>(
      await fx.run(["refunds", "create", "--order", orderId, "--amount", "1000", "--reason", "customer_request", "--comment", "late delivery", "--yes", "--json"]),
    );
    expect(refund).toMatchObject({ amount: 1000, currency: "usd", reason: "customer_request", order_id: orderId, status: "succeeded" });
    expect(await fx.seller.sdk.orders.get({ id: orderId })).toMatchObject({ refundedAmount: 1000, status: "partially_refunded" });

    const plain = ok(await fx.run(["refunds", "create", "--order", orderId, "--amount", "500", "--reason", "other", "--yes"]));
    expect(plain.stdout).toMatch(new RegExp(`^Refunded \\$5\\.00 of order ${orderId} \\(succeeded\\): refund [0-9a-f-]{36}\\.\\n$`));

    const [listed, table] = await Promise.all([fx.run(["refunds", "list", "--order", orderId, "--json"]), fx.run(["refunds", "list", "--order", orderId])]);
    expect(json<{ id: string; amount: number }[]>(listed).map((r) => r.amount).sort()).toEqual([1000, 500].sort());
    expect(ok(table).stdout).toContain(`${refund.id}\t${orderId}\t$10.00\tcustomer_request\tsucceeded\t`);
    expect(ok(await fx.run(["orders", "get", orderId])).stdout).toContain("Total: $25.00\nRefunded: $15.00\nRefundable: $10.00\n");
    // without --reason: customer_request, the reason Polar's dashboard preselects
    const unreasoned = json<{ reason: string }>(await fx.run(["refunds", "create", "--order", orderId, "--amount", "100", "--yes", "--json"]));
    expect(unreasoned.reason).toBe("customer_request");
  });

  it("bad input exits 2 before anything is sent; too much is the server's error, exit 1, nothing refunded", async () => {
    const { orderId } = await fx.buy(fx.oneTime);
    const base = ["refunds", "create", "--order", orderId, "--reason", "customer_request", "--yes"];
    const results = await Promise.all([
      fx.run([...base, "--amount", "10.50"]),
      fx.run([...base, "--amount", "0"]),
      fx.run(["refunds", "create", "--order", orderId, "--amount", "100", "--reason", "changed_mind", "--yes"]),
      fx.run(["refunds", "create", "--amount", "100", "--reason", "other", "--yes"]),
    ]);
    expect(results.map((r) => r.stderr)).toEqual([
      "error: option '--amount <amount>' argument '10.50' is invalid. expected a whole amount in the currency's smallest unit (cents for usd: 1999 for 19.99), not a decimal.\n",
      "error: option '--amount <amount>' argument '0' is invalid. expected an amount of at least 1, in the currency's smallest unit (1000 for 10.00 usd).\n",
      "error: option '--reason <reason>' argument 'changed_mind' is invalid. expected one of duplicate, fraudulent, customer_request, service_disruption, satisfaction_guarantee, other.\n",
      "error: required option '--order <id>' not specified\n",
    ]);
    expect(results.every((r) => r.exitCode === 2)).toBe(true);
    const tooMuch = await fx.run([...base, "--amount", "2501", "--json"]);
    expect(tooMuch.exitCode).toBe(1);
    expect(JSON.parse(tooMuch.stderr)).toEqual({
      error: { message: "Refund amount exceeds remaining order balance: $25.00", code: "RefundAmountTooHigh", hint: null },
    });
    expect((await fx.seller.sdk.refunds.list({ orderId })).result.items).toEqual([]);
  });

  it("on a terminal it asks: no cancels (exit 2 without an error line, nothing refunded), yes refunds", async () => {
    const { orderId } = await fx.buy(fx.oneTime);
    const order = await fx.seller.sdk.orders.get({ id: orderId });
    const onTty = (answer: string) => fx.onTerminal(`refunds create --order ${orderId} --amount 700 --reason duplicate`, answer);
    const no = await onTty("n");
    expect(no.exitCode).toBe(2);
    expect(String(no.stdout)).toContain(`Refund $7.00 of ${order.invoiceNumber} (${fx.oneTime.name}, $25.00; $25.00 refundable) to ${order.customer.email}? [y/N]`);
    expect(String(no.stdout)).toContain("Cancelled: nothing was changed.");
    expect(String(no.stdout)).not.toContain("error:");
    expect((await fx.seller.sdk.refunds.list({ orderId })).result.items).toEqual([]);

    const yes = await onTty("y");
    expect(yes.exitCode, String(yes.stdout)).toBe(0);
    expect(String(yes.stdout)).toMatch(/Refunded \$7\.00 of order /);
    expect((await fx.seller.sdk.refunds.list({ orderId })).result.items.map((r) => r.amount)).toEqual([700]);
  });
});

describe("till refunds, taxed", () => {
  it("the prompt, the answer, orders list and get say what goes back to the card, tax included", async () => {
    // a German seller's sale to a German consumer: 19% VAT on $25.00, $29.75 paid
    const taxed = await createSeller(fx.server, "cli-sales-tax");
    const org = await rawRequest(fx.server.url, taxed.token, "PATCH", `/v1/organizations/${taxed.organizationId}`, {
      country: "DE",
      tax_settings: { registrations: [{ country: "DE" }], prices_include_tax: false },
    });
    expect(org.status).toBe(200);
    const as: TillOptions = { configDir: tempConfigDir(), env: { TILL_API_KEY: await taxed.createKey(), TILL_SERVER: fx.server.url } };
    const product = await createProduct(taxed, "fixed");
    const checkout = await taxed.sdk.checkouts.create({ products: [product.id] });
    await pay(fx.server, checkout, { customerBillingAddress: { country: "DE" } });
    const [order] = (await taxed.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order) throw new Error("no order");
    expect(order).toMatchObject({ netAmount: 2500, taxAmount: 475, totalAmount: 2975 });

    const onTty = (answer: string) => fx.onTerminal(`refunds create --order ${order.id} --amount 500 --reason other`, answer, as);
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
