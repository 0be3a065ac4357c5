// /v1/checkouts through @polar-sh/sdk 0.47.1 (list/get/create again through 0.49.0): every price kind,
// several products, discounts (codes, windows, restrictions, redemption limits under concurrency), trials,
// seats, custom fields, customer data and tax ids, the test processor (declines, then success), expiry,
// double confirms, the outbox written in the confirming transaction, the event stream, the app's
// POST /api/auth/checkout, validation, scopes and tenancy.
import { and, asc, eq } from "drizzle-orm";
import { AlreadyActiveSubscriptionError } from "@polar-sh/sdk/models/errors/alreadyactivesubscriptionerror.js";
import { ExpiredCheckoutError } from "@polar-sh/sdk/models/errors/expiredcheckouterror.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { NotOpenCheckout } from "@polar-sh/sdk/models/errors/notopencheckout.js";
import { PaymentError } from "@polar-sh/sdk/models/errors/paymenterror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benefitGrant, checkout, customer, discount, order, outbox, subscription } from "../../server/db/schema/index.js";
import { issues, locs, rawRequest } from "../helpers/api.js";
import { CARDS, createProduct, pay, publicRequest, publicSdk, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let meterId: string;
let fixed: Product;
let custom: Product;
let free: Product;
let seats: Product;
let monthly: Product;
let trial: Product;
let metered: Product;

const db = () => server.database.db;
const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);
const HOUR = 3600_000;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "checkouts");
  other = await createSeller(server, "intruder");
  const meter = await seller.sdk.meters.create({
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
    aggregation: { func: "count" },
  });
  meterId = meter.id;
  [fixed, custom, free, seats, monthly, trial, metered] = await Promise.all([
    createProduct(seller, "fixed"),
    createProduct(seller, "custom"),
    createProduct(seller, "free"),
    createProduct(seller, "seats"),
    createProduct(seller, "monthly"),
    createProduct(seller, "trial"),
    createProduct(seller, "metered", {}, meterId),
  ]);
});
afterAll(async () => server?.close());

async function outboxOf(organizationId: string) {
  return db().select().from(outbox).where(eq(outbox.organizationId, organizationId)).orderBy(asc(outbox.createdAt));
}

async function countRows(organizationId: string) {
  const [c, o, s, cu] = await Promise.all([
    db().select().from(checkout).where(eq(checkout.organizationId, organizationId)),
    db().select().from(order).where(eq(order.organizationId, organizationId)),
    db().select().from(subscription).where(eq(subscription.organizationId, organizationId)),
    db().select().from(customer).where(eq(customer.organizationId, organizationId)),
  ]);
  return { checkouts: c.length, orders: o.length, subscriptions: s.length, customers: cu.length };
}

describe("create and read (SDK 0.47.1)", () => {
  it("creates a checkout for a fixed price with Polar's defaults", async () => {
    const before = Date.now();
    const created = await seller.sdk.checkouts.create({ products: [fixed.id], metadata: { order_ref: "A-1", qty: 2, gift: true } });
    expect(created).toMatchObject({
      status: "open",
      paymentProcessor: "stripe",
      amount: 2500,
      discountAmount: 0,
      netAmount: 2500,
      taxAmount: null,
      totalAmount: 2500,
      currency: "usd",
      organizationId: seller.organizationId,
      productId: fixed.id,
      productPriceId: fixed.prices[0]?.id,
      discountId: null,
      discount: null,
      customerId: null,
      customerEmail: null,
      allowDiscountCodes: true,
      requireBillingAddress: false,
      isDiscountApplicable: true,
      isFreeProductPrice: false,
      isPaymentRequired: true,
      isPaymentSetupRequired: false,
      isPaymentFormRequired: true,
      isBusinessCustomer: false,
      trialEnd: null,
      activeTrialInterval: null,
      metadata: { order_ref: "A-1", qty: 2, gift: true },
      billingAddressFields: { country: "required", state: "disabled", city: "disabled", postalCode: "disabled", line1: "disabled", line2: "disabled" },
    });
    expect(created.clientSecret).toMatch(/^till_c_[A-Za-z0-9_-]{32}$/);
    expect(created.url).toBe(`${server.config.baseURL}/checkout/${created.clientSecret}`);
    expect(created.successUrl).toBe(`${created.url}/confirmation`);
    const ttl = created.expiresAt.getTime() - before;
    expect(ttl).toBeGreaterThan(24 * HOUR - 60_000);
    expect(ttl).toBeLessThanOrEqual(24 * HOUR + 1000);
    expect(created.products.map((p) => p.id)).toEqual([fixed.id]);
    expect(created.product?.prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 2500 });
    expect(Object.keys(created.prices ?? {})).toEqual([fixed.id]);
    expect(created.paymentProcessorMetadata).toMatchObject({
      processor: "test",
      tokenize_url: `${server.config.baseURL}/v1/checkouts/client/${created.clientSecret}/test-card`,
    });

    const got = await seller.sdk.checkouts.get({ id: created.id });
    expect(got).toEqual(created);
    const page = await seller.sdk.checkouts.list({ productId: fixed.id });
    expect(page.result.items.map((c) => c.id)).toContain(created.id);
  });

  it("shows the customer's page the public shape with the organization, without seller metadata", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id], metadata: { secret: "seller-only" } });
    const page = await publicSdk(server).checkouts.clientGet({ clientSecret: created.clientSecret });
    expect(page.organization).toMatchObject({ id: seller.organizationId, slug: seller.slug, prorationBehavior: "prorate", allowCustomerUpdates: true });
    const wire = await publicRequest(server, "GET", `/v1/checkouts/client/${created.clientSecret}`);
    expect(wire.status).toBe(200);
    expect(wire.body).not.toHaveProperty("metadata");
    expect(wire.body).not.toHaveProperty("customer_metadata");
    expect(wire.body.id).toBe(created.id);
    expect((await publicRequest(server, "GET", "/v1/checkouts/client/till_c_unknown")).status).toBe(404);
    await expect(publicSdk(server).checkouts.clientGet({ clientSecret: "x".repeat(90) })).rejects.toBeInstanceOf(ResourceNotFound);
  });

  it("offers several products; the customer picks one by price (product_price_id) or by product", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id, monthly.id, custom.id] });
    expect(created.productId).toBe(fixed.id);
    expect(created.products.map((p) => p.id)).toEqual([fixed.id, monthly.id, custom.id]);
    const client = publicSdk(server).checkouts;
    const toMonthly = await client.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: { productPriceId: monthly.prices[0]?.id },
    });
    expect(toMonthly).toMatchObject({ productId: monthly.id, amount: 900, isPaymentSetupRequired: true });
    const toCustom = await client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { productId: custom.id } });
    expect(toCustom).toMatchObject({ productId: custom.id, productPriceId: custom.prices[0]?.id, amount: 1500 });
    const foreign = await publicRequest(server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { product_price_id: free.prices[0]?.id });
    expect(foreign.status).toBe(422);
    expect(issues(foreign.body)[0]).toMatchObject({ loc: ["body", "product_price_id"], msg: "Price is not available in this checkout." });
    const notOffered = await publicRequest(server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { product_id: free.id });
    expect(issues(notOffered.body)[0]).toMatchObject({ loc: ["body", "product_id"], msg: "Product is not available in this checkout." });
  });

  it("lists with filters, sorting and pagination", async () => {
    const a = await seller.sdk.checkouts.create({ products: [free.id], customerEmail: "list-a@example.com" });
    const b = await seller.sdk.checkouts.create({ products: [free.id], customerEmail: "list-b@example.com" });
    const byQuery = await seller.sdk.checkouts.list({ query: "list-a@" });
    expect(byQuery.result.items.map((c) => c.id)).toEqual([a.id]);
    const byProduct = await seller.sdk.checkouts.list({ productId: free.id, sorting: ["created_at"] });
    const ids = byProduct.result.items.map((c) => c.id);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
    const paged = await seller.sdk.checkouts.list({ productId: free.id, limit: 1, page: 2 });
    expect(paged.result.items).toHaveLength(1);
    expect(paged.result.pagination.maxPage).toBe(paged.result.pagination.totalCount);
    const open = await seller.sdk.checkouts.list({ status: "open", productId: free.id });
    expect(open.result.items.length).toBeGreaterThanOrEqual(2);
  });

  it("works through SDK 0.49.0 (create, get, list)", async () => {
    const created = await seller.sdk049.checkouts.create({ products: [monthly.id, fixed.id] });
    expect(created).toMatchObject({ status: "open", amount: 900, productId: monthly.id });
    expect(await seller.sdk049.checkouts.get({ id: created.id })).toMatchObject({ id: created.id });
    const page = await seller.sdk049.checkouts.list({ productId: monthly.id });
    expect(page.result.items.map((c) => c.id)).toContain(created.id);
  });
});

