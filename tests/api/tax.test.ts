// Tax through the API: the seller's tax_settings on GET/PATCH /v1/organizations/{id} (set
// over plain HTTP: the SDK's request schema drops the field; both SDKs still parse the answers), Polar's
// 422 for bad settings, a checkout's tax_amount going from null to a number once its address tells
// (exclusive and inclusive prices, a US state registration, reverse charge, a 100% discount), the order's
// tax per line, a renewal's tax on its fixed and metered lines, a partial refund's refunded_tax_amount
// (down to 1 minor unit), a confirm refused when its total is not the one the buyer was shown, and the
// sandbox twin's own settings.
import { eq } from "drizzle-orm";
import type { Order } from "@polar-sh/sdk/models/components/order.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { order as orderTable, orderItem } from "../../server/db/schema/index.js";
import { EU_REVERSE_CHARGE_NOTE } from "../../server/billing/tax/compute.js";
import { locs, rawRequest } from "../helpers/api.js";
import { createProduct, pay, publicRequest, publicSdk, tokenize } from "../helpers/checkout.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let fixed: Product;

const db = () => server.database.db;
const raw = (method: string, path: string, body?: unknown, token = seller.token) => rawRequest(server.url, token, method, path, body);
const setTax = (settings: unknown, s: Seller = seller) => raw("PATCH", `/v1/organizations/${s.organizationId}`, { tax_settings: settings }, s.token);

async function buy(product: Product, extra: Record<string, unknown>, s: Seller = seller): Promise<Order> {
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  await pay(server, checkout, extra);
  const [o] = (await s.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!o) throw new Error("no order");
  return o;
}

beforeAll(async () => {
  server = await startServer();
  [seller, other] = await Promise.all([createSeller(server, "tax"), createSeller(server, "tax-other")]);
  fixed = await createProduct(seller, "fixed");
  // established in Germany, registered there (with OSS for the Union) and for California's sales tax
  await raw("PATCH", `/v1/organizations/${seller.organizationId}`, { country: "DE" });
  const res = await setTax({ registrations: [{ country: "DE" }, { country: "US", state: "CA" }], prices_include_tax: false });
  expect(res.status).toBe(200);
});
afterAll(async () => server?.close());

describe("tax_settings on /v1/organizations/{id}", () => {
  it("is read and written over plain HTTP, and both SDKs parse the answers", async () => {
    const fresh = await raw("GET", `/v1/organizations/${other.organizationId}`, undefined, other.token);
    expect(fresh.body.tax_settings).toEqual({ registrations: [], prices_include_tax: false });

    const res = await setTax({ registrations: [{ country: "fr" }, { country: "CA", state: "bc" }], prices_include_tax: true }, other);
    expect(res.status).toBe(200);
    expect(res.body.tax_settings).toEqual({ registrations: [{ country: "FR" }, { country: "CA", state: "BC" }], prices_include_tax: true });
    const read = await raw("GET", `/v1/organizations/${other.organizationId}`, undefined, other.token);
    expect(read.body.tax_settings).toEqual(res.body.tax_settings);
    // the SDKs drop the field but still parse the organization
    expect(await other.sdk.organizations.get({ id: other.organizationId })).toMatchObject({ id: other.organizationId });
    expect(await other.sdk049.organizations.get({ id: other.organizationId })).toMatchObject({ id: other.organizationId });
    // a PATCH without tax_settings keeps them; null clears them
    await raw("PATCH", `/v1/organizations/${other.organizationId}`, { website: "https://other.example" }, other.token);
    expect((await raw("GET", `/v1/organizations/${other.organizationId}`, undefined, other.token)).body.tax_settings).toEqual(res.body.tax_settings);
    expect((await setTax(null, other)).body.tax_settings).toEqual({ registrations: [], prices_include_tax: false });
  });

  it("refuses bad settings with Polar's 422, changing nothing", async () => {
    const before = (await raw("GET", `/v1/organizations/${seller.organizationId}`)).body.tax_settings;
    const cases: Array<[unknown, unknown[]]> = [
      [{ registrations: [{ country: "XX" }] }, ["body", "tax_settings", "registrations", 0, "country"]],
      [{ registrations: [{ country: "US" }] }, ["body", "tax_settings", "registrations", 0, "state"]],
      [{ registrations: [{ country: "US", state: "ZZ" }] }, ["body", "tax_settings", "registrations", 0, "state"]],
      [{ registrations: [{ country: "CA", state: "XX" }] }, ["body", "tax_settings", "registrations", 0, "state"]],
      [{ registrations: [{ country: "DE", state: "BY" }] }, ["body", "tax_settings", "registrations", 0, "state"]],
      [{ registrations: [{ country: "DE" }, { country: "de" }] }, ["body", "tax_settings", "registrations", 1]],
      [{ registrations: "DE" }, ["body", "tax_settings", "registrations"]],
      [{ registrations: [], prices_include_tax: "yes" }, ["body", "tax_settings", "prices_include_tax"]],
    ];
    for (const [settings, loc] of cases) {
      const res = await setTax(settings);
      expect(res.status, JSON.stringify(settings)).toBe(422);
      expect(locs(res.body)).toContainEqual(loc);
    }
    expect((await raw("GET", `/v1/organizations/${seller.organizationId}`)).body.tax_settings).toEqual(before);
  });

  it("another organization's settings answer 404", async () => {
    expect((await raw("PATCH", `/v1/organizations/${other.organizationId}`, { tax_settings: { registrations: [] } })).status).toBe(404);
  });
});

