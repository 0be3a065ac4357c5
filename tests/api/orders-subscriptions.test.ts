// /v1/orders and /v1/subscriptions through @polar-sh/sdk 0.47.1 (list/get again through 0.49.0): what
// confirmed checkouts create — bodies complete for both SDK versions, invoice numbers per organization
// (unique under concurrency), list filters, sorting and pagination, the order's billing details update,
// the customer's state, validation, scopes and tenancy.
import { eq } from "drizzle-orm";
import type { Order } from "@polar-sh/sdk/models/components/order.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { order } from "../../server/db/schema/index.js";
import { invoicePrefix } from "../../server/billing/invoice-numbers/service.js";
import { issues, locs, rawRequest } from "../helpers/api.js";
import { createProduct, pay, publicRequest, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let oneTime: Product;
let monthly: Product;
let yearly: Product;
let discountId: string;
/** Orders made in beforeAll: a purchase with a discount, a subscription, a yearly subscription of the same customer. */
let purchase: Order;
let subOrder: Order;
let yearlyOrder: Order;
const externalId = `ext-${Date.now()}`;
const email = uniqueBuyer("orders");

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);

async function buy(product: Product, extra: Record<string, unknown> = {}, checkoutExtra: Record<string, unknown> = {}): Promise<Order> {
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], ...checkoutExtra });
  await pay(server, checkout, extra);
  const [o] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!o) throw new Error("no order");
  return o;
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "orders");
  other = await createSeller(server, "orders-other");
  await seller.sdk.organizations.update({
    id: seller.organizationId,
    organizationUpdate: {
      subscriptionSettings: {
        allowMultipleSubscriptions: true,
        allowCustomerUpdates: true,
        prorationBehavior: "invoice",
        benefitRevocationGracePeriod: 0,
        preventTrialAbuse: false,
      },
    },
  });
  [oneTime, monthly, yearly] = await Promise.all([
    createProduct(seller, "fixed", { metadata: { kind: "one-time" } }),
    createProduct(seller, "monthly"),
    seller.sdk.products.create({ name: "yearly plan", recurringInterval: "year", prices: [{ amountType: "fixed", priceAmount: 9900, priceCurrency: "usd" }] }),
  ]);
  discountId = (await seller.sdk.discounts.create({ type: "fixed", duration: "once", amount: 300, currency: "usd", name: "Three off" })).id;
  purchase = await buy(oneTime, { customerEmail: email, customerName: "Olga" }, { discountId, externalCustomerId: externalId, metadata: { ref: "p1" } });
  subOrder = await buy(monthly, { customerEmail: email, customerName: "Olga" }, { metadata: { ref: "s1" } });
  yearlyOrder = await buy(yearly, { customerEmail: uniqueBuyer("yearly") });
});
afterAll(async () => server?.close());