describe("price kinds", () => {
  it("pay what you want: the preset by default, the customer's amount within the bounds", async () => {
    const created = await seller.sdk.checkouts.create({ products: [custom.id] });
    expect(created.amount).toBe(1500);
    const chosen = await seller.sdk.checkouts.create({ products: [custom.id], amount: 4000 });
    expect(chosen.amount).toBe(4000);
    for (const [amount, msg, type] of [
      [100, "Amount is below minimum.", "greater_than_equal"],
      [20_000, "Amount is above maximum.", "less_than_equal"],
    ] as const) {
      const res = await raw(seller.token, "POST", "/v1/checkouts/", { products: [custom.id], amount });
      expect(res.status).toBe(422);
      expect(issues(res.body)[0]).toMatchObject({ loc: ["body", "amount"], msg, type, input: amount });
      const upd = await publicRequest(server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { amount });
      expect(upd.status).toBe(422);
    }
    const updated = await publicSdk(server).checkouts.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { amount: 777 } });
    expect(updated).toMatchObject({ amount: 777, totalAmount: 777 });
    await pay(server, created);
    const [o] = (await seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ subtotalAmount: 777, totalAmount: 777, billingReason: "purchase" });
  });

  it("a free price needs no payment: confirmed without a card", async () => {
    const created = await seller.sdk.checkouts.create({ products: [free.id] });
    expect(created).toMatchObject({
      amount: 0,
      totalAmount: 0,
      isFreeProductPrice: true,
      isPaymentRequired: false,
      isPaymentSetupRequired: false,
      isPaymentFormRequired: false,
      billingAddressFields: { country: "optional", line1: "disabled" },
    });
    const confirmed = await publicSdk(server).checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: { customerEmail: uniqueBuyer("free") },
    });
    expect(confirmed.status).toBe("confirmed");
    const [o] = (await seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ status: "paid", paid: true, totalAmount: 0, items: [{ amount: 0 }] });
  });

  it("seats: the tier of the seat count prices every seat; bounds are 422", async () => {
    const created = await seller.sdk.checkouts.create({ products: [seats.id], seats: 3 });
    expect(created).toMatchObject({ seats: 3, amount: 3000 });
    expect((await raw(seller.token, "GET", `/v1/checkouts/${created.id}`)).body.price_per_seat).toBe(1000);
    const more = await publicSdk(server).checkouts.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { seats: 5 } });
    expect(more).toMatchObject({ seats: 5, amount: 4000 });
    const tooMany = await publicRequest(server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { seats: 21 });
    expect(tooMany.status).toBe(422);
    expect(issues(tooMany.body)[0]).toMatchObject({ loc: ["body", "seats"], msg: "Seats must be at most 20." });
    const notSeats = await raw(seller.token, "POST", "/v1/checkouts/", { products: [fixed.id], seats: 2 });
    expect(issues(notSeats.body)[0]).toMatchObject({ loc: ["body", "seats"], msg: "Seats can only be set for seat-based pricing." });
    const bounded = await raw(seller.token, "POST", "/v1/checkouts/", { products: [seats.id], seats: 2, min_seats: 3 });
    expect(issues(bounded.body)[0]).toMatchObject({ loc: ["body", "seats"], msg: "Seats must be at least 3." });
    const confirmed = await pay(server, more);
    expect(confirmed.amount).toBe(4000);
    const [sub] = (await seller.sdk.subscriptions.list({ productId: seats.id })).result.items;
    expect(sub).toMatchObject({ seats: 5, amount: 4000, status: "active" });
  });

  it("metered prices charge nothing up front but save the card for usage", async () => {
    const created = await seller.sdk.checkouts.create({ products: [metered.id] });
    expect(created).toMatchObject({ amount: 0, isPaymentRequired: false, isPaymentSetupRequired: true, isPaymentFormRequired: true });
    const noCard = await publicRequest(server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, {
      customer_email: uniqueBuyer(),
      customer_name: "Meter Buyer",
      customer_billing_address: { country: "DE" },
    });
    expect(noCard.status).toBe(422);
    expect(issues(noCard.body)).toEqual([
      { loc: ["body", "confirmation_token_id"], msg: "Confirmation token is required.", type: "missing", input: null, code: "required" },
    ]);
    await pay(server, created);
    const [o] = (await seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ totalAmount: 0, billingReason: "subscription_create", items: [] });
    const sub = await seller.sdk.subscriptions.get({ id: o?.subscriptionId ?? "" });
    expect(sub.prices.map((p) => p.id)).toEqual([metered.prices[0]?.id]);
  });
});

