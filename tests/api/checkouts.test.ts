// /v1/checkouts through @polar-sh/sdk 0.47.1 (list/get/create again through 0.49.0): every price kind,
// several products, seats, trials, expiry and the seller's update. Validation, scopes and tenancy:
// checkouts-validation.test.ts; discounts, custom fields and customer data: checkouts-customer.test.ts; paying and
// fulfilment: checkouts-payment.test.ts.
import { eq } from "drizzle-orm";
import { ExpiredCheckoutError } from "@polar-sh/sdk/models/errors/expiredcheckouterror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { describe, expect, it } from "vitest";
import { checkout } from "../../server/db/schema/index.js";
import { issues } from "../helpers/api.js";
import { pay, publicRequest, publicSdk, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { checkoutFixture } from "./checkouts-fixtures.js";

const fx = checkoutFixture();

const HOUR = 3600_000;

describe("create and read (SDK 0.47.1)", () => {
  it("creates a checkout for a fixed price with Polar's defaults", async () => {
    const before = Date.now();
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], metadata: { order_ref: "A-1", qty: 2, gift: true } });
    expect(created).toMatchObject({
      status: "open",
      paymentProcessor: "stripe",
      amount: 2500,
      discountAmount: 0,
      netAmount: 2500,
      taxAmount: null,
      totalAmount: 2500,
      currency: "usd",
      organizationId: fx.seller.organizationId,
      productId: fx.fixed.id,
      productPriceId: fx.fixed.prices[0]?.id,
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
    expect(created.url).toBe(`${fx.server.config.baseURL}/checkout/${created.clientSecret}`);
    expect(created.successUrl).toBe(`${created.url}/confirmation`);
    const ttl = created.expiresAt.getTime() - before;
    expect(ttl).toBeGreaterThan(24 * HOUR - 60_000);
    expect(ttl).toBeLessThanOrEqual(24 * HOUR + 1000);
    expect(created.products.map((p) => p.id)).toEqual([fx.fixed.id]);
    expect(created.product?.prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 2500 });
    expect(Object.keys(created.prices ?? {})).toEqual([fx.fixed.id]);
    expect(created.paymentProcessorMetadata).toMatchObject({
      processor: "test",
      tokenize_url: `${fx.server.config.baseURL}/v1/checkouts/client/${created.clientSecret}/test-card`,
    });

    const got = await fx.seller.sdk.checkouts.get({ id: created.id });
    expect(got).toEqual(created);
    const page = await fx.seller.sdk.checkouts.list({ productId: fx.fixed.id });
    expect(page.result.items.map((c) => c.id)).toContain(created.id);
  });

  it("shows the customer's page the public shape with the organization, without seller metadata", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], metadata: { secret: "seller-only" } });
    const page = await publicSdk(fx.server).checkouts.clientGet({ clientSecret: created.clientSecret });
    expect(page.organization).toMatchObject({ id: fx.seller.organizationId, slug: fx.seller.slug, prorationBehavior: "prorate", allowCustomerUpdates: true });
    const wire = await publicRequest(fx.server, "GET", `/v1/checkouts/client/${created.clientSecret}`);
    expect(wire.status).toBe(200);
    expect(wire.body).not.toHaveProperty("metadata");
    expect(wire.body).not.toHaveProperty("customer_metadata");
    expect(wire.body.id).toBe(created.id);
    expect((await publicRequest(fx.server, "GET", "/v1/checkouts/client/till_c_unknown")).status).toBe(404);
    await expect(publicSdk(fx.server).checkouts.clientGet({ clientSecret: "x".repeat(90) })).rejects.toBeInstanceOf(ResourceNotFound);
  });

  it("offers several products; the customer picks one by price (product_price_id) or by product", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id, fx.monthly.id, fx.custom.id] });
    expect(created.productId).toBe(fx.fixed.id);
    expect(created.products.map((p) => p.id)).toEqual([fx.fixed.id, fx.monthly.id, fx.custom.id]);
    const client = publicSdk(fx.server).checkouts;
    const toMonthly = await client.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: { productPriceId: fx.monthly.prices[0]?.id },
    });
    expect(toMonthly).toMatchObject({ productId: fx.monthly.id, amount: 900, isPaymentSetupRequired: true });
    const toCustom = await client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { productId: fx.custom.id } });
    expect(toCustom).toMatchObject({ productId: fx.custom.id, productPriceId: fx.custom.prices[0]?.id, amount: 1500 });
    const foreign = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { product_price_id: fx.free.prices[0]?.id });
    expect(foreign.status).toBe(422);
    expect(issues(foreign.body)[0]).toMatchObject({ loc: ["body", "product_price_id"], msg: "Price is not available in this checkout." });
    const notOffered = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { product_id: fx.free.id });
    expect(issues(notOffered.body)[0]).toMatchObject({ loc: ["body", "product_id"], msg: "Product is not available in this checkout." });
  });

  it("lists with filters, sorting and pagination", async () => {
    const a = await fx.seller.sdk.checkouts.create({ products: [fx.free.id], customerEmail: "list-a@example.com" });
    const b = await fx.seller.sdk.checkouts.create({ products: [fx.free.id], customerEmail: "list-b@example.com" });
    const byQuery = await fx.seller.sdk.checkouts.list({ query: "list-a@" });
    expect(byQuery.result.items.map((c) => c.id)).toEqual([a.id]);
    const byProduct = await fx.seller.sdk.checkouts.list({ productId: fx.free.id, sorting: ["created_at"] });
    const ids = byProduct.result.items.map((c) => c.id);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
    const paged = await fx.seller.sdk.checkouts.list({ productId: fx.free.id, limit: 1, page: 2 });
    expect(paged.result.items).toHaveLength(1);
    expect(paged.result.pagination.maxPage).toBe(paged.result.pagination.totalCount);
    const open = await fx.seller.sdk.checkouts.list({ status: "open", productId: fx.free.id });
    expect(open.result.items.length).toBeGreaterThanOrEqual(2);
  });

  it("works through SDK 0.49.0 (create, get, list)", async () => {
    const created = await fx.seller.sdk049.checkouts.create({ products: [fx.monthly.id, fx.fixed.id] });
    expect(created).toMatchObject({ status: "open", amount: 900, productId: fx.monthly.id });
    expect(await fx.seller.sdk049.checkouts.get({ id: created.id })).toMatchObject({ id: created.id });
    const page = await fx.seller.sdk049.checkouts.list({ productId: fx.monthly.id });
    expect(page.result.items.map((c) => c.id)).toContain(created.id);
  });
});

