// Polar's invoice errors through both SDKs: 404 for another organization's order or an unknown one, 422
// MissingInvoiceBillingDetails for an order without a billing address (then made once the details are added),
// 409 OrderNotEligibleForInvoice for an unpaid order. The invoices themselves: invoices.test.ts.
import { describe, expect, it } from "vitest";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { invoicesFixture } from "./invoices-fixtures.js";

const fx = invoicesFixture();

describe("errors", () => {
  it("404 for another organization's order and an unknown one, through both SDKs", async () => {
    const mine = await fx.buy(fx.fixed, { customerBillingAddress: { country: "US", state: "NY", line1: "1 Main St", city: "New York", postalCode: "10001" } });
    await fx.invoiceReady(mine.id);
    for (const sdk of [fx.other.sdk, fx.other.sdk049]) {
      await expect(sdk.orders.invoice({ id: mine.id })).rejects.toMatchObject({ statusCode: 404 });
      await expect(sdk.orders.generateInvoice({ id: mine.id })).rejects.toMatchObject({ statusCode: 404 });
    }
    await expect(fx.other.sdk049.orders.receipt({ id: mine.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(fx.seller.sdk.orders.invoice({ id: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({ statusCode: 404 });
    expect((await fx.raw("GET", `/v1/orders/${mine.id}/invoice`, undefined, fx.other.token)).body).toMatchObject({ error: "ResourceNotFound" });
    expect((await fx.raw("GET", "/v1/orders/not-a-uuid/invoice")).status).toBe(422);
  });

  it("422 MissingInvoiceBillingDetails for an order without a billing address; nothing is made", async () => {
    const free = await createProduct(fx.seller, "free");
    const checkout = await fx.seller.sdk.checkouts.create({ products: [free.id] });
    await pay(fx.server, checkout, { customerEmail: uniqueBuyer("invoice"), customerBillingAddress: null }, null);
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!o) throw new Error("no order");
    expect(o.billingAddress).toBeNull();
    for (const sdk of [fx.seller.sdk, fx.seller.sdk049]) {
      const err = await sdk.orders.generateInvoice({ id: o.id }).then(() => null, (e: unknown) => e);
      expect(err).toMatchObject({ statusCode: 422 });
    }
    const res = await fx.raw("POST", `/v1/orders/${o.id}/invoice`);
    expect(res).toMatchObject({ status: 422, body: { error: "MissingInvoiceBillingDetails" } });
    // not made automatically either, and no receipt can be made
    fx.server.worker.wake();
    expect((await fx.raw("GET", `/v1/orders/${o.id}/invoice`)).status).toBe(404);
    await expect(fx.seller.sdk049.orders.receipt({ id: o.id })).rejects.toMatchObject({ statusCode: 404 });

    // once the seller adds the billing details, the receipt is asked for (202, no body) and then served
    await fx.seller.sdk.orders.update({ id: o.id, orderUpdate: { billingName: "Late Details", billingAddress: { country: "NL", line1: "Damrak 1", city: "Amsterdam", postalCode: "1012 LG" } } });
    expect(await fx.seller.sdk049.orders.receipt({ id: o.id })).toBeUndefined();
    const receipt = await fx.until("the receipt", () => fx.seller.sdk049.orders.receipt({ id: o.id }));
    const text = await fx.pdfText(receipt.url);
    expect(text).toContain("Bill to Late Details Damrak 1 1012 LG Amsterdam Netherlands");
    expect(text).toContain("Total $0.00");
  });

  it("409 OrderNotEligibleForInvoice for an order that is not paid (a declined renewal)", async () => {
    const trial = await createProduct(fx.seller, "trial");
    const checkout = await fx.seller.sdk.checkouts.create({ products: [trial.id] });
    await pay(fx.server, checkout, { customerEmail: uniqueBuyer("invoice") }, "4000 0000 0000 0341");
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: trial.id })).result.items;
    if (!sub) throw new Error("no subscription");
    const renewed = await fx.raw("POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    expect(renewed.body.status).toBe("past_due");
    const pending = (await fx.seller.sdk.orders.list({ subscriptionId: sub.id })).result.items.find((o) => o.status === "pending");
    if (!pending) throw new Error("no pending order");
    for (const sdk of [fx.seller.sdk, fx.seller.sdk049]) await expect(sdk.orders.generateInvoice({ id: pending.id })).rejects.toMatchObject({ statusCode: 409 });
    expect(await fx.raw("POST", `/v1/orders/${pending.id}/invoice`)).toMatchObject({ status: 409, body: { error: "OrderNotEligibleForInvoice" } });
  });
});