describe("discounts", () => {
  it("applies fixed and percentage discounts by id (seller) and by code (customer)", async () => {
    const tenPercent = await seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 1000, name: "Ten" });
    const fiveOff = await seller.sdk.discounts.create({
      type: "fixed",
      duration: "forever",
      amount: 500,
      currency: "usd",
      name: "Five off",
      code: "FIVEOFF",
    });
    const byId = await seller.sdk.checkouts.create({ products: [fixed.id], discountId: tenPercent.id });
    expect(byId).toMatchObject({ discountId: tenPercent.id, discountAmount: 250, netAmount: 2250, totalAmount: 2250 });
    expect(byId.discount).toMatchObject({ id: tenPercent.id, type: "percentage", basisPoints: 1000, duration: "once", name: "Ten", code: null });

    const created = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const client = publicSdk(server).checkouts;
    const coded = await client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { discountCode: "fiveoff" } });
    expect(coded).toMatchObject({ discountId: fiveOff.id, discountAmount: 500, totalAmount: 2000 });
    const removed = await client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { discountCode: null } });
    expect(removed).toMatchObject({ discountId: null, discountAmount: 0, totalAmount: 2500 });
    const unknown = await publicRequest(server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { discount_code: "NOPE123" });
    expect(unknown.status).toBe(422);
    expect(issues(unknown.body)[0]).toMatchObject({ loc: ["body", "discount_code"], msg: "Discount does not exist." });

    await client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { discountCode: "FIVEOFF" } });
    await pay(server, created);
    const [o] = (await seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ subtotalAmount: 2500, discountAmount: 500, netAmount: 2000, totalAmount: 2000, discountId: fiveOff.id });
    expect(o?.discount).toMatchObject({ id: fiveOff.id, amount: 500 });
    expect((await seller.sdk.discounts.get({ id: fiveOff.id })).redemptionsCount).toBe(1);
  });

  it("refuses discounts outside their window, restricted to other products, repeating on one-time products, or with codes off", async () => {
    const day = 24 * HOUR;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ endsAt: new Date(Date.now() - day) }, "Discount is no longer redeemable."],
      [{ startsAt: new Date(Date.now() + day) }, "Discount is not yet redeemable."],
      [{ products: [monthly.id] }, "Discount is not applicable to this product."],
      [{ duration: "repeating", durationInMonths: 3 }, "Discount is not applicable to this product."],
    ];
    for (const [extra, msg] of cases) {
      const d = await seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Edge", ...extra } as Parameters<typeof seller.sdk.discounts.create>[0]);
      const res = await raw(seller.token, "POST", "/v1/checkouts/", { products: [fixed.id], discount_id: d.id });
      expect(res.status, msg).toBe(422);
      expect(issues(res.body)[0]).toMatchObject({ loc: ["body", "discount_id"], msg });
    }
    const onFree = await seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Free?", code: "FREEDISC" });
    const freeCheckout = await seller.sdk.checkouts.create({ products: [free.id] });
    const refused = await publicRequest(server, "PATCH", `/v1/checkouts/client/${freeCheckout.clientSecret}`, { discount_code: "FREEDISC" });
    expect(issues(refused.body)[0]).toMatchObject({ msg: "Discounts are not applicable to this product." });
    expect(onFree.id).toBeTruthy();

    const noCodes = await seller.sdk.checkouts.create({ products: [fixed.id], allowDiscountCodes: false });
    const codeRefused = await publicRequest(server, "PATCH", `/v1/checkouts/client/${noCodes.clientSecret}`, { discount_code: "FIVEOFF" });
    expect(issues(codeRefused.body)[0]).toMatchObject({ loc: ["body", "discount_code"], msg: "Discount codes are not accepted on this checkout." });
    const foreign = await other.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Foreign" });
    const foreignRes = await raw(seller.token, "POST", "/v1/checkouts/", { products: [fixed.id], discount_id: foreign.id });
    expect(issues(foreignRes.body)[0]).toMatchObject({ loc: ["body", "discount_id"], msg: "Discount does not exist." });
  });

  it("20 parallel checkouts against max_redemptions 5: exactly 5 are confirmed, the rest get a clear 422", async () => {
    const limited = await seller.sdk.discounts.create({
      type: "percentage",
      duration: "once",
      basisPoints: 5000,
      name: "Half off, five times",
      maxRedemptions: 5,
    });
    const checkouts = await Promise.all(
      Array.from({ length: 20 }, () => seller.sdk.checkouts.create({ products: [fixed.id], discountId: limited.id })),
    );
    const tokens = await Promise.all(checkouts.map((c) => tokenize(server, c.clientSecret)));
    const before = await countRows(seller.organizationId);
    const results = await Promise.all(
      checkouts.map((c, i) =>
        publicRequest(server, "POST", `/v1/checkouts/client/${c.clientSecret}/confirm`, {
          customer_email: uniqueBuyer("race"),
          customer_name: "Racer",
          customer_billing_address: { country: "FR" },
          confirmation_token_id: tokens[i],
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(issues(r.body)).toEqual([
        { loc: ["body", "discount_id"], msg: "Discount is no longer redeemable.", type: "value_error", code: "discount_over" },
      ]);
    }
    const [row] = await db().select().from(discount).where(eq(discount.id, limited.id));
    expect(row?.redemptionsCount).toBe(5);
    const after = await countRows(seller.organizationId);
    expect(after.orders - before.orders).toBe(5);
    expect(after.customers - before.customers).toBe(5);
    // the refused checkouts stay open: the customer may remove the discount and pay full price
    const loser = checkouts[results.findIndex((r) => r.status !== 200)];
    expect((await seller.sdk.checkouts.get({ id: loser?.id ?? "" })).status).toBe("open");
  });
});

describe("trials", () => {
  it("starts a trial from the product: nothing charged, the card saved, the subscription trialing until trial_end", async () => {
    const before = Date.now();
    const created = await seller.sdk.checkouts.create({ products: [trial.id] });
    expect(created).toMatchObject({
      activeTrialInterval: "day",
      activeTrialIntervalCount: 14,
      amount: 1200,
      isPaymentRequired: false,
      isPaymentSetupRequired: true,
      isPaymentFormRequired: true,
    });
    const end = created.trialEnd?.getTime() ?? 0;
    expect(end - before).toBeGreaterThanOrEqual(14 * 24 * HOUR - 1000);
    expect(end - before).toBeLessThan(14 * 24 * HOUR + 60_000);
    await pay(server, created);
    const [sub] = (await seller.sdk.subscriptions.list({ productId: trial.id })).result.items;
    expect(sub).toMatchObject({ status: "trialing", amount: 1200, recurringInterval: "month", checkoutId: created.id });
    expect(sub?.trialEnd?.getTime()).toBe(sub?.currentPeriodEnd.getTime());
    expect(sub?.trialStart?.getTime()).toBe(sub?.currentPeriodStart.getTime());
    const [o] = (await seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ totalAmount: 0, billingReason: "subscription_create", subscriptionId: sub?.id });
    const types = (await outboxOf(seller.organizationId)).filter((e) => (e.payload as { id?: string }).id === sub?.id).map((e) => e.type);
    expect(types).toEqual(["subscription.created"]);
  });

  it("the checkout's own trial overrides the product's; a customer may decline the trial and pay now", async () => {
    const weekly = await seller.sdk.checkouts.create({ products: [trial.id], trialInterval: "week", trialIntervalCount: 2 });
    expect(weekly).toMatchObject({ activeTrialInterval: "week", activeTrialIntervalCount: 2 });
    const none = await seller.sdk.checkouts.create({ products: [monthly.id], trialInterval: "month", trialIntervalCount: 1 });
    expect(none.trialEnd).not.toBeNull();
    const declined = await publicSdk(server).checkouts.clientUpdate({ clientSecret: weekly.clientSecret, checkoutUpdatePublic: { allowTrial: false } });
    expect(declined).toMatchObject({ trialEnd: null, activeTrialInterval: null, isPaymentRequired: true });
    const off = await seller.sdk.checkouts.create({ products: [trial.id], allowTrial: false });
    expect(off.trialEnd).toBeNull();
    await pay(server, declined);
    const [sub] = (await seller.sdk.subscriptions.list({ productId: trial.id, sorting: ["-started_at"] })).result.items;
    expect(sub).toMatchObject({ status: "active", trialEnd: null, checkoutId: weekly.id });
  });
});