describe("a checkout's tax", () => {
  it("is null until the address tells, then a number the total includes (SDK 0.47.1 and 0.49.0)", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id] });
    expect(created).toMatchObject({ amount: 2500, netAmount: 2500, taxAmount: null, taxBehavior: null, totalAmount: 2500 });
    // the customer's page gives a French address: French VAT, 20%
    const fr = await publicSdk(server).checkouts.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: { customerBillingAddress: { country: "FR" } },
    });
    expect(fr).toMatchObject({ netAmount: 2500, taxAmount: 500, taxBehavior: "exclusive", totalAmount: 3000 });
    // the seller moves it to California (registered): 7.25%; to Texas (not registered): none
    const ca = await seller.sdk.checkouts.update({
      id: created.id,
      checkoutUpdate: { customerBillingAddress: { country: "US", state: "US-CA", line1: "1 Main St", city: "LA", postalCode: "90001" } },
    });
    expect(ca).toMatchObject({ taxAmount: 181, totalAmount: 2681 });
    const tx = await seller.sdk049.checkouts.update({
      id: created.id,
      checkoutUpdate: { customerBillingAddress: { country: "US", state: "US-TX", line1: "1 Main St", city: "Austin", postalCode: "73301" } },
    });
    expect(tx).toMatchObject({ taxAmount: 0, totalAmount: 2500 });
    // created with an address: taxed at once
    const de = await seller.sdk049.checkouts.create({ products: [fixed.id], customerBillingAddress: { country: "DE" } });
    expect(de).toMatchObject({ taxAmount: 475, totalAmount: 2975 });
  });

  it("is known at once for a customer whose address is on file", async () => {
    const customer = await seller.sdk.customers.create({ email: `taxed-${Date.now()}@example.com`, billingAddress: { country: "IT" } });
    const checkout = await seller.sdk.checkouts.create({ products: [fixed.id], customerId: customer.id });
    // Italy: 22%
    expect(checkout).toMatchObject({ taxAmount: 550, totalAmount: 3050, customerBillingAddress: { country: "IT" } });
  });

  it("is stored per order line by the confirm, and the payment takes the total with tax", async () => {
    const order = await buy(fixed, { customerBillingAddress: { country: "FR" } });
    expect(order).toMatchObject({ subtotalAmount: 2500, netAmount: 2500, taxAmount: 500, totalAmount: 3000 });
    expect(order.items).toEqual([expect.objectContaining({ amount: 2500, taxAmount: 500 })]);
    expect(await seller.sdk049.orders.get({ id: order.id })).toMatchObject({ taxAmount: 500, totalAmount: 3000, refundableTaxAmount: 500 });
    const [item] = await db().select().from(orderItem).where(eq(orderItem.orderId, order.id));
    expect(item?.tax).toEqual({ rate: 0.2, jurisdiction: "FR", reverse_charge: false, components: [{ jurisdiction: "FR", type: "vat", rate: 0.2, amount: 500 }] });
  });

  it("a confirm whose total is not the expected_total_amount the buyer was shown is refused with 409, nothing charged", async () => {
    const checkout = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const path = `/v1/checkouts/client/${checkout.clientSecret}/confirm`;
    const body = {
      customer_email: `shown-${Date.now()}@example.com`,
      customer_name: "Ada Buyer",
      customer_billing_address: { country: "US", state: "CA", line1: "1 Market Street", city: "San Francisco", postal_code: "94105" },
      confirmation_token_id: await tokenize(server, checkout.clientSecret),
      // the page last showed the total without California's tax
      expected_total_amount: 2500,
    };
    const refused = await publicRequest(server, "POST", path, body);
    expect(refused).toMatchObject({ status: 409, body: { error: "CheckoutTotalChanged" } });
    expect(refused.body.detail).toContain("it is now $26.81, not $25.00. Nothing was charged");
    expect((await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items).toEqual([]);
    expect(await seller.sdk.checkouts.get({ id: checkout.id })).toMatchObject({ status: "open" });
    const paid = await publicRequest(server, "POST", path, { ...body, confirmation_token_id: await tokenize(server, checkout.clientSecret), expected_total_amount: 2681 });
    expect(paid).toMatchObject({ status: 200, body: { status: "confirmed", tax_amount: 181, total_amount: 2681 } });
  });

  it("is reverse charged for an EU business with another member state's VAT id, with the legal note kept", async () => {
    const address = { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postalCode: "75001" };
    const order = await buy(fixed, { customerBillingAddress: address, isBusinessCustomer: true, customerBillingName: "Acme SARL", customerTaxId: "FR40303265045" });
    expect(order).toMatchObject({ taxAmount: 0, totalAmount: 2500 });
    const [row] = await db().select().from(orderTable).where(eq(orderTable.id, order.id));
    expect(row).toMatchObject({ taxNote: EU_REVERSE_CHARGE_NOTE, billingTaxId: ["FR40303265045", "eu_vat"] });
    const [item] = await db().select().from(orderItem).where(eq(orderItem.orderId, order.id));
    expect(item?.tax).toMatchObject({ reverse_charge: true, jurisdiction: "FR", rate: 0 });
  });

  it("takes the tax out of a price that includes it: the total stays the price", async () => {
    const seller2 = await createSeller(server, "tax-incl");
    await setTax({ registrations: [{ country: "FR" }], prices_include_tax: true }, seller2);
    const product = await createProduct(seller2, "fixed");
    const checkout = await seller2.sdk.checkouts.create({ products: [product.id], customerBillingAddress: { country: "FR" } });
    // 2500 × 0.2 / 1.2 = 416.67 → 417
    expect(checkout).toMatchObject({ amount: 2500, netAmount: 2083, taxAmount: 417, taxBehavior: "inclusive", totalAmount: 2500 });
    const order = await buy(product, { customerBillingAddress: { country: "FR" } }, seller2);
    expect(order).toMatchObject({ subtotalAmount: 2500, netAmount: 2083, taxAmount: 417, totalAmount: 2500 });
    expect(order.items[0]).toMatchObject({ amount: 2500, taxAmount: 417 });
  });

  it("is 0 under a 100% discount", async () => {
    const discount = await seller.sdk.discounts.create({ name: "all of it", type: "percentage", basisPoints: 10_000, duration: "once" });
    const checkout = await seller.sdk.checkouts.create({ products: [fixed.id], discountId: discount.id, customerBillingAddress: { country: "DE" } });
    expect(checkout).toMatchObject({ discountAmount: 2500, netAmount: 0, taxAmount: 0, totalAmount: 0 });
  });
});