describe("price kinds", () => {
  it("pay what you want: the preset by default, the customer's amount within the bounds", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.custom.id] });
    expect(created.amount).toBe(1500);
    const chosen = await fx.seller.sdk.checkouts.create({ products: [fx.custom.id], amount: 4000 });
    expect(chosen.amount).toBe(4000);
    for (const [amount, msg, type] of [
      [100, "Amount is below minimum.", "greater_than_equal"],
      [20_000, "Amount is above maximum.", "less_than_equal"],
    ] as const) {
      const res = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", { products: [fx.custom.id], amount });
      expect(res.status).toBe(422);
      expect(issues(res.body)[0]).toMatchObject({ loc: ["body", "amount"], msg, type, input: amount });
      const upd = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { amount });
      expect(upd.status).toBe(422);
    }
    const updated = await publicSdk(fx.server).checkouts.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { amount: 777 } });
    expect(updated).toMatchObject({ amount: 777, totalAmount: 777 });
    await pay(fx.server, created);
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ subtotalAmount: 777, totalAmount: 777, billingReason: "purchase" });
  });

  it("a free price needs no payment: confirmed without a card", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.free.id] });
    expect(created).toMatchObject({
      amount: 0,
      totalAmount: 0,
      isFreeProductPrice: true,
      isPaymentRequired: false,
      isPaymentSetupRequired: false,
      isPaymentFormRequired: false,
      billingAddressFields: { country: "optional", line1: "disabled" },
    });
    const confirmed = await publicSdk(fx.server).checkouts.clientConfirm({
      clientSecret: created.clientSecret,
      checkoutConfirmStripe: { customerEmail: uniqueBuyer("free") },
    });
    expect(confirmed.status).toBe("confirmed");
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ status: "paid", paid: true, totalAmount: 0, items: [{ amount: 0 }] });
  });

  it("seats: the tier of the seat count prices every seat; bounds are 422", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.seats.id], seats: 3 });
    expect(created).toMatchObject({ seats: 3, amount: 3000 });
    expect((await fx.raw(fx.seller.token, "GET", `/v1/checkouts/${created.id}`)).body.price_per_seat).toBe(1000);
    const more = await publicSdk(fx.server).checkouts.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { seats: 5 } });
    expect(more).toMatchObject({ seats: 5, amount: 4000 });
    const tooMany = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, { seats: 21 });
    expect(tooMany.status).toBe(422);
    expect(issues(tooMany.body)[0]).toMatchObject({ loc: ["body", "seats"], msg: "Seats must be at most 20." });
    const notSeats = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", { products: [fx.fixed.id], seats: 2 });
    expect(issues(notSeats.body)[0]).toMatchObject({ loc: ["body", "seats"], msg: "Seats can only be set for seat-based pricing." });
    const bounded = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", { products: [fx.seats.id], seats: 2, min_seats: 3 });
    expect(issues(bounded.body)[0]).toMatchObject({ loc: ["body", "seats"], msg: "Seats must be at least 3." });
    const confirmed = await pay(fx.server, more);
    expect(confirmed.amount).toBe(4000);
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: fx.seats.id })).result.items;
    expect(sub).toMatchObject({ seats: 5, amount: 4000, status: "active" });
  });

  it("metered prices charge nothing up front but save the card for usage", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.metered.id] });
    expect(created).toMatchObject({ amount: 0, isPaymentRequired: false, isPaymentSetupRequired: true, isPaymentFormRequired: true });
    const noCard = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, {
      customer_email: uniqueBuyer(),
      customer_name: "Meter Buyer",
      customer_billing_address: { country: "DE" },
    });
    expect(noCard.status).toBe(422);
    expect(issues(noCard.body)).toEqual([
      { loc: ["body", "confirmation_token_id"], msg: "Confirmation token is required.", type: "missing", input: null, code: "required" },
    ]);
    await pay(fx.server, created);
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ totalAmount: 0, billingReason: "subscription_create", items: [] });
    const sub = await fx.seller.sdk.subscriptions.get({ id: o?.subscriptionId ?? "" });
    expect(sub.prices.map((p) => p.id)).toEqual([fx.metered.prices[0]?.id]);
  });
});