describe("customer data", () => {
  it("derives the billing address fields like Polar and requires them at confirm", async () => {
    const required = await seller.sdk.checkouts.create({ products: [fixed.id], requireBillingAddress: true });
    expect(required.billingAddressFields).toEqual({
      country: "required",
      state: "optional",
      city: "required",
      postalCode: "required",
      line1: "required",
      line2: "optional",
    });
    const us = await publicSdk(server).checkouts.clientUpdate({
      clientSecret: (await seller.sdk.checkouts.create({ products: [fixed.id] })).clientSecret,
      checkoutUpdatePublic: { customerBillingAddress: { country: "US" } },
    });
    expect(us.billingAddressFields).toMatchObject({ country: "required", state: "required", line1: "required", city: "required" });

    const token = await tokenize(server, required.clientSecret);
    const res = await publicRequest(server, "POST", `/v1/checkouts/client/${required.clientSecret}/confirm`, {
      customer_email: uniqueBuyer(),
      customer_billing_address: { country: "FR", city: "Paris" },
      confirmation_token_id: token,
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      ["body", "customer_name"],
      ["body", "customer_billing_address", "postal_code"],
      ["body", "customer_billing_address", "line1"],
    ]);
    expect(issues(res.body)[0]).toMatchObject({ msg: "Field is required.", type: "missing" });
    const noEmail = await publicRequest(server, "POST", `/v1/checkouts/client/${required.clientSecret}/confirm`, {});
    expect(locs(noEmail.body)).toContainEqual(["body", "customer_email"]);
  });

  it("business customers: tax id checked against the billing country, billing name required; saved on the customer", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id], isBusinessCustomer: true });
    expect(created.billingAddressFields).toMatchObject({ line1: "required", city: "required", postalCode: "required" });
    const noCountry = await raw(seller.token, "POST", "/v1/checkouts/", { products: [fixed.id], customer_tax_id: "FR40303265045" });
    expect(issues(noCountry.body)[0]).toMatchObject({ loc: ["body", "customer_billing_address"], msg: "Country is required to validate tax ID.", type: "missing" });
    const bad = await publicRequest(server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, {
      customer_tax_id: "123",
      customer_billing_address: { country: "FR" },
    });
    expect(issues(bad.body)[0]).toMatchObject({ loc: ["body", "customer_tax_id"], msg: "Invalid tax ID.", input: "123" });
    const email = uniqueBuyer("biz");
    await pay(server, created, {
      customerEmail: email,
      customerBillingName: "ACME SAS",
      customerTaxId: "FR 40 303 265 045",
      customerBillingAddress: { country: "FR", line1: "1 rue de la Paix", city: "Paris", postalCode: "75002" },
    });
    const after = await seller.sdk.checkouts.get({ id: created.id });
    expect(after).toMatchObject({ status: "succeeded", customerTaxId: "FR40303265045", customerBillingName: "ACME SAS" });
    const [o] = (await seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ billingName: "ACME SAS", billingAddress: { country: "FR", line1: "1 rue de la Paix", postalCode: "75002" } });
    expect(o?.customer).toMatchObject({ email, taxId: ["FR40303265045", "eu_vat"], billingAddress: { city: "Paris" } });
  });

  it("external customer id: creates the customer with it, and a later checkout knows the customer", async () => {
    const external = `user_${Date.now()}`;
    const email = uniqueBuyer("ext");
    const first = await seller.sdk.checkouts.create({
      products: [fixed.id],
      externalCustomerId: external,
      customerMetadata: { plan: "pro", seats: 3 },
    });
    expect(first).toMatchObject({ externalCustomerId: external, customerId: null });
    await pay(server, first, { customerEmail: email, customerName: "Ext Buyer" });
    const [o] = (await seller.sdk.orders.list({ checkoutId: first.id })).result.items;
    expect(o?.customer).toMatchObject({ externalId: external, email, name: "Ext Buyer", metadata: { plan: "pro", seats: 3 } });

    const second = await seller.sdk.checkouts.create({ products: [fixed.id], externalCustomerId: external });
    expect(second).toMatchObject({ customerId: o?.customerId, customerEmail: email, customerName: "Ext Buyer" });
    // the known customer's email cannot be swapped from the page
    const swapped = await publicSdk(server).checkouts.clientUpdate({ clientSecret: second.clientSecret, checkoutUpdatePublic: { customerEmail: "else@example.com" } });
    expect(swapped.customerEmail).toBe(email);
    const byId = await seller.sdk.checkouts.create({ products: [fixed.id], customerId: o?.customerId ?? "" });
    expect(byId).toMatchObject({ customerId: o?.customerId, customerEmail: email });
    const unknown = await raw(seller.token, "POST", "/v1/checkouts/", { products: [fixed.id], customer_id: crypto.randomUUID() });
    expect(issues(unknown.body)[0]).toMatchObject({ loc: ["body", "customer_id"], msg: "Customer does not exist." });
  });

  it("a customer buying again by email is matched, not duplicated; a second subscription is refused", async () => {
    const email = uniqueBuyer("again");
    const a = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const b = await seller.sdk.checkouts.create({ products: [fixed.id] });
    await pay(server, a, { customerEmail: email });
    await pay(server, b, { customerEmail: email.toUpperCase() });
    const [oa] = (await seller.sdk.orders.list({ checkoutId: a.id })).result.items;
    const [ob] = (await seller.sdk.orders.list({ checkoutId: b.id })).result.items;
    expect(ob?.customerId).toBe(oa?.customerId);

    const sub1 = await seller.sdk.checkouts.create({ products: [monthly.id] });
    await pay(server, sub1, { customerEmail: email });
    const sub2 = await seller.sdk.checkouts.create({ products: [monthly.id] });
    const refused = publicSdk(server).checkouts.clientUpdate({ clientSecret: sub2.clientSecret, checkoutUpdatePublic: { customerEmail: email } });
    await expect(refused).rejects.toBeInstanceOf(AlreadyActiveSubscriptionError);
    await expect(refused).rejects.toMatchObject({ detail: "You already have an active subscription." });
    const confirm = await publicRequest(server, "POST", `/v1/checkouts/client/${sub2.clientSecret}/confirm`, {
      customer_email: email,
      customer_name: "Again",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await tokenize(server, sub2.clientSecret),
    });
    expect(confirm).toMatchObject({ status: 403, body: { error: "AlreadyActiveSubscriptionError" } });
  });
});

