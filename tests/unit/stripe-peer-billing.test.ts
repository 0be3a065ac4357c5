// The Stripe stand-in's Billing objects, driven through the official `stripe` client as till's importer drives
// Stripe: a catalog (tiered prices in several currencies, metered prices on a meter), coupons and promotion codes,
// customers with tax ids and default payment methods, subscriptions (their period on the items), lists with
// `expand[]` and the client's auto-pagination, the hand-over update (cancel_at_period_end and a metadata mark), the
// stand-in's clock ending and renewing subscriptions, and Stripe's rate limit.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StripePeer } from "../helpers/stripe-peer.js";
import { STRIPE_RATE_LIMITS } from "../helpers/stripe-peer-limits.js";

const SECRET = "sk_test_51TillBillingAaaaaaaaaaaaaaa1234";
const READER = "rk_test_51TillBillingReaderBbbbbbbbb1234";
const ACCOUNT = "acct_1TillBilling";

const client = (url: string, key = SECRET) =>
  new Stripe(key, { host: "127.0.0.1", port: Number(new URL(url).port), protocol: "http", telemetry: false, maxNetworkRetries: 0 });

async function refusal(call: Promise<unknown>) {
  const err = await call.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof Stripe.errors.StripeError)) throw new Error(`expected Stripe's error, got ${String(err)}`);
  return { status: err.statusCode, code: err.code, param: err.param, message: err.message, headers: err.headers };
}