describe("renewals and refunds", () => {
  it("a renewal taxes its fixed and metered lines for the customer's address", async () => {
    const meter = await seller.sdk.meters.create({
      name: "API calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tax-call" }] },
      aggregation: { func: "count" },
    });
    const plan = await seller.sdk.products.create({
      name: "taxed plan",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "30", priceCurrency: "usd" },
      ],
    });
    const first = await buy(plan, { customerBillingAddress: { country: "DE" } });
    expect(first).toMatchObject({ billingReason: "subscription_create", taxAmount: 190, totalAmount: 1190 });
    const ingest = await raw("POST", "/v1/events/ingest", { events: Array.from({ length: 5 }, () => ({ name: "tax-call", customer_id: first.customerId })) });
    expect(ingest.status).toBe(200);
    const sub = await seller.sdk.subscriptions.get({ id: first.subscriptionId ?? "" });
    // naming the period renews it now (a bare renew waits for the period's end)
    const renewed = await raw("POST", `/v1/subscriptions/${first.subscriptionId}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    expect(renewed.status).toBe(200);
    const orders = (await seller.sdk.orders.list({ subscriptionId: first.subscriptionId ?? "" })).result.items;
    const cycle = orders.find((o) => o.billingReason === "subscription_cycle");
    // 1000 × 19% = 190; 150 of usage × 19% = 28.5 → 29 (half up, per line)
    expect(cycle).toMatchObject({ status: "paid", subtotalAmount: 1150, netAmount: 1150, taxAmount: 219, totalAmount: 1369 });
    expect(cycle?.items.map((i) => [i.amount, i.taxAmount])).toEqual([
      [1000, 190],
      [150, 29],
    ]);
    expect(await seller.sdk049.orders.get({ id: cycle?.id ?? "" })).toMatchObject({ taxAmount: 219, totalAmount: 1369 });
  });

  it("a partial refund gives back tax in proportion, a refund of 1 minor unit too", async () => {
    const order = await buy(fixed, { customerBillingAddress: { country: "FR" } });
    const one = await seller.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 1 });
    expect(one).toMatchObject({ amount: 1, taxAmount: 0, status: "succeeded" });
    // 1001 refunded in all: 1001 × 500 / 2500 = 200.2 → 200
    const part = await seller.sdk049.refunds.create({ orderId: order.id, reason: "other", amount: 1000 });
    expect(part).toMatchObject({ amount: 1000, taxAmount: 200 });
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "partially_refunded", refundedAmount: 1001, refundedTaxAmount: 200 });
    expect(await seller.sdk049.orders.get({ id: order.id })).toMatchObject({ refundableAmount: 1499, refundableTaxAmount: 300 });
    const rest = await seller.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 1499 });
    expect(rest).toMatchObject({ taxAmount: 300 });
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "refunded", refundedAmount: 2500, refundedTaxAmount: 500 });
  });
});

describe("sandbox", () => {
  it("the sandbox twin keeps tax settings of its own and taxes its checkouts by them", async () => {
    const key = await seller.createSandboxKey();
    const sdk = sdkFor(server, key);
    const twins = await raw("GET", "/v1/organizations/", undefined, key);
    const twin = (twins.body.items as Array<{ id: string; tax_settings: unknown }>)[0];
    if (!twin) throw new Error("no sandbox twin");
    expect(twin.id).not.toBe(seller.organizationId);
    const set = await raw("PATCH", `/v1/organizations/${twin.id}`, { tax_settings: { registrations: [{ country: "GB" }] } }, key);
    expect(set.status).toBe(200);
    const product = await sdk.products.create({ name: "sandbox taxed", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    const checkout = await sdk.checkouts.create({ products: [product.id], customerBillingAddress: { country: "GB" } });
    expect(checkout).toMatchObject({ taxAmount: 200, totalAmount: 1200 });
    // the live organization's settings are untouched (no GB registration: a GB buyer pays nothing live)
    const live = await seller.sdk.checkouts.create({ products: [fixed.id], customerBillingAddress: { country: "GB" } });
    expect(live).toMatchObject({ taxAmount: 0 });
  });
});