describe("orders", () => {
  it("a purchase's order is complete for both SDK versions", async () => {
    const got = await seller.sdk.orders.get({ id: purchase.id });
    // the embedded customer is the customer as it is now (the second purchase updated it)
    expect({ ...got, customer: null }).toEqual({ ...purchase, customer: null });
    expect(got).toMatchObject({
      status: "paid",
      paid: true,
      subtotalAmount: 2500,
      discountAmount: 300,
      netAmount: 2200,
      taxAmount: 0,
      totalAmount: 2200,
      appliedBalanceAmount: 0,
      dueAmount: 2200,
      refundedAmount: 0,
      refundedTaxAmount: 0,
      currency: "usd",
      billingReason: "purchase",
      billingName: "Olga",
      billingAddress: { country: "FR" },
      isInvoiceGenerated: false,
      productId: oneTime.id,
      discountId,
      subscriptionId: null,
      subscription: null,
      metadata: { ref: "p1" },
      platformFeeAmount: 0,
      description: oneTime.name,
      product: { id: oneTime.id, name: oneTime.name, metadata: { kind: "one-time" } },
      discount: { id: discountId, type: "fixed", amount: 300 },
      customer: { email, externalId, name: "Olga" },
    });
    expect(got.items).toEqual([
      expect.objectContaining({ label: oneTime.name, amount: 2500, taxAmount: 0, proration: false, productPriceId: oneTime.prices[0]?.id }),
    ]);
    const got049 = await seller.sdk049.orders.get({ id: purchase.id });
    expect(got049).toMatchObject({ id: purchase.id, refundableAmount: 2200, refundableTaxAmount: 0, receiptNumber: null, invoiceNumber: purchase.invoiceNumber });
    const wire = await raw(seller.token, "GET", `/v1/orders/${purchase.id}`);
    expect(wire.body.custom_field_data).toEqual({});
  });

  it("numbers invoices per organization, in order, unique under concurrency", async () => {
    const prefix = invoicePrefix(seller.slug);
    expect(purchase.invoiceNumber).toBe(`${prefix}-0001`);
    expect(subOrder.invoiceNumber).toBe(`${prefix}-0002`);
    expect(yearlyOrder.invoiceNumber).toBe(`${prefix}-0003`);
    const theirs = await createProduct(other, "fixed");
    const otherCheckout = await other.sdk.checkouts.create({ products: [theirs.id] });
    await pay(server, otherCheckout);
    const [otherOrder] = (await other.sdk.orders.list({})).result.items;
    expect(otherOrder?.invoiceNumber).toBe(`${invoicePrefix(other.slug)}-0001`);

    const checkouts = await Promise.all(Array.from({ length: 8 }, () => seller.sdk.checkouts.create({ products: [oneTime.id] })));
    const tokens = await Promise.all(checkouts.map((c) => tokenize(server, c.clientSecret)));
    const results = await Promise.all(
      checkouts.map((c, i) =>
        publicRequest(server, "POST", `/v1/checkouts/client/${c.clientSecret}/confirm`, {
          customer_email: uniqueBuyer("invoice"),
          customer_name: "Parallel",
          customer_billing_address: { country: "DE" },
          confirmation_token_id: tokens[i],
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const rows = await server.database.db.select({ n: order.invoiceNumber }).from(order).where(eq(order.organizationId, seller.organizationId));
    const numbers = rows.map((r) => r.n).sort();
    expect(numbers).toEqual(Array.from({ length: 11 }, (_, i) => `${prefix}-${String(i + 1).padStart(4, "0")}`));
  });

  it("lists with every filter the SDK sends", async () => {
    const ids = async (req: Parameters<typeof seller.sdk.orders.list>[0]) =>
      (await seller.sdk.orders.list({ limit: 100, ...req })).result.items.map((o) => o.id);
    expect(await ids({ productId: oneTime.id })).toContain(purchase.id);
    expect(await ids({ productId: monthly.id })).toEqual([subOrder.id]);
    expect(await ids({ customerId: purchase.customerId })).toEqual([subOrder.id, purchase.id]);
    expect(await ids({ externalCustomerId: externalId })).toEqual([subOrder.id, purchase.id]);
    expect(await ids({ discountId })).toEqual([purchase.id]);
    expect(await ids({ checkoutId: purchase.checkoutId ?? "" })).toEqual([purchase.id]);
    expect(await ids({ subscriptionId: subOrder.subscriptionId ?? "" })).toEqual([subOrder.id]);
    expect(await ids({ productBillingType: "recurring" })).toEqual([yearlyOrder.id, subOrder.id]);
    const oneTimeIds = await ids({ productBillingType: "one_time" });
    expect(oneTimeIds).toContain(purchase.id);
    expect(oneTimeIds).not.toContain(subOrder.id);
    expect(await ids({ metadata: { ref: "s1" } })).toEqual([subOrder.id]);
    expect(await ids({ organizationId: other.organizationId }).catch((e: unknown) => e)).toMatchObject({ statusCode: 404 });
    const sorted = await ids({ sorting: ["invoice_number"], productBillingType: "recurring" });
    expect(sorted).toEqual([subOrder.id, yearlyOrder.id]);
    const byAmount = (await seller.sdk.orders.list({ sorting: ["-amount"], limit: 1 })).result.items[0];
    expect(byAmount?.id).toBe(yearlyOrder.id);
    const paged = await seller.sdk.orders.list({ limit: 2, page: 2 });
    expect(paged.result.items).toHaveLength(2);
    expect(paged.result.pagination).toEqual({ totalCount: 11, maxPage: 6 });
    const all049 = await seller.sdk049.orders.list({ productId: monthly.id });
    expect(all049.result.items.map((o) => o.id)).toEqual([subOrder.id]);
  });

  it("updates the billing name and address; country and state are fixed", async () => {
    const updated = await seller.sdk.orders.update({
      id: purchase.id,
      orderUpdate: { billingName: "Olga GmbH", billingAddress: { country: "FR", line1: "2 rue X", city: "Lyon", postalCode: "69001" } },
    });
    expect(updated).toMatchObject({ billingName: "Olga GmbH", billingAddress: { country: "FR", line1: "2 rue X", city: "Lyon", postalCode: "69001" } });
    expect(updated.modifiedAt).not.toBeNull();
    const moved = await raw(seller.token, "PATCH", `/v1/orders/${purchase.id}`, { billing_address: { country: "DE" } });
    expect(moved.status).toBe(422);
    expect(issues(moved.body)[0]).toMatchObject({ loc: ["body", "billing_address"], msg: "Country and state fields cannot be updated." });
    const bad = await raw(seller.token, "PATCH", `/v1/orders/${purchase.id}`, { billing_name: 5, billing_address: { country: "XX" } });
    expect(locs(bad.body)).toEqual([["body", "billing_name"], ["body", "billing_address", "country"]]);
    expect((await seller.sdk.orders.get({ id: purchase.id })).billingName).toBe("Olga GmbH");
  });
});

describe("subscriptions", () => {
  it("a subscription is complete for both SDK versions: full product, prices, customer, period", async () => {
    const sub = await seller.sdk.subscriptions.get({ id: subOrder.subscriptionId ?? "" });
    expect(sub).toMatchObject({
      status: "active",
      amount: 900,
      currency: "usd",
      recurringInterval: "month",
      recurringIntervalCount: 1,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      endsAt: null,
      endedAt: null,
      trialStart: null,
      trialEnd: null,
      customerId: purchase.customerId,
      productId: monthly.id,
      checkoutId: subOrder.checkoutId,
      discountId: null,
      discount: null,
      metadata: { ref: "s1" },
      customer: { email },
      product: { id: monthly.id, prices: monthly.prices },
      meters: [],
      pendingUpdate: null,
    });
    expect(sub.prices.map((p) => p.id)).toEqual([monthly.prices[0]?.id]);
    const start = sub.currentPeriodStart;
    const end = sub.currentPeriodEnd;
    expect(end.getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);
    expect(sub.startedAt?.getTime()).toBe(start.getTime());
    const yearlySub = await seller.sdk.subscriptions.get({ id: yearlyOrder.subscriptionId ?? "" });
    expect(yearlySub.currentPeriodEnd.getUTCFullYear()).toBe(yearlySub.currentPeriodStart.getUTCFullYear() + 1);
    const sub049 = await seller.sdk049.subscriptions.get({ id: sub.id });
    expect(sub049).toMatchObject({ id: sub.id, pauseAtPeriodEnd: false, pausedAt: null, currentMeterPeriodEnd: end });
    // the order embeds the subscription without its customer and product
    expect(subOrder.subscription).toMatchObject({ id: sub.id, status: "active", productId: monthly.id });
  });

  it("lists with filters and sorting", async () => {
    const ids = async (req: Parameters<typeof seller.sdk.subscriptions.list>[0]) =>
      (await seller.sdk.subscriptions.list({ limit: 100, ...req })).result.items.map((s) => s.id);
    const subId = subOrder.subscriptionId ?? "";
    const yearlyId = yearlyOrder.subscriptionId ?? "";
    expect(await ids({ active: true })).toEqual([yearlyId, subId]);
    expect(await ids({ active: false })).toEqual([]);
    expect(await ids({ customerId: purchase.customerId })).toEqual([subId]);
    expect(await ids({ externalCustomerId: externalId })).toEqual([subId]);
    expect(await ids({ productId: [monthly.id, yearly.id] })).toEqual([yearlyId, subId]);
    expect(await ids({ discountId })).toEqual([]);
    expect(await ids({ metadata: { ref: "s1" } })).toEqual([subId]);
    expect(await ids({ cancelAtPeriodEnd: false })).toEqual([yearlyId, subId]);
    expect(await ids({ sorting: ["amount"] })).toEqual([subId, yearlyId]);
    expect(await ids({ sorting: ["-product"] })).toEqual([yearlyId, subId]);
    const page049 = await seller.sdk049.subscriptions.list({ active: true });
    expect(page049.result.items.map((s) => s.id)).toEqual([yearlyId, subId]);
  });

  it("the customer's state shows its active subscriptions", async () => {
    const state = await seller.sdk.customers.getStateExternal({ externalId });
    expect(state.activeSubscriptions).toEqual([
      expect.objectContaining({ id: subOrder.subscriptionId, status: "active", amount: 900, productId: monthly.id, meters: [] }),
    ]);
  });
});

describe("validation, scopes and tenancy", () => {
  it("refuses bad queries and path ids with 422", async () => {
    for (const path of [
      "/v1/orders/?product_id=x",
      "/v1/orders/?product_billing_type=monthly",
      "/v1/orders/?sorting=price",
      "/v1/orders/?limit=101",
      "/v1/orders/nope",
      "/v1/subscriptions/?active=maybe",
      "/v1/subscriptions/?customer_cancellation_reason=bored",
      "/v1/subscriptions/?canceled_at_after=yesterday",
      "/v1/subscriptions/?sorting=created",
      "/v1/subscriptions/nope",
    ]) {
      const res = await raw(seller.token, "GET", path);
      expect(res.status, path).toBe(422);
    }
  });

  it("needs the orders and subscriptions scopes", async () => {
    const readOrders = await seller.createKey({ orders: ["read"] });
    expect((await raw(readOrders, "GET", "/v1/orders/")).status).toBe(200);
    expect((await raw(readOrders, "PATCH", `/v1/orders/${purchase.id}`, { billing_name: "x" })).status).toBe(403);
    expect((await raw(readOrders, "GET", "/v1/subscriptions/")).status).toBe(403);
    const subs = sdkFor(server, await seller.createKey({ subscriptions: ["read"] }));
    expect((await subs.subscriptions.list({})).result.items.length).toBe(2);
  });

  it("another organization's orders and subscriptions are 404 and never listed", async () => {
    await expect(other.sdk.orders.get({ id: purchase.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(other.sdk.subscriptions.get({ id: subOrder.subscriptionId ?? "" })).rejects.toBeInstanceOf(ResourceNotFound);
    const patch = await raw(other.token, "PATCH", `/v1/orders/${purchase.id}`, { billing_name: "Mallory" });
    expect(patch).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Order not found" } });
    const theirOrders = (await other.sdk.orders.list({ limit: 100 })).result.items.map((o) => o.id);
    expect(theirOrders).not.toContain(purchase.id);
    expect((await other.sdk.subscriptions.list({})).result.items).toEqual([]);
    // filters naming A's rows find nothing for B
    expect((await other.sdk.orders.list({ customerId: purchase.customerId })).result.items).toEqual([]);
    expect((await seller.sdk.orders.get({ id: purchase.id })).billingName).toBe("Olga GmbH");
  });
});