describe("trials", () => {
  it("starts a trial from the product: nothing charged, the card saved, the subscription trialing until trial_end", async () => {
    const before = Date.now();
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.trial.id] });
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
    await pay(fx.server, created);
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: fx.trial.id })).result.items;
    expect(sub).toMatchObject({ status: "trialing", amount: 1200, recurringInterval: "month", checkoutId: created.id });
    expect(sub?.trialEnd?.getTime()).toBe(sub?.currentPeriodEnd.getTime());
    expect(sub?.trialStart?.getTime()).toBe(sub?.currentPeriodStart.getTime());
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items;
    expect(o).toMatchObject({ totalAmount: 0, billingReason: "subscription_create", subscriptionId: sub?.id });
    const types = (await fx.outboxOf(fx.seller.organizationId)).filter((e) => (e.payload as { id?: string }).id === sub?.id).map((e) => e.type);
    expect(types).toEqual(["subscription.created"]);
  });

  it("the checkout's own trial overrides the product's; a customer may decline the trial and pay now", async () => {
    const weekly = await fx.seller.sdk.checkouts.create({ products: [fx.trial.id], trialInterval: "week", trialIntervalCount: 2 });
    expect(weekly).toMatchObject({ activeTrialInterval: "week", activeTrialIntervalCount: 2 });
    const none = await fx.seller.sdk.checkouts.create({ products: [fx.monthly.id], trialInterval: "month", trialIntervalCount: 1 });
    expect(none.trialEnd).not.toBeNull();
    const declined = await publicSdk(fx.server).checkouts.clientUpdate({ clientSecret: weekly.clientSecret, checkoutUpdatePublic: { allowTrial: false } });
    expect(declined).toMatchObject({ trialEnd: null, activeTrialInterval: null, isPaymentRequired: true });
    const off = await fx.seller.sdk.checkouts.create({ products: [fx.trial.id], allowTrial: false });
    expect(off.trialEnd).toBeNull();
    await pay(fx.server, declined);
    const [sub] = (await fx.seller.sdk.subscriptions.list({ productId: fx.trial.id, sorting: ["-started_at"] })).result.items;
    expect(sub).toMatchObject({ status: "active", trialEnd: null, checkoutId: weekly.id });
  });
});