describe("custom fields", () => {
  it("validates custom field data against the chosen product's fields; required ones at confirm", async () => {
    const [company, employees, plan, terms, birthday] = await Promise.all([
      seller.sdk.customFields.create({ type: "text", slug: `company_${Date.now()}`, name: "Company", properties: { minLength: 3, maxLength: 20 } }),
      seller.sdk.customFields.create({ type: "number", slug: `employees_${Date.now()}`, name: "Employees", properties: { ge: 1, le: 500 } }),
      seller.sdk.customFields.create({
        type: "select",
        slug: `plan_${Date.now()}`,
        name: "Plan",
        properties: { options: [{ value: "a", label: "A" }, { value: "b", label: "B" }] },
      }),
      seller.sdk.customFields.create({ type: "checkbox", slug: `terms_${Date.now()}`, name: "Terms", properties: {} }),
      seller.sdk.customFields.create({ type: "date", slug: `birthday_${Date.now()}`, name: "Birthday", properties: { ge: 0 } }),
    ]);
    const product = await createProduct(seller, "fixed", {
      attachedCustomFields: [
        { customFieldId: company.id, required: true },
        { customFieldId: employees.id, required: false },
        { customFieldId: plan.id, required: false },
        { customFieldId: terms.id, required: true },
        { customFieldId: birthday.id, required: false },
      ],
    });
    const created = await seller.sdk.checkouts.create({ products: [product.id], customFieldData: { [company.slug]: "ACME", unknown: "dropped" } });
    expect(created.customFieldData).toEqual({ [company.slug]: "ACME" });
    expect(created.attachedCustomFields?.map((f) => f.customFieldId)).toEqual([company.id, employees.id, plan.id, terms.id, birthday.id]);

    const bad = await publicRequest(server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, {
      custom_field_data: { [company.slug]: "AC", [employees.slug]: 501, [plan.slug]: "c", [terms.slug]: "yes", [birthday.slug]: "not a date" },
    });
    expect(bad.status).toBe(422);
    expect(issues(bad.body).map((i) => [i.loc.at(-1), i.msg])).toEqual([
      [company.slug, "String should have at least 3 characters"],
      [employees.slug, "Input should be less than or equal to 500"],
      [plan.slug, "Input should be 'a' or 'b'"],
      [terms.slug, "Input should be a valid boolean"],
      [birthday.slug, "Input should be a valid date"],
    ]);
    const token = await tokenize(server, created.clientSecret);
    const unchecked = await publicRequest(server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, {
      customer_email: uniqueBuyer(),
      customer_name: "Fields",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: token,
      custom_field_data: { [company.slug]: null },
    });
    expect(unchecked.status).toBe(422);
    expect(issues(unchecked.body)).toEqual([
      { loc: ["body", "custom_field_data", company.slug], msg: "Field is required.", type: "missing", input: null, code: "required" },
      { loc: ["body", "custom_field_data", terms.slug], msg: "Field is required.", type: "missing", input: null, code: "required" },
    ]);
    const data = { [company.slug]: "ACME Corp", [employees.slug]: 42, [plan.slug]: "b", [terms.slug]: true, [birthday.slug]: "1990-05-17" };
    await pay(server, created, { customFieldData: data });
    const [o] = (await seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o?.customFieldData).toEqual(data);
  });
});

