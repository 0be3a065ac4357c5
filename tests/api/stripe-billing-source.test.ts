// The importer's Stripe side end to end: a sandbox organization connected to the Stripe stand-in, its account seeded
// through the official `stripe` client (a catalog with tiers in two currencies, a metered price, coupons and codes,
// more than a page of customers with tax ids and cards, subscriptions in several states), read through the
// organization's BillingSource (ProcessorAccounts.billingSource) into the neutral types at Stripe's pace, and
// subscriptions handed over to till and back, idempotently.
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeConnection } from "../../server/db/schema/index.js";
import type { BillingSource, SourceSnapshot } from "../../server/payments/billing-import.js";
import { serverProcessorAccounts } from "../../server/payments/index.js";
import { createStripeBillingSource } from "../../server/payments/stripe/billing-import/index.js";
import { stripeClient } from "../../server/payments/stripe/client.js";
import { TEST_SECRET } from "../helpers/server.js";
import { StripePeer } from "../helpers/stripe-peer.js";
import { STRIPE_RATE_LIMITS } from "../helpers/stripe-peer-limits.js";
import { STRIPE_KEYS, startStripeSandbox, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let sandbox: StripeSandbox;
let stripe: Stripe;
let source: BillingSource;
let snapshot: SourceSnapshot;
const pages: Array<[string, number]> = [];
const seeded = { customers: 0 } as { customers: number; pro: string; api: string; tokens: string; old: string; active: string; trialing: string; canceled: string; code: string };

const accounts = () => serverProcessorAccounts(sandbox.server.config, TEST_SECRET);
const sandboxOrganization = async () => {
  const [row] = await sandbox.server.database.db.select({ id: stripeConnection.organizationId }).from(stripeConnection).where(eq(stripeConnection.livemode, false));
  if (!row) throw new Error("no sandbox connection");
  return row.id;
};

async function seed() {
  const meter = await stripe.billing.meters.create({
    display_name: "Tokens", event_name: "tokens", default_aggregation: { formula: "sum" },
    customer_mapping: { event_payload_key: "stripe_customer_id", type: "by_id" }, value_settings: { event_payload_key: "tokens" },
  });
  const pro = await stripe.products.create({
    name: "Pro", default_price_data: { currency: "usd", unit_amount: 1000, recurring: { interval: "month" }, currency_options: { eur: { unit_amount: 900 } } },
  });
  const apiProduct = await stripe.products.create({ name: "API" });
  const api = await stripe.prices.create({
    product: apiProduct.id, currency: "usd", billing_scheme: "tiered", tiers_mode: "graduated", recurring: { interval: "month" },
    tiers: [{ up_to: 1000, unit_amount: 0 }, { up_to: "inf", unit_amount_decimal: Stripe.Decimal.from("0.5"), flat_amount: 200 }],
    currency_options: { eur: { tiers: [{ up_to: 1000, unit_amount: 0 }, { up_to: "inf", unit_amount: 1 }] } },
  });
  const tokens = await stripe.prices.create({
    product: apiProduct.id, currency: "usd", unit_amount_decimal: Stripe.Decimal.from("0.25"), recurring: { interval: "month", usage_type: "metered", meter: meter.id },
  });
  const old = await stripe.prices.create({ product: pro.id, currency: "usd", unit_amount: 800, recurring: { interval: "month" }, nickname: "2024 price" });
  await stripe.prices.update(old.id, { active: false });
  await stripe.prices.create({ product: pro.id, currency: "usd", custom_unit_amount: { enabled: true, minimum: 500, preset: 1500 } });
  const coupon = await stripe.coupons.create({ percent_off: 20, duration: "repeating", duration_in_months: 3, applies_to: { products: [pro.id] } });
  await stripe.coupons.create({ amount_off: 500, currency: "usd", duration: "once", currency_options: { eur: { amount_off: 450 } } });
  const code = await stripe.promotionCodes.create({
    promotion: { type: "coupon", coupon: coupon.id }, code: "WELCOME20", restrictions: { first_time_transaction: true, minimum_amount: 2000, minimum_amount_currency: "usd" },
  });
  const customers: Stripe.Customer[] = [];
  for (let i = 0; i < 105; i++) {
    customers.push(await stripe.customers.create({ email: `buyer${i}@example.com`, name: `Buyer ${i}`, address: { country: "de", city: "Berlin" } }));
  }
  const [ada, grace, linus] = customers as [Stripe.Customer, Stripe.Customer, Stripe.Customer];
  await stripe.customers.createTaxId(ada.id, { type: "eu_vat", value: "DE123456789" });
  for (const c of [ada, grace, linus]) {
    const pm = await stripe.paymentMethods.attach("pm_card_visa", { customer: c.id });
    await stripe.customers.update(c.id, { invoice_settings: { default_payment_method: pm.id } });
  }
  const active = await stripe.subscriptions.create({ customer: ada.id, items: [{ price: pro.default_price as string, quantity: 3 }], discounts: [{ coupon: coupon.id }] });
  const trialing = await stripe.subscriptions.create({ customer: grace.id, items: [{ price: api.id }, { price: tokens.id }], trial_period_days: 14 });
  const canceled = await stripe.subscriptions.create({ customer: linus.id, items: [{ price: pro.default_price as string }] });
  await stripe.subscriptions.cancel(canceled.id);
  Object.assign(seeded, { customers: customers.length, pro: pro.id, api: api.id, tokens: tokens.id, old: old.id, active: active.id, trialing: trialing.id, canceled: canceled.id, code: code.id });
}

beforeAll(async () => {
  sandbox = await startStripeSandbox();
  stripe = new Stripe(STRIPE_KEYS.secret, { host: "127.0.0.1", port: Number(new URL(sandbox.peer.url).port), protocol: "http", telemetry: false });
  await seed();
  const found = await accounts().billingSource(sandbox.server.database.db, await sandboxOrganization());
  if (!found) throw new Error("no billing source");
  source = found;
  snapshot = await source.read((kind, read) => pages.push([kind, read]));
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
});

describe("reading the account", () => {
  it("is the connected account's, in test mode; an organization without a connection has no source", async () => {
    expect(snapshot.account).toEqual({ id: "acct_1TillPay", livemode: false });
    expect(await accounts().billingSource(sandbox.server.database.db, sandbox.seller.organizationId)).toBeNull();
  });

  it("reads products with every price, active or not, tiers and other currencies' tiers included", () => {
    const pro = snapshot.products.find((p) => p.id === seeded.pro);
    expect(pro?.prices.map((p) => p.id).sort()).toContain(seeded.old);
    expect(pro?.prices.find((p) => p.id === seeded.old)).toMatchObject({ active: false, nickname: "2024 price", unitAmount: "800" });
    expect(pro?.prices.find((p) => p.id === pro.defaultPriceId)).toMatchObject({ unitAmount: "1000", currencyOptions: { eur: { unitAmount: "900", tiers: null } } });
    expect(pro?.prices.find((p) => p.custom)).toMatchObject({ type: "one_time", custom: { minimum: 500, maximum: null, preset: 1500 }, unitAmount: null });
    const api = snapshot.products.flatMap((p) => p.prices).find((p) => p.id === seeded.api);
    expect(api?.tiers).toEqual({ mode: "graduated", tiers: [{ upTo: 1000, unitAmount: "0", flatAmount: 0 }, { upTo: null, unitAmount: "0.5", flatAmount: 200 }] });
    expect(api?.currencyOptions.eur?.tiers?.tiers).toEqual([{ upTo: 1000, unitAmount: "0", flatAmount: 0 }, { upTo: null, unitAmount: "1", flatAmount: 0 }]);
    const tokens = snapshot.products.flatMap((p) => p.prices).find((p) => p.id === seeded.tokens);
    expect(tokens).toMatchObject({ usage: "metered", meterId: snapshot.meters[0]?.id, unitAmount: "0.25" });
    expect(snapshot.meters).toMatchObject([{ name: "Tokens", eventName: "tokens", aggregation: "sum", valueKey: "tokens", customerKey: "stripe_customer_id", active: true }]);
  });

  it("reads coupons with their products and currencies, and codes with their coupon and restrictions", () => {
    expect(snapshot.coupons).toHaveLength(2);
    expect(snapshot.coupons.find((c) => c.percentOff === 20)).toMatchObject({ productIds: [seeded.pro], duration: "repeating", durationInMonths: 3 });
    expect(snapshot.coupons.find((c) => c.amountOff)).toMatchObject({ amountOff: { amount: 500, currency: "usd" }, amountOffOptions: { eur: 450 }, productIds: null });
    expect(snapshot.promotionCodes).toMatchObject([{ id: seeded.code, code: "WELCOME20", firstTimeOnly: true, minimumAmount: { amount: 2000, currency: "usd" } }]);
  });

  it("reads every customer past the first page, with tax ids, upper-case countries and default cards", () => {
    expect(snapshot.customers).toHaveLength(seeded.customers);
    expect(pages.filter(([kind]) => kind === "customers")).toEqual([["customers", 100], ["customers", seeded.customers]]);
    const ada = snapshot.customers.find((c) => c.email === "buyer0@example.com");
    expect(ada).toMatchObject({ taxIds: [{ type: "eu_vat", value: "DE123456789" }], address: { country: "DE", city: "Berlin" } });
    expect(ada?.defaultPaymentMethod).toMatchObject({ type: "card", brand: "visa", last4: "4242" });
    expect(snapshot.customers.find((c) => c.email === "buyer50@example.com")?.defaultPaymentMethod).toBeNull();
  });

  it("reads the subscriptions that still renew (not the canceled one): items, coupons, the items' period, the trial", () => {
    expect(snapshot.subscriptions.map((s) => s.id).sort()).toEqual([seeded.active, seeded.trialing].sort());
    const active = snapshot.subscriptions.find((s) => s.id === seeded.active);
    expect(active).toMatchObject({ status: "active", collection: "automatic", currency: "usd", couponIds: [snapshot.coupons.find((c) => c.percentOff)?.id], movedTo: null });
    expect(active?.items).toMatchObject([{ quantity: 3 }]);
    expect(active!.currentPeriodEnd.getTime()).toBeGreaterThan(active!.currentPeriodStart.getTime());
    const trialing = snapshot.subscriptions.find((s) => s.id === seeded.trialing);
    expect(trialing).toMatchObject({ status: "trialing" });
    expect(trialing?.items.map((i) => [i.priceId, i.quantity])).toEqual([[seeded.api, 1], [seeded.tokens, null]]);
    expect(trialing?.trialEnd?.getTime()).toBe(trialing?.currentPeriodEnd.getTime());
  });

  it("counts its requests: a page per list, one price read again for its euro tiers", () => {
    // products, prices (active, inactive), meters, coupons, codes, customers (two pages), subscriptions, the API price
    expect(source.requests).toEqual({ sent: 10, throttled: 0, limit: 25 });
  });
});

describe("handing subscriptions over and back", () => {
  const posts = (from: number) => sandbox.peer.requests.slice(from).filter((r) => r.method === "POST");

  it("ends it with its period, marked with till's subscription; sent again, nothing more is sent", async () => {
    const before = sandbox.peer.requests.length;
    const handed = await source.handOver(seeded.active, "till-sub-1");
    expect(handed).toMatchObject({ id: seeded.active, status: "active", cancelAtPeriodEnd: true, cancelAt: null, movedTo: "till-sub-1" });
    expect(handed.metadata).toEqual({ till_subscription_id: "till-sub-1", moved_to_till_at: handed.currentPeriodEnd.toISOString() });
    expect(posts(before)).toMatchObject([{ path: `/v1/subscriptions/${seeded.active}`, idempotencyKey: "till-handover-till-sub-1" }]);
    expect(await source.handOver(seeded.active, "till-sub-1")).toEqual(handed);
    expect(await source.readSubscription(seeded.active)).toEqual(handed);
    expect(posts(before)).toHaveLength(1);
  });

  it("refuses to hand it over to another of till's subscriptions, or back for one", async () => {
    await expect(source.handOver(seeded.active, "till-sub-9")).rejects.toMatchObject({ retryable: false, message: expect.stringMatching(/already handed over to till's subscription till-sub-1/) });
    await expect(source.handBack(seeded.active, "till-sub-9")).rejects.toMatchObject({ retryable: false });
    expect((await stripe.subscriptions.retrieve(seeded.active)).cancel_at_period_end).toBe(true);
  });

  it("hands it back (renewing at Stripe, the mark removed), and over and back again while the keys still replay", async () => {
    const back = await source.handBack(seeded.active, "till-sub-1");
    expect(back).toMatchObject({ cancelAtPeriodEnd: false, cancelAt: null, movedTo: null, metadata: {} });
    // the key's first answer is replayed (or refused): the update goes again without it
    const before = sandbox.peer.requests.length;
    expect(await source.handOver(seeded.active, "till-sub-1")).toMatchObject({ cancelAtPeriodEnd: true, movedTo: "till-sub-1" });
    expect(posts(before).map((r) => r.idempotencyKey?.startsWith("till-"))).toEqual([true, false]);
    expect((await stripe.subscriptions.retrieve(seeded.active)).metadata).toMatchObject({ till_subscription_id: "till-sub-1" });
    expect(await source.handBack(seeded.active, "till-sub-1")).toMatchObject({ cancelAtPeriodEnd: false, movedTo: null });
    expect(await stripe.subscriptions.retrieve(seeded.active)).toMatchObject({ cancel_at_period_end: false, metadata: {} });
  });

  it("leaves alone an end the seller set; a missing subscription is null; an ended one is Stripe's refusal", async () => {
    await stripe.subscriptions.update(seeded.trialing, { cancel_at_period_end: true });
    expect(await source.handBack(seeded.trialing, "till-sub-2")).toMatchObject({ cancelAtPeriodEnd: true, movedTo: null });
    expect(await source.readSubscription("sub_1NoSuchSubscription")).toBeNull();
    await expect(source.handOver(seeded.canceled, "till-sub-3")).rejects.toMatchObject({
      retryable: false, message: expect.stringMatching(/^Stripe refused to change the subscriptions it takes over: A canceled subscription/),
    });
  });
});

describe("at Stripe's pace", () => {
  afterAll(() => {
    sandbox.peer.limits.rateLimit = undefined;
  });

  it("held under the account's limit, concurrent requests are never answered \"too many requests\"", async () => {
    sandbox.peer.limits.rateLimit = STRIPE_RATE_LIMITS;
    const paced = await accounts().billingSource(sandbox.server.database.db, await sandboxOrganization(), { limit: 20 });
    const started = performance.now();
    await Promise.all(Array.from({ length: 30 }, () => paced!.readSubscription(seeded.trialing)));
    expect(paced!.requests).toEqual({ sent: 30, throttled: 0, limit: 20 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(29 * 50 - 20);
  });

  it("over it, \"too many requests\" is waited out and every read ends", async () => {
    sandbox.peer.limits.rateLimit = STRIPE_RATE_LIMITS;
    const fast = await accounts().billingSource(sandbox.server.database.db, await sandboxOrganization(), { limit: 1000 });
    const read = await Promise.all(Array.from({ length: 60 }, () => fast!.readSubscription(seeded.trialing)));
    expect(read.every((s) => s?.id === seeded.trialing)).toBe(true);
    expect(fast!.requests.throttled).toBeGreaterThan(0);
    expect(fast!.requests.sent).toBe(60 + fast!.requests.throttled);
  }, 60_000);
});

describe("a key Stripe refuses", () => {
  const RESTRICTED = "rk_test_51TillImportReaderCccccccc9876";
  const peer = new StripePeer([{ id: "acct_1TillNarrow", keys: [{ secret: RESTRICTED, permissions: ["customer_read"] }] }]);
  let url: string;
  beforeAll(async () => {
    url = await peer.start();
  });
  afterAll(async () => {
    await peer.stop();
  });

  it("a restricted key without a permission the read needs: not retryable, the permission named, the key never", async () => {
    const failed = await createStripeBillingSource(stripeClient(RESTRICTED, url), false, { accountId: "acct_1TillNarrow" }).read().catch((err: unknown) => err);
    expect(failed).toMatchObject({ retryable: false, message: expect.stringMatching(/^The Stripe key till holds may not read the .*: give the restricted key ".*: Read"/) });
    expect(String((failed as Error).message)).not.toMatch(/rk_test|9876/);
  });

  it("a key Stripe no longer accepts: connect again", async () => {
    const failed = await createStripeBillingSource(stripeClient("sk_test_51TillRevokedDddddddddddd4321", url), false).readSubscription("sub_1").catch((err: unknown) => err);
    expect(failed).toMatchObject({ retryable: false, message: expect.stringMatching(/till stripe connect/) });
    expect(String((failed as Error).message)).not.toMatch(/4321/);
  });
});