describe("expiry", () => {
  it("an open checkout past expires_at reads as expired: 410 for the customer, 403 for the seller's update", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const token = await tokenize(fx.server, created.clientSecret);
    await fx.db().update(checkout).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(checkout.id, created.id));
    const client = publicSdk(fx.server).checkouts;
    await expect(client.clientGet({ clientSecret: created.clientSecret })).rejects.toBeInstanceOf(ExpiredCheckoutError);
    await expect(client.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { customerName: "Late" } })).rejects.toMatchObject({
      error: "ExpiredCheckoutError",
      detail: "This checkout session has expired.",
    });
    await expect(pay(fx.server, created, { confirmationTokenId: token }, null)).rejects.toBeInstanceOf(ExpiredCheckoutError);
    expect((await publicRequest(fx.server, "POST", `/v1/checkouts/client/${created.clientSecret}/test-card`, {})).status).toBe(410);
    expect((await fx.seller.sdk.checkouts.get({ id: created.id })).status).toBe("expired");
    await expect(fx.seller.sdk.checkouts.update({ id: created.id, checkoutUpdate: { customerName: "Late" } })).rejects.toMatchObject({
      error: "NotOpenCheckout",
      detail: `Checkout ${created.id} is not open: expired`,
    });
    const expired = await fx.seller.sdk.checkouts.list({ status: "expired" });
    expect(expired.result.items.map((c) => c.id)).toContain(created.id);
    const open = await fx.seller.sdk.checkouts.list({ status: "open", limit: 100 });
    expect(open.result.items.map((c) => c.id)).not.toContain(created.id);
    expect((await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items).toEqual([]);
  });
});

describe("the seller's update", () => {
  it("updates settings, customer data, metadata and the discount; null clears", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id, fx.custom.id], successUrl: "https://shop.example/thanks?c={CHECKOUT_ID}" });
    expect(created.successUrl).toBe(`https://shop.example/thanks?c=${created.id}`);
    const d = await fx.seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 2000, name: "Twenty" });
    const updated = await fx.seller.sdk.checkouts.update({
      id: created.id,
      checkoutUpdate: {
        productId: fx.custom.id,
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
      productId: fx.custom.id,
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
    const cleared = await fx.seller.sdk.checkouts.update({ id: created.id, checkoutUpdate: { discountId: null, customerName: null, returnUrl: null } });
    expect(cleared).toMatchObject({ discountId: null, discountAmount: 0, customerName: null, returnUrl: null });
    const types = (await fx.outboxOf(fx.seller.organizationId)).filter((e) => (e.payload as { id?: string }).id === created.id).map((e) => e.type);
    expect(types).toEqual(["checkout.created", "checkout.updated", "checkout.updated"]);
  });
});