describe("payment with the test processor", () => {
  it("tokenizes cards: numbers must pass the Luhn check and expiry must be in the future", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const url = `/v1/checkouts/client/${created.clientSecret}/test-card`;
    const year = new Date().getUTCFullYear();
    const ok = await publicRequest(server, "POST", url, { number: CARDS.ok, exp_month: 1, exp_year: year + 1, cvc: "999" });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ card: { brand: "visa", last4: "4242" } });
    expect(ok.body.confirmation_token_id).toMatch(/^tok_test_/);
    expect(String(ok.body.confirmation_token_id)).not.toContain("4242424242424242");
    const luhn = await publicRequest(server, "POST", url, { number: "4242 4242 4242 4241", exp_month: 1, exp_year: year + 1, cvc: "123" });
    expect(luhn.status).toBe(422);
    expect(issues(luhn.body)[0]).toMatchObject({ loc: ["body", "number"], msg: "Your card number is invalid." });
    const expired = await publicRequest(server, "POST", url, { number: CARDS.ok, exp_month: 1, exp_year: year - 1, cvc: "123" });
    expect(issues(expired.body)[0]).toMatchObject({ msg: "Your card's expiration date is in the past." });
    const shape = await publicRequest(server, "POST", url, { number: CARDS.ok, exp_month: 13, exp_year: "soon", cvc: "12" });
    expect(locs(shape.body)).toEqual([["body", "exp_month"], ["body", "exp_year"], ["body", "cvc"]]);
    expect((await publicRequest(server, "POST", "/v1/checkouts/client/nope/test-card", { number: CARDS.ok })).status).toBe(404);
  });

  it("a token is new for every tokenizing and pays only the checkout it was made for, once", async () => {
    const a = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const b = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const tokenA = await tokenize(server, a.clientSecret);
    // the same card again: another token (a random part), so the card's details do not rebuild one
    expect(await tokenize(server, a.clientSecret)).not.toBe(tokenA);
    const buyer = { customer_email: uniqueBuyer("bound"), customer_name: "Bound", customer_billing_address: { country: "FR" } };
    const onB = await publicRequest(server, "POST", `/v1/checkouts/client/${b.clientSecret}/confirm`, { ...buyer, confirmation_token_id: tokenA });
    expect(onB).toEqual({ status: 400, body: { error: "PaymentError", detail: "The payment details are invalid. Please enter your card again.", code: "invalid_token" } });
    expect((await seller.sdk.checkouts.get({ id: b.id })).status).toBe("open");
    expect((await publicRequest(server, "POST", `/v1/checkouts/client/${a.clientSecret}/confirm`, { ...buyer, confirmation_token_id: tokenA })).status).toBe(200);
    // used: the checkout it paid takes no second payment, and no other checkout takes it
    const again = await publicRequest(server, "POST", `/v1/checkouts/client/${b.clientSecret}/confirm`, { ...buyer, confirmation_token_id: tokenA });
    expect(again.status).toBe(400);
    expect((await seller.sdk.orders.list({ checkoutId: b.id })).result.items).toHaveLength(0);
    expect((await seller.sdk.orders.list({ checkoutId: a.id })).result.items).toHaveLength(1);
  });

  it("a declined card leaves the checkout open and nothing created; the next card succeeds", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const before = await countRows(seller.organizationId);
    const events = (await outboxOf(seller.organizationId)).length;
    const email = uniqueBuyer("decline");
    const attempt = (card: string) => pay(server, created, { customerEmail: email }, card);
    await expect(attempt(CARDS.declined)).rejects.toBeInstanceOf(PaymentError);
    await expect(attempt(CARDS.declined)).rejects.toMatchObject({ error: "PaymentError", detail: "Your card was declined." });
    await expect(attempt(CARDS.insufficient)).rejects.toMatchObject({ detail: "Your card has insufficient funds." });
    const raw400 = await publicRequest(server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, {
      customer_email: email,
      customer_name: "Decline",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await tokenize(server, created.clientSecret, CARDS.declined),
    });
    expect(raw400).toEqual({ status: 400, body: { error: "PaymentError", detail: "Your card was declined.", code: "card_declined" } });
    const bogus = await publicRequest(server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, {
      customer_email: email,
      customer_name: "Decline",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: "tok_forged",
    });
    expect(bogus.status).toBe(400);
    expect((await seller.sdk.checkouts.get({ id: created.id })).status).toBe("open");
    expect(await countRows(seller.organizationId)).toEqual(before);
    expect((await outboxOf(seller.organizationId)).length).toBe(events);

    const confirmed = await attempt(CARDS.ok);
    expect(confirmed).toMatchObject({ status: "confirmed", customerEmail: email, customerSessionToken: expect.stringMatching(/^till_cst_/) });
    expect((await seller.sdk.checkouts.get({ id: created.id })).status).toBe("succeeded");
    expect((await countRows(seller.organizationId)).orders).toBe(before.orders + 1);
  });

  it("two parallel confirms of one checkout make one order; the other is refused as not open", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const token = await tokenize(server, created.clientSecret);
    const body = { customer_email: uniqueBuyer("twice"), customer_name: "Twice", customer_billing_address: { country: "FR" }, confirmation_token_id: token };
    const otherBody = { ...body, customer_email: uniqueBuyer("twice-other") };
    const url = `/v1/checkouts/client/${created.clientSecret}/confirm`;
    const results = await Promise.all([publicRequest(server, "POST", url, body), publicRequest(server, "POST", url, otherBody)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
    const refused = results.find((r) => r.status === 403);
    expect(refused?.body).toEqual({ error: "NotOpenCheckout", detail: `Checkout ${created.id} is not open: succeeded` });
    expect((await seller.sdk.orders.list({ checkoutId: created.id })).result.items).toHaveLength(1);
    await expect(pay(server, created)).rejects.toBeInstanceOf(NotOpenCheckout);
    // the confirm that won, sent again, is its own retry (tests/api/idempotency.test.ts): answered, nothing made
    const won = results[0]?.status === 200 ? body : otherBody;
    expect((await publicRequest(server, "POST", url, won)).status).toBe(200);
    expect((await seller.sdk.orders.list({ checkoutId: created.id })).result.items).toHaveLength(1);
  });
});