describe("the Stripe stand-in's Billing objects", () => {
  const peer = new StripePeer([{ id: ACCOUNT, keys: [{ secret: SECRET }, { secret: READER, permissions: ["customer_read"] }] }]);
  let stripe: Stripe;

  beforeAll(async () => {
    stripe = client(await peer.start());
  });
  afterAll(async () => {
    await peer.stop();
  });

  /** A customer with a saved Visa card as its invoices' default. */
  async function customerWithCard(email: string) {
    const customer = await stripe.customers.create({ email, name: "Ada", address: { country: "DE", city: "Berlin" }, tax_id_data: [{ type: "eu_vat", value: "DE123456789" }] });
    const pm = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: pm.id } });
    return { customer, pm };
  }

  it("keeps a price's tiers and currency options out unless expanded, each currency's tiers by their own path", async () => {
    const product = await stripe.products.create({ name: "API calls", default_price_data: { currency: "usd", unit_amount: 900, recurring: { interval: "month" } } });
    expect(typeof product.default_price).toBe("string");
    const tiered = await stripe.prices.create({
      product: product.id, currency: "usd", billing_scheme: "tiered", tiers_mode: "graduated", recurring: { interval: "month" },
      tiers: [{ up_to: 10, unit_amount: 100 }, { up_to: "inf", unit_amount_decimal: Stripe.Decimal.from("50.5"), flat_amount: 200 }],
      currency_options: { eur: { tiers: [{ up_to: 10, unit_amount: 90 }, { up_to: "inf", unit_amount: 45 }] } },
      transform_quantity: { divide_by: 1, round: "up" }, tax_behavior: "exclusive",
    });
    expect(tiered.tiers).toBeUndefined();
    expect(tiered.currency_options).toBeUndefined();
    const shown = await stripe.prices.retrieve(tiered.id, { expand: ["tiers", "currency_options", "currency_options.eur.tiers", "product"] });
    // the client hands decimal strings over as its Decimal
    expect(shown.tiers?.map((t) => ({ ...t, flat_amount_decimal: t.flat_amount_decimal?.toString() ?? null, unit_amount_decimal: t.unit_amount_decimal?.toString() ?? null }))).toEqual([
      { flat_amount: null, flat_amount_decimal: null, unit_amount: 100, unit_amount_decimal: "100", up_to: 10 },
      { flat_amount: 200, flat_amount_decimal: "200", unit_amount: null, unit_amount_decimal: "50.5", up_to: null },
    ]);
    expect(shown.currency_options?.eur?.tiers?.[1]).toMatchObject({ unit_amount: 45, up_to: null });
    expect((shown.product as Stripe.Product).name).toBe("API calls");
    const onlyOptions = await stripe.prices.retrieve(tiered.id, { expand: ["currency_options"] });
    expect(onlyOptions.currency_options?.eur?.tiers).toBeUndefined();
    const listed = await stripe.prices.list({ product: product.id, expand: ["data.tiers", "data.product"] });
    expect(listed.data.map((p) => p.id)).toEqual([tiered.id, product.default_price]);
    expect(listed.data[0]?.tiers).toHaveLength(2);
    expect(await refusal(stripe.prices.list({ expand: ["data.nickname"] }))).toMatchObject({ status: 400, message: "This property cannot be expanded (data.nickname)." });
    expect(await refusal(stripe.prices.list({ expand: ["tiers"] }))).toMatchObject({ status: 400, message: "This property cannot be expanded (tiers)." });
  });

  it("makes metered prices on a Billing Meter, and refuses a metered price without one", async () => {
    const meter = await stripe.billing.meters.create({
      display_name: "Tokens", event_name: "tokens", default_aggregation: { formula: "sum" },
      customer_mapping: { event_payload_key: "stripe_customer_id", type: "by_id" }, value_settings: { event_payload_key: "tokens" },
    });
    expect(meter).toMatchObject({ object: "billing.meter", status: "active", value_settings: { event_payload_key: "tokens" } });
    const product = await stripe.products.create({ name: "Tokens" });
    const metered = { interval: "month", usage_type: "metered", meter: meter.id } as const;
    const price = await stripe.prices.create({ product: product.id, currency: "usd", unit_amount_decimal: Stripe.Decimal.from("0.25"), recurring: metered });
    expect(price.recurring).toMatchObject({ usage_type: "metered", meter: meter.id });
    const noMeter = stripe.prices.create({ product: product.id, currency: "usd", unit_amount: 1, recurring: { interval: "month", usage_type: "metered" } });
    expect(await refusal(noMeter)).toMatchObject({ status: 400, param: "recurring[meter]" });
    await stripe.billing.meters.deactivate(meter.id);
    expect((await stripe.billing.meters.list({ status: "inactive" })).data.map((m) => m.id)).toEqual([meter.id]);
  });

  it("makes coupons and promotion codes, the code's coupon under promotion.coupon, expandable", async () => {
    const product = await stripe.products.create({ name: "Seats" });
    const coupon = await stripe.coupons.create({
      amount_off: 500, currency: "usd", currency_options: { eur: { amount_off: 450 } }, duration: "repeating", duration_in_months: 3,
      max_redemptions: 10, applies_to: { products: [product.id] },
    });
    expect(coupon.applies_to).toBeUndefined();
    const full = await stripe.coupons.retrieve(coupon.id, { expand: ["applies_to", "currency_options"] });
    expect(full).toMatchObject({ applies_to: { products: [product.id] }, currency_options: { usd: { amount_off: 500 }, eur: { amount_off: 450 } }, duration_in_months: 3, valid: true });
    const restrictions = { first_time_transaction: true, minimum_amount: 1000, minimum_amount_currency: "usd" };
    const code = await stripe.promotionCodes.create({ promotion: { type: "coupon", coupon: coupon.id }, code: "WELCOME", restrictions });
    expect(code.promotion).toEqual({ type: "coupon", coupon: coupon.id });
    const listed = await stripe.promotionCodes.list({ code: "WELCOME", expand: ["data.promotion.coupon"] });
    expect((listed.data[0]?.promotion.coupon as Stripe.Coupon).amount_off).toBe(500);
    expect(await refusal(stripe.promotionCodes.create({ promotion: { type: "coupon", coupon: coupon.id }, code: "welcome" }))).toMatchObject({ status: 400, param: "code" });
  });

  it("lists 250 customers newest first through the client's auto-pagination, with their payment methods and tax ids expanded", async () => {
    const made: string[] = [];
    for (let i = 0; i < 250; i++) made.push((await stripe.customers.create({ email: `c${i}@example.com`, metadata: { i: String(i) } })).id);
    const { customer, pm } = await customerWithCard("ada@example.com");
    const seen: Stripe.Customer[] = [];
    for await (const c of stripe.customers.list({ limit: 100, expand: ["data.invoice_settings.default_payment_method", "data.tax_ids"] })) seen.push(c);
    const ids = seen.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 251)).toEqual([customer.id, ...made.reverse()]);
    const ada = seen[0] as Stripe.Customer;
    expect((ada.invoice_settings.default_payment_method as Stripe.PaymentMethod).id).toBe(pm.id);
    expect(ada.tax_ids?.data.map((t) => [t.type, t.value, t.country])).toEqual([["eu_vat", "DE123456789", "DE"]]);
    expect(ada.address).toMatchObject({ country: "DE", city: "Berlin", line1: null });
    expect(seen[1]?.tax_ids).toEqual({ object: "list", data: [], has_more: false, total_count: 0, url: `/v1/customers/${made[0]}/tax_ids` });
    // ending_before pages back toward the newest
    const back = await stripe.customers.list({ limit: 2, ending_before: made[1] as string });
    expect(back.data.map((c) => c.id)).toEqual([customer.id, made[0]]);
    expect((await stripe.customers.list({ email: "c7@example.com" })).data).toHaveLength(1);
    expect((await stripe.customers.listTaxIds(customer.id)).data).toHaveLength(1);
  });

  it("subscribes a customer: the period on the items, discounts as ids, a first invoice charged to the default method", async () => {
    const { customer, pm } = await customerWithCard("sub@example.com");
    const price = await stripe.prices.create({ product_data: { name: "Pro" }, currency: "usd", unit_amount: 1200, recurring: { interval: "month" } });
    const coupon = await stripe.coupons.create({ percent_off: 25, duration: "forever" });
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id, quantity: 2 }], discounts: [{ coupon: coupon.id }], metadata: { plan: "pro" } });
    const [item] = sub.items.data;
    expect(sub).toMatchObject({ status: "active", customer: customer.id, currency: "usd", cancel_at_period_end: false, metadata: { plan: "pro" } });
    expect(sub).not.toHaveProperty("current_period_end");
    expect(item?.price.id).toBe(price.id);
    expect(item?.quantity).toBe(2);
    expect(new Date((item?.current_period_end ?? 0) * 1000).getUTCMonth()).toBe((new Date((item?.current_period_start ?? 0) * 1000).getUTCMonth() + 1) % 12);
    expect(sub.discounts).toEqual([expect.stringMatching(/^di_/)]);
    const expanded = await stripe.subscriptions.retrieve(sub.id, { expand: ["discounts", "default_payment_method", "customer", "items.data.price.product"] });
    expect(((expanded.discounts[0] as Stripe.Discount).source.coupon as string)).toBe(coupon.id);
    expect((expanded.customer as Stripe.Customer).email).toBe("sub@example.com");
    expect((expanded.items.data[0]?.price.product as Stripe.Product).name).toBe("Pro");
    expect(peer.billing.invoices.filter((i) => i.subscription === sub.id)).toMatchObject([{ status: "paid", amount_paid: 1800, payment_method: pm.id, billing_reason: "subscription_create" }]);
    const trial = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], trial_period_days: 14 });
    expect(trial.status).toBe("trialing");
    expect(trial.items.data[0]?.current_period_end).toBe(trial.trial_end);
    const past = stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], trial_end: Math.floor(Date.now() / 1000) - 60 });
    expect(await refusal(past)).toMatchObject({ status: 400, param: "trial_end" });
  });

  it("hands a subscription over and back: cancel_at_period_end and a metadata mark merged, then removed", async () => {
    const { customer } = await customerWithCard("handover@example.com");
    const price = await stripe.prices.create({ product_data: { name: "Team" }, currency: "usd", unit_amount: 500, recurring: { interval: "year" } });
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], metadata: { team: "a" } });
    const handed = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true, metadata: { till_import: "imp_1" } });
    expect(handed).toMatchObject({ cancel_at_period_end: true, cancel_at: sub.items.data[0]?.current_period_end, metadata: { team: "a", till_import: "imp_1" } });
    const back = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: false, metadata: { till_import: "" } });
    expect(back).toMatchObject({ cancel_at_period_end: false, cancel_at: null, canceled_at: null, metadata: { team: "a" } });
    expect(peer.events.filter((e) => e.type === "customer.subscription.updated" && e.object.id === sub.id)).toHaveLength(2);
  });

  it("lists subscriptions by status (not canceled by default, all, canceled) and customer", async () => {
    const { customer } = await customerWithCard("lists@example.com");
    const price = await stripe.prices.create({ product_data: { name: "Basic" }, currency: "usd", unit_amount: 100, recurring: { interval: "week" } });
    const kept = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    const gone = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    expect((await stripe.subscriptions.cancel(gone.id)).status).toBe("canceled");
    const ids = async (status?: Stripe.SubscriptionListParams.Status) => (await stripe.subscriptions.list({ customer: customer.id, ...(status ? { status } : {}) })).data.map((s) => s.id);
    expect(await ids()).toEqual([kept.id]);
    expect(await ids("all")).toEqual([gone.id, kept.id]);
    expect(await ids("canceled")).toEqual([gone.id]);
  });

  it("moves the account's clock: a subscription set to cancel ends, another renews with an invoice, a failed payment is past_due", async () => {
    const { customer, pm } = await customerWithCard("clock@example.com");
    const price = await stripe.prices.create({ product_data: { name: "Monthly" }, currency: "usd", unit_amount: 700, recurring: { interval: "month" } });
    const ending = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    await stripe.subscriptions.update(ending.id, { cancel_at_period_end: true });
    const renewing = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    const end = renewing.items.data[0]?.current_period_end ?? 0;
    const res = await fetch(`${peer.url}/test-control/billing/advance`, {
      method: "POST", headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ account: ACCOUNT, to: String(end + 60) }),
    });
    expect(res.status).toBe(200);
    expect(await stripe.subscriptions.retrieve(ending.id)).toMatchObject({ status: "canceled", ended_at: ending.items.data[0]?.current_period_end });
    const renewed = await stripe.subscriptions.retrieve(renewing.id);
    expect(renewed.status).toBe("active");
    expect(renewed.items.data[0]?.current_period_start).toBe(end);
    expect(peer.billing.invoices.filter((i) => i.subscription === renewing.id).map((i) => [i.billing_reason, i.status, i.amount_paid, i.payment_method])).toEqual([
      ["subscription_create", "paid", 700, pm.id],
      ["subscription_cycle", "paid", 700, pm.id],
    ]);
    expect(peer.events.some((e) => e.type === "customer.subscription.deleted" && e.object.id === ending.id)).toBe(true);
    const failed = await fetch(`${peer.url}/test-control/billing/subscriptions/${renewing.id}/past_due`, { method: "POST", headers: { authorization: `Bearer ${SECRET}` } });
    expect(((await failed.json()) as { status: string }).status).toBe("past_due");
    const invoices = await fetch(`${peer.url}/test-control/billing/invoices?subscription=${renewing.id}`, { headers: { authorization: `Bearer ${SECRET}` } });
    const listed = (await invoices.json()) as { data: Array<{ status: string; billing_reason: string }> };
    expect(listed.data.map((i) => i.status)).toEqual(["paid", "paid", "open"]);
    // objects made after the clock moved are made at the account's time
    expect((await stripe.customers.create({})).created).toBeGreaterThanOrEqual(end + 60);
  });

  it("refuses a parameter the package's types lack, and a restricted key without the permission", async () => {
    const params = { customer: "cus_x", items: [], discount: "x" } as unknown as Stripe.SubscriptionCreateParams;
    expect(await refusal(stripe.subscriptions.create(params))).toMatchObject({ status: 400, code: "parameter_unknown", param: "discount" });
    const reader = client(peer.url, READER);
    expect((await reader.customers.list({ limit: 1 })).data).toHaveLength(1);
    expect(await refusal(reader.subscriptions.list())).toMatchObject({ status: 403 });
  });

  it("answers 429 like Stripe beyond the account's requests a second when limited, and counts the requests served", async () => {
    peer.limits.rateLimit = { test: 5 };
    try {
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      const answers = await Promise.all(Array.from({ length: 8 }, () => stripe.products.list({ limit: 1 }).then(() => 200, async (e: unknown) => refusal(Promise.reject(e)))));
      const limited = answers.filter((a) => a !== 200);
      expect(limited.length).toBeGreaterThanOrEqual(3);
      expect(limited[0]).toMatchObject({ status: 429, code: "rate_limit", message: "Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits." });
      expect((limited[0] as { headers: Record<string, string> }).headers["stripe-rate-limited-reason"]).toBe("global-rate");
      expect((limited[0] as { headers: Record<string, string> }).headers["stripe-should-retry"]).toBeUndefined();
    } finally {
      peer.limits.rateLimit = undefined;
    }
    expect(STRIPE_RATE_LIMITS).toEqual({ test: 25, live: 100 });
    expect(peer.limits.servedFor(ACCOUNT)).toBeGreaterThan(250);
  });
});