describe("fulfilment and the outbox", () => {
  it("writes the flow's events in order, with the API shapes as payloads, in the confirming transaction", async () => {
    const benefit = await seller.sdk.benefits.create({ type: "custom", description: "Welcome note", properties: { note: "Hi" } });
    const product = await createProduct(seller, "monthly");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const created = await seller.sdk.checkouts.create({ products: [product.id], metadata: { source: "test" } });
    const start = (await outboxOf(seller.organizationId)).length;
    const createdEvent = (await outboxOf(seller.organizationId)).at(-1);
    expect(createdEvent).toMatchObject({ type: "checkout.created", payload: { id: created.id, status: "open" } });

    await pay(server, created);
    const events = (await outboxOf(seller.organizationId)).slice(start);
    expect(events.map((e) => e.type)).toEqual([
      "checkout.updated",
      "customer.created",
      "subscription.created",
      "subscription.active",
      "order.created",
      "order.paid",
      "benefit_grant.created",
      "checkout.updated",
      // recorded by reference: the worker computes the state when it fans the event out
      "customer.state_changed",
    ]);
    const [confirmedEvt, customerEvt, subEvt, , orderEvt, , grantEvt, succeededEvt] = events.map((e) => e.payload as Record<string, unknown>);
    expect(confirmedEvt).toMatchObject({ id: created.id, status: "confirmed" });
    expect(succeededEvt).toMatchObject({ id: created.id, status: "succeeded", customer_id: customerEvt?.id });
    const o = (await seller.sdk.orders.list({ checkoutId: created.id })).result.items[0];
    const orderWire = await raw(seller.token, "GET", `/v1/orders/${o?.id}`);
    expect(orderEvt).toEqual(orderWire.body);
    const subWire = await raw(seller.token, "GET", `/v1/subscriptions/${o?.subscriptionId}`);
    expect(subEvt).toEqual(subWire.body);
    expect(grantEvt).toMatchObject({ benefit_id: benefit.id, customer_id: customerEvt?.id, subscription_id: o?.subscriptionId, is_granted: true });
    const grants = await db().select().from(benefitGrant).where(and(eq(benefitGrant.benefitId, benefit.id), eq(benefitGrant.customerId, String(customerEvt?.id))));
    expect(grants).toHaveLength(1);
    expect(grants[0]?.grantedAt).not.toBeNull();
    const grantList = await seller.sdk.benefitGrants.list({ customerId: String(customerEvt?.id) });
    expect(grantList.result.items.map((g) => g.benefitId)).toEqual([benefit.id]);
  });

  it("streams the checkout's status to the customer's page (server-sent events)", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/checkouts/client/${created.clientSecret}/stream`, { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const received: Array<{ key: string; payload: Record<string, unknown> }> = [];
    let buffer = "";
    const readUntil = async (done: () => boolean) => {
      while (!done()) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const message = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (message.startsWith("data: ")) received.push(JSON.parse(message.slice(6)));
        }
      }
    };
    await readUntil(() => received.length >= 1);
    expect(received[0]).toEqual({ key: "checkout.updated", payload: { status: "open" } });
    await pay(server, created);
    await readUntil(() => received.some((e) => e.key === "checkout.webhook_event_delivered"));
    controller.abort();
    const order = (await seller.sdk.orders.list({ checkoutId: created.id })).result.items[0];
    expect(received.slice(1)).toEqual([
      { key: "checkout.updated", payload: { status: "confirmed" } },
      { key: "checkout.order_created", payload: { order_id: order?.id } },
      { key: "checkout.updated", payload: { status: "succeeded" } },
      { key: "checkout.webhook_event_delivered", payload: { status: "succeeded" } },
    ]);
  });
});

describe("expiry", () => {
  it("an open checkout past expires_at reads as expired: 410 for the customer, 403 for the seller's update", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const token = await tokenize(server, created.clientSecret);
    await db().update(checkout).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(checkout.id, created.id));
    const client = publicSdk(server).checkouts;
    await expect(client.clientGet({ clientSecret: created.clientSecret })).rejects.toBeInstanceOf(ExpiredCheckoutError);
    await expect(client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { customerName: "Late" } })).rejects.toMatchObject({
      error: "ExpiredCheckoutError",
      detail: "This checkout session has expired.",
    });
    await expect(pay(server, created, { confirmationTokenId: token }, null)).rejects.toBeInstanceOf(ExpiredCheckoutError);
    expect((await publicRequest(server, "POST", `/v1/checkouts/client/${created.clientSecret}/test-card`, {})).status).toBe(410);
    expect((await seller.sdk.checkouts.get({ id: created.id })).status).toBe("expired");
    await expect(seller.sdk.checkouts.update({ id: created.id, checkoutUpdate: { customerName: "Late" } })).rejects.toMatchObject({
      error: "NotOpenCheckout",
      detail: `Checkout ${created.id} is not open: expired`,
    });
    const expired = await seller.sdk.checkouts.list({ status: "expired" });
    expect(expired.result.items.map((c) => c.id)).toContain(created.id);
    const open = await seller.sdk.checkouts.list({ status: "open", limit: 100 });
    expect(open.result.items.map((c) => c.id)).not.toContain(created.id);
    expect((await seller.sdk.orders.list({ checkoutId: created.id })).result.items).toEqual([]);
  });
});

describe("the seller's update", () => {
  it("updates settings, customer data, metadata and the discount; null clears", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id, custom.id], successUrl: "https://shop.example/thanks?c={CHECKOUT_ID}" });
    expect(created.successUrl).toBe(`https://shop.example/thanks?c=${created.id}`);
    const d = await seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 2000, name: "Twenty" });
    const updated = await seller.sdk.checkouts.update({
      id: created.id,
      checkoutUpdate: {
        productId: custom.id,
        amount: 3000,
        discountId: d.id,
        customerName: "Grace",
        customerEmail: "grace@example.com",
        customerIpAddress: "203.0.113.7",
        metadata: { step: 2 },
        customerMetadata: { vip: true },
        requireBillingAddress: true,
        allowDiscountCodes: false,
        embedOrigin: "https://shop.example/some/page",
        returnUrl: "https://shop.example/back",
      },
    });
    expect(updated).toMatchObject({
      productId: custom.id,
      amount: 3000,
      discountAmount: 600,
      totalAmount: 2400,
      customerName: "Grace",
      customerEmail: "grace@example.com",
      customerIpAddress: "203.0.113.7",
      metadata: { step: 2 },
      customerMetadata: { vip: true },
      requireBillingAddress: true,
      allowDiscountCodes: false,
      embedOrigin: "https://shop.example",
      returnUrl: "https://shop.example/back",
    });
    expect(updated.modifiedAt).not.toBeNull();
    const cleared = await seller.sdk.checkouts.update({ id: created.id, checkoutUpdate: { discountId: null, customerName: null, returnUrl: null } });
    expect(cleared).toMatchObject({ discountId: null, discountAmount: 0, customerName: null, returnUrl: null });
    const types = (await outboxOf(seller.organizationId)).filter((e) => (e.payload as { id?: string }).id === created.id).map((e) => e.type);
    expect(types).toEqual(["checkout.created", "checkout.updated", "checkout.updated"]);
  });
});

describe("validation: 422 for every bad input, nothing written", () => {
  it("refuses malformed create bodies", async () => {
    const before = (await countRows(seller.organizationId)).checkouts;
    const cases: Array<[unknown, Array<string | number>]> = [
      [{}, ["body", "products"]],
      [{ products: [] }, ["body", "products"]],
      [{ products: ["not-a-uuid"] }, ["body", "products", 0]],
      [{ products: [crypto.randomUUID()] }, ["body", "products", 0]],
      [{ products: [fixed.id, fixed.id] }, ["body", "products", 1]],
      [{ products: [fixed.id], amount: "ten" }, ["body", "amount"]],
      [{ products: [fixed.id], amount: 1.5 }, ["body", "amount"]],
      [{ products: [fixed.id], seats: 0 }, ["body", "seats"]],
      [{ products: [fixed.id], success_url: "not a url" }, ["body", "success_url"]],
      [{ products: [fixed.id], success_url: "javascript:alert(1)" }, ["body", "success_url"]],
      [{ products: [fixed.id], embed_origin: "ftp://files.example" }, ["body", "embed_origin"]],
      [{ products: [fixed.id], metadata: { nested: { a: 1 } } }, ["body", "metadata", "nested"]],
      [{ products: [fixed.id], customer_email: "nope" }, ["body", "customer_email"]],
      [{ products: [fixed.id], customer_ip_address: "999.1.1.1" }, ["body", "customer_ip_address"]],
      [{ products: [fixed.id], trial_interval: "fortnight" }, ["body", "trial_interval"]],
      [{ products: [fixed.id], currency: "xxx" }, ["body", "currency"]],
      [{ products: [fixed.id], currency: "eur" }, ["body", "currency"]],
      [{ products: [fixed.id], customer_billing_address: { country: "ZZ" } }, ["body", "customer_billing_address", "country"]],
      [{ products: [fixed.id], prices: { [fixed.id]: [{ amount_type: "free" }] } }, ["body", "prices"]],
      [{ products: [fixed.id], subscription_id: crypto.randomUUID() }, ["body", "subscription_id"]],
      [{ products: [fixed.id], min_seats: 5, max_seats: 2 }, ["body", "max_seats"]],
      [{ products: [fixed.id], custom_field_data: { a: { b: 1 } } }, ["body", "custom_field_data", "a"]],
      ["{broken", ["body"]],
    ];
    for (const [body, loc] of cases) {
      const res = await raw(seller.token, "POST", "/v1/checkouts/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body), JSON.stringify(body)).toContainEqual(loc);
    }
    const archived = await createProduct(seller, "fixed");
    await seller.sdk.products.update({ id: archived.id, productUpdate: { isArchived: true } });
    const res = await raw(seller.token, "POST", "/v1/checkouts/", { products: [archived.id] });
    expect(issues(res.body)[0]).toMatchObject({ loc: ["body", "products", 0], msg: "Product is archived." });
    const foreign = await createProduct(other, "fixed");
    const foreignRes = await raw(seller.token, "POST", "/v1/checkouts/", { products: [foreign.id] });
    expect(issues(foreignRes.body)[0]).toMatchObject({ loc: ["body", "products", 0], msg: "Product does not exist." });
    expect((await countRows(seller.organizationId)).checkouts).toBe(before);
  });

  it("refuses malformed updates, confirms and queries without changing anything", async () => {
    const created = await seller.sdk.checkouts.create({ products: [fixed.id] });
    for (const [body, loc] of [
      [{ customer_email: 12 }, ["body", "customer_email"]],
      [{ allow_trial: true }, ["body", "allow_trial"]],
      [{ seats: -1 }, ["body", "seats"]],
      [{ product_id: "x" }, ["body", "product_id"]],
      [{ customer_billing_address: { line1: "no country" } }, ["body", "customer_billing_address", "country"]],
    ] as const) {
      const res = await publicRequest(server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body)).toContainEqual(loc);
    }
    const confirm = await publicRequest(server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, { confirmation_token_id: 5 });
    expect(locs(confirm.body)).toContainEqual(["body", "confirmation_token_id"]);
    const seller422 = await raw(seller.token, "PATCH", `/v1/checkouts/${created.id}`, { metadata: "x" });
    expect(seller422.status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/checkouts/not-a-uuid")).status).toBe(422);
    for (const q of ["status=closed", "sorting=amount", "product_id=x", "limit=0", "page=abc"]) {
      expect((await raw(seller.token, "GET", `/v1/checkouts/?${q}`)).status, q).toBe(422);
    }
    const after = await seller.sdk.checkouts.get({ id: created.id });
    expect(after).toMatchObject({ modifiedAt: null, customerEmail: null });
    expect(await publicRequest(server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, { customer_email: "a@b.co" })).toMatchObject({ status: 422 });
  });
});

describe("scopes and tenancy", () => {
  it("a key without checkouts:write cannot create or update; a read key can read", async () => {
    const readKey = await seller.createKey({ checkouts: ["read"] });
    const readSdk = sdkFor(server, readKey);
    await expect(readSdk.checkouts.create({ products: [fixed.id] })).rejects.toMatchObject({ statusCode: 403 });
    const created = await seller.sdk.checkouts.create({ products: [fixed.id] });
    expect((await readSdk.checkouts.get({ id: created.id })).id).toBe(created.id);
    expect((await raw(readKey, "PATCH", `/v1/checkouts/${created.id}`, { customer_name: "x" })).status).toBe(403);
    const noKey = await seller.createKey({ products: ["read"] });
    expect((await raw(noKey, "GET", "/v1/checkouts/")).status).toBe(403);
  });

  it("another organization's checkouts are 404 and never listed", async () => {
    const mine = await seller.sdk.checkouts.create({ products: [fixed.id] });
    await expect(other.sdk.checkouts.get({ id: mine.id })).rejects.toBeInstanceOf(ResourceNotFound);
    const res = await raw(other.token, "PATCH", `/v1/checkouts/${mine.id}`, { customer_name: "Mallory" });
    expect(res).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Checkout not found" } });
    const theirs = await other.sdk.checkouts.list({ limit: 100 });
    expect(theirs.result.items.map((c) => c.id)).not.toContain(mine.id);
    const filtered = await seller.sdk.checkouts.list({ organizationId: other.organizationId }).catch((e: unknown) => e);
    expect(filtered).toMatchObject({ statusCode: 404 });
    expect((await seller.sdk.checkouts.get({ id: mine.id })).customerName).toBeNull();
    await expect(seller.sdk.checkouts.update({ id: crypto.randomUUID(), checkoutUpdate: {} })).rejects.toBeInstanceOf(ResourceNotFound);
    expect(HTTPValidationError).toBeTruthy();
  });
});

describe("POST /api/auth/checkout (the app's checkout request)", () => {
  it("opens a checkout for the signed-in user and answers {url, redirect}", async () => {
    const client = new Client(server.url);
    const { user } = await client.signUp(uniqueEmail("shopper"));
    const res = await client.post<{ url: string; redirect: boolean }>("/api/auth/checkout", {
      products: [fixed.id, monthly.id],
      metadata: { campaign: "spring" },
      customFieldData: {},
      allowDiscountCodes: false,
      redirect: false,
      embedOrigin: "https://shop.example",
      successUrl: "/thanks",
    });
    expect(res.status).toBe(200);
    expect(res.body.redirect).toBe(false);
    const secret = res.body.url.split("/checkout/")[1] ?? "";
    expect(res.body.url).toBe(`${server.config.baseURL}/checkout/${secret}`);
    const [row] = await db().select().from(checkout).where(eq(checkout.clientSecret, secret));
    expect(row).toMatchObject({
      organizationId: seller.organizationId,
      externalCustomerId: user.id,
      customerEmail: user.email,
      allowDiscountCodes: false,
      embedOrigin: "https://shop.example",
      successUrl: `${server.config.baseURL}/thanks`,
      metadata: { campaign: "spring" },
      productIds: [fixed.id, monthly.id],
    });
  });

  it("referenceId names the customer; a visitor without a session may check out too", async () => {
    const visitor = new Client(server.url);
    const res = await visitor.post<{ url: string; redirect: boolean }>("/api/auth/checkout", { products: fixed.id, referenceId: "org_42" });
    expect(res.status).toBe(200);
    expect(res.body.redirect).toBe(true);
    const secret = res.body.url.split("/checkout/")[1] ?? "";
    const [row] = await db().select().from(checkout).where(eq(checkout.clientSecret, secret));
    expect(row).toMatchObject({ externalCustomerId: "org_42", metadata: { referenceId: "org_42" }, customerEmail: null });
    const bySlug = await visitor.post<{ url: string }>("/api/auth/checkout", { slug: free.id });
    expect(bySlug.status).toBe(200);
  });

  it("answers errors with the message to show the user", async () => {
    const visitor = new Client(server.url);
    const unknown = await visitor.post<{ message: string }>("/api/auth/checkout", { products: [crypto.randomUUID()] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("Product does not exist. (products.0)");
    const mixed = await visitor.post<{ message: string }>("/api/auth/checkout", { products: [fixed.id, (await createProduct(other, "fixed")).id] });
    expect(mixed.body.message).toBe("Products must all belong to the same organization. (products)");
    const slug = await visitor.post<{ message: string }>("/api/auth/checkout", { slug: "pro-plan" });
    expect(slug).toMatchObject({ status: 400, body: { message: "Product not found" } });
    const none = await visitor.post<{ message: string }>("/api/auth/checkout", {});
    expect(none).toMatchObject({ status: 400, body: { message: "Products are required" } });
    const badBody = await visitor.post<{ message: string; code: string }>("/api/auth/checkout", { products: 5 });
    expect(badBody).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", message: "Invalid body parameters" } });
    const badDiscount = await visitor.post<{ message: string }>("/api/auth/checkout", { products: [fixed.id], discountId: "nope" });
    expect(badDiscount.body.message).toBe("Input should be a valid UUID (discount_id)");
  });
});
