// The import's plan from a snapshot of a Stripe account, decided without a database: how each shape maps to till's
// (the bodies till's own routes take) and why what cannot is left at Stripe.
import { describe, expect, it } from "vitest";
import type { SourceCoupon, SourceCustomer, SourcePrice, SourceProduct, SourceSnapshot, SourceSubscription } from "../../server/payments/billing-import.js";
import { linkKey, planImport, type Existing } from "../../server/billing/imports/plan.js";
import { productDigest } from "../../server/billing/imports/plan-catalog.js";

const NOW = new Date("2026-11-29T00:00:00Z");
const none: Existing = { links: new Map(), emails: new Map(), handovers: new Map() };

const price = (id: string, extra: Partial<SourcePrice> = {}): SourcePrice => ({
  id, productId: "prod_1", active: true, nickname: null, currency: "usd", type: "recurring", interval: "month", intervalCount: 1, usage: "licensed",
  meterId: null, custom: null, currencyOptions: {}, transformQuantity: false, taxBehavior: null, metadata: {}, unitAmount: "1000", tiers: null, ...extra,
});
const product = (prices: SourcePrice[], extra: Partial<SourceProduct> = {}): SourceProduct => ({
  id: "prod_1", name: "Pro", description: null, active: true, defaultPriceId: null, metadata: {}, prices, ...extra,
});
const customer = (id: string, extra: Partial<SourceCustomer> = {}): SourceCustomer => ({
  id, email: `${id}@example.com`, name: null, address: null, taxIds: [], metadata: {}, created: NOW,
  defaultPaymentMethod: { id: `pm_${id}`, type: "card", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 }, ...extra,
});
const subscription = (id: string, priceId: string, extra: Partial<SourceSubscription> = {}): SourceSubscription => ({
  id, customerId: "cus_1", status: "active", collection: "automatic", daysUntilDue: null, items: [{ id: `si_${id}`, priceId, quantity: 1 }], couponIds: [], currency: "usd",
  currentPeriodStart: new Date("2026-11-15T00:00:00Z"), currentPeriodEnd: new Date("2026-12-15T00:00:00Z"), trialStart: null, trialEnd: null,
  cancelAtPeriodEnd: false, cancelAt: null, paused: false, defaultPaymentMethod: null, metadata: {}, movedTo: null, created: NOW, ...extra,
});
const coupon = (extra: Partial<SourceCoupon>): SourceCoupon => ({
  id: "co_1", name: "Deal", percentOff: null, amountOff: null, amountOffOptions: {}, duration: "once", durationInMonths: null, maxRedemptions: null,
  timesRedeemed: 0, redeemBy: null, productIds: null, valid: true, metadata: {}, ...extra,
});
const snapshot = (s: Partial<SourceSnapshot>): SourceSnapshot => ({
  account: { id: "acct_1", livemode: false }, products: [], meters: [], coupons: [], promotionCodes: [], customers: [customer("cus_1")], subscriptions: [], ...s,
});
const itemOf = (plan: ReturnType<typeof planImport>, kind: string, id: string) => plan.items.find((i) => i.kind === kind && i.sourceId === id);

describe("the import's plan", () => {
  it("splits a product by interval, one till product each, named after it", () => {
    const plan = planImport(snapshot({ products: [product([price("price_m"), price("price_y", { interval: "year", unitAmount: "10000" })])] }), none, NOW);
    expect(plan.products.map((p) => p.name).sort()).toEqual(["Pro (monthly)", "Pro (yearly)"]);
    expect(plan.products.find((p) => p.recurrence === "year/1")?.body).toMatchObject({ recurring_interval: "year", recurring_interval_count: 1 });
  });

  it("maps tiers: licensed volume tiers to seat tiers, metered graduated tiers with flat fees to unit tiers", () => {
    const tiers = { mode: "volume" as const, tiers: [{ upTo: 5, unitAmount: "1000", flatAmount: 0 }, { upTo: null, unitAmount: "800", flatAmount: 0 }] };
    const metered = { mode: "graduated" as const, tiers: [{ upTo: 100, unitAmount: "0", flatAmount: 500 }, { upTo: null, unitAmount: "0.25", flatAmount: 0 }] };
    const meter = { id: "mtr_1", name: "Calls", eventName: "call", aggregation: "count" as const, valueKey: "value", customerKey: "stripe_customer_id", active: true };
    const plan = planImport(snapshot({
      meters: [meter],
      products: [product([price("price_seats", { unitAmount: null, tiers }), price("price_calls", { unitAmount: null, tiers: metered, usage: "metered", meterId: "mtr_1" })])],
    }), none, NOW);
    const [pro] = plan.products;
    expect(pro?.prices.find((p) => p.source.id === "price_seats")?.body).toMatchObject({
      amount_type: "seat_based", seat_tiers: { seat_tier_type: "volume", tiers: [{ min_seats: 1, max_seats: 5, price_per_seat: 1000 }, { min_seats: 6, max_seats: null, price_per_seat: 800 }] },
    });
    expect(pro?.prices.find((p) => p.source.id === "price_calls")?.body).toMatchObject({
      amount_type: "metered_unit", meter_id: "meter:mtr_1", unit_tiers: { tier_type: "graduated", tiers: [{ up_to: 100, unit_amount: "0", flat_amount: 500 }, { up_to: null, unit_amount: "0.25" }] },
    });
    expect(plan.meters[0]?.body).toMatchObject({ aggregation: { func: "count" }, filter: { clauses: [{ property: "name", operator: "eq", value: "call" }] } });
  });

  it("sells a price bought in quantities as seats, and other currencies as prices of their own", () => {
    const plan = planImport(snapshot({
      products: [product([price("price_1", { currencyOptions: { eur: { unitAmount: "900", tiers: null } } })])],
      subscriptions: [subscription("sub_1", "price_1", { items: [{ id: "si", priceId: "price_1", quantity: 4 }] })],
    }), none, NOW);
    const prices = plan.products[0]?.prices ?? [];
    expect(prices.map((p) => [p.currency, p.body?.amount_type])).toEqual([["usd", "seat_based"], ["eur", "seat_based"]]);
    expect(plan.subscriptions[0]).toMatchObject({ seats: 4, priceKeys: ["price_1/usd"] });
  });

  it("keeps an older price still billed as archived, and a product offering nothing sellable as archived", () => {
    const plan = planImport(snapshot({
      products: [product([price("price_new", { unitAmount: "1200" }), price("price_old", { active: false })], { defaultPriceId: "price_new" })],
      subscriptions: [subscription("sub_1", "price_old")],
    }), none, NOW);
    expect(plan.products[0]?.prices.map((p) => [p.source.id, p.slot])).toEqual([["price_new", "catalog"], ["price_old", "archived"]]);
    const archived = planImport(snapshot({ products: [product([price("price_old", { active: false })], { active: false })], subscriptions: [subscription("sub_1", "price_old")] }), none, NOW);
    expect(archived.products[0]).toMatchObject({ archived: true, prices: [{ slot: "catalog" }] });
  });

  it("says why a price cannot come over: a fraction of a cent, divided quantities, a metered price without a meter", () => {
    const plan = planImport(snapshot({
      products: [product([
        price("price_frac", { unitAmount: "12.5" }),
        price("price_div", { interval: "year", transformQuantity: true }),
        price("price_legacy", { interval: "week", usage: "metered" }),
        price("price_xts", { interval: "day", currency: "xts" }),
      ])],
    }), none, NOW);
    expect(itemOf(plan, "price", "price_xts/xts")?.reason).toContain("does not accept the currency XTS");
    expect(itemOf(plan, "price", "price_frac/usd")?.reason).toContain("fraction");
    expect(itemOf(plan, "price", "price_div/usd")?.reason).toContain("transform_quantity");
    expect(itemOf(plan, "price", "price_legacy/usd")?.reason).toContain("Billing Meter");
    expect(plan.products.every((p) => itemOf(plan, "product", p.key)?.action === "blocked")).toBe(true);
  });

  it("maps coupons: a percentage to basis points, an amount in several currencies, a repeating duration", () => {
    const plan = planImport(snapshot({
      coupons: [
        coupon({ id: "co_pct", percentOff: 12.5, duration: "repeating", durationInMonths: 3, maxRedemptions: 10 }),
        coupon({ id: "co_amt", amountOff: { amount: 500, currency: "usd" }, amountOffOptions: { eur: 450 } }),
        coupon({ id: "co_odd", percentOff: 12.345 }),
      ],
    }), none, NOW);
    expect(plan.discounts.find((d) => d.key === "co_pct")?.body).toMatchObject({ type: "percentage", basis_points: 1250, duration: "repeating", duration_in_months: 3, max_redemptions: 10 });
    expect(plan.discounts.find((d) => d.key === "co_amt")?.body).toMatchObject({ type: "fixed", amounts: { usd: 500, eur: 450 } });
    expect(itemOf(plan, "discount", "co_odd")?.reason).toContain("two decimals");
  });

  it("moves one subscription per product; leaves the rest at Stripe with a reason", () => {
    const products = [product([price("price_a")]), product([price("price_b")], { id: "prod_2", name: "Addon" })];
    products[1]?.prices.forEach((p) => (p.productId = "prod_2"));
    const plan = planImport(snapshot({
      products,
      customers: [customer("cus_1"), customer("cus_2", { email: null }), customer("cus_3", { defaultPaymentMethod: null })],
      subscriptions: [
        subscription("sub_ok", "price_a", { trialEnd: new Date("2026-12-01T00:00:00Z") }),
        subscription("sub_two", "price_a", { items: [{ id: "a", priceId: "price_a", quantity: 1 }, { id: "b", priceId: "price_b", quantity: 1 }] }),
        subscription("sub_noemail", "price_a", { customerId: "cus_2" }),
        subscription("sub_nocard", "price_a", { customerId: "cus_3" }),
        subscription("sub_due", "price_a", { status: "past_due" }),
        subscription("sub_unpaid", "price_a", { status: "unpaid" }),
        subscription("sub_invoice", "price_a", { collection: "send_invoice", daysUntilDue: 400 }),
        subscription("sub_net30", "price_a", { customerId: "cus_3", collection: "send_invoice", daysUntilDue: 30 }),
        subscription("sub_date", "price_a", { cancelAt: new Date("2026-12-01T00:00:00Z") }),
      ],
    }), none, NOW);
    // an invoiced one moves with its terms, with no payment method to charge
    expect(plan.subscriptions.map((s) => [s.source.id, s.trialing])).toEqual([["sub_ok", true], ["sub_two", false], ["sub_net30", false]]);
    // two products: the first item's is the subscription's product, the other its add-on
    expect(plan.subscriptions[1]).toMatchObject({ productKey: "prod_1/month/1", priceKeys: ["price_a/usd"], addOns: [{ productKey: "prod_2/month/1", priceKey: "price_b/usd", quantity: 1 }] });
    expect(itemOf(plan, "subscription", "sub_net30")?.becomes).toMatch(/invoiced with 30 days to pay$/);
    const reason = (id: string) => `${itemOf(plan, "subscription", id)?.action}: ${itemOf(plan, "subscription", id)?.reason}`;
    expect(reason("sub_noemail")).toMatch(/^blocked: .*customer/);
    expect(reason("sub_nocard")).toMatch(/^blocked: .*payment method/);
    expect(reason("sub_due")).toMatch(/^waiting: .*past due/);
    expect(reason("sub_unpaid")).toMatch(/^skipped: .*unpaid/);
    expect(reason("sub_invoice")).toMatch(/^blocked: .*due in 400 days at Stripe: till's terms are 0 to 365 days/);
    expect(reason("sub_date")).toMatch(/^blocked: .*set date/);
  });

  it("maps several products to add-ons: the metered one is the main product; a product is a main one or an add-on, not both", () => {
    const meter = { id: "mtr_1", name: "Calls", eventName: "call", aggregation: "count" as const, valueKey: "value", customerKey: "stripe_customer_id", active: true };
    const metered = price("price_calls", { productId: "prod_3", unitAmount: "1", usage: "metered", meterId: "mtr_1" });
    const products = [
      product([price("price_a")]),
      product([price("price_b", { productId: "prod_2" })], { id: "prod_2", name: "Storage" }),
      product([metered], { id: "prod_3", name: "API" }),
      product([price("price_c", { productId: "prod_4", custom: { minimum: 100, maximum: null, preset: null } })], { id: "prod_4", name: "Tip" }),
      product([price("price_d", { productId: "prod_5" })], { id: "prod_5", name: "Team" }),
    ];
    const items = (...ids: Array<[string, number | null]>) => ({ items: ids.map(([priceId, quantity]) => ({ id: `si_${priceId}`, priceId, quantity })) });
    const plan = planImport(snapshot({
      meters: [meter],
      products,
      subscriptions: [
        subscription("sub_api", "price_a", items(["price_a", 1], ["price_calls", null])),
        subscription("sub_api_storage", "price_a", items(["price_calls", null], ["price_b", 2])),
        subscription("sub_reverse", "price_b", items(["price_b", 1], ["price_a", 1])),
        subscription("sub_tip", "price_d", items(["price_d", 1], ["price_c", 1])),
        subscription("sub_team_storage", "price_d", items(["price_d", 1], ["price_b", 1])),
        subscription("sub_api_team", "price_d", items(["price_calls", null], ["price_d", 1])),
      ],
    }), none, NOW);
    const reason = (id: string) => `${itemOf(plan, "subscription", id)?.action}: ${itemOf(plan, "subscription", id)?.reason}`;
    const planned = (id: string) => plan.subscriptions.find((s) => s.source.id === id);
    expect(planned("sub_api")).toMatchObject({ productKey: "prod_3/month/1", addOns: [{ productKey: "prod_1/month/1", quantity: 1 }] });
    expect(planned("sub_api_storage")).toMatchObject({ productKey: "prod_3/month/1", addOns: [{ productKey: "prod_2/month/1", quantity: 2 }] });
    expect(planned("sub_team_storage")).toMatchObject({ productKey: "prod_5/month/1", addOns: [{ productKey: "prod_2/month/1", quantity: 1 }] });
    // a product is a main product or an add-on, not both
    // each names the product as the seller knows it, never till's key of it (prod_…/month/1)
    expect(reason("sub_reverse")).toMatch(/^blocked: Its main product "Storage" is an add-on of another subscription's/);
    expect(reason("sub_api_team")).toMatch(/^blocked: Its product "Team" is another subscription's main product/);
    expect(reason("sub_tip")).toMatch(/^blocked: Its price price_c cannot be an add-on/);
  });

  it("labels prices and subscriptions with the names the seller knows (the plan a subscription bills), never till's keys", () => {
    const products = [
      product([price("price_m", { nickname: "Launch offer" }), price("price_q", { intervalCount: 3 }), price("price_y", { interval: "year" })]),
      product([price("price_s", { productId: "prod_2" }), price("price_once", { productId: "prod_2", type: "one_time", interval: null })], { id: "prod_2", name: "Storage" }),
    ];
    const items = [{ id: "si_1", priceId: "price_y", quantity: 1 }, { id: "si_2", priceId: "price_s", quantity: 2 }];
    const plan = planImport(snapshot({
      products,
      subscriptions: [subscription("sub_1", "price_y", { items }), subscription("sub_2", "price_gone", { customerId: "cus_gone" })],
    }), none, NOW);
    expect(itemOf(plan, "price", "price_m/usd")?.label).toBe("Launch offer");
    expect(itemOf(plan, "price", "price_q/usd")?.label).toBe("Pro, every 3 months");
    expect(itemOf(plan, "price", "price_y/usd")?.label).toBe("Pro, yearly");
    expect(itemOf(plan, "price", "price_once/usd")?.label).toBe("Storage, one-time");
    // the subscription's plan: till's names of the products it bills (a Stripe product split by interval says which)
    expect(itemOf(plan, "subscription", "sub_1")).toMatchObject({ label: "cus_1@example.com's subscription to Pro (yearly) + Storage (monthly)", action: "create" });
    // a price the snapshot does not hold names no plan; the customer's id stands for a customer it does not hold
    expect(itemOf(plan, "subscription", "sub_2")?.label).toBe("cus_gone's subscription");
    expect(plan.items.filter((i) => i.kind !== "product").map((i) => i.label).join("\n")).not.toMatch(/prod_|price_|\/month|\/usd/);
  });

  it("brings one Stripe customer per email over: the one with a subscription; the other says which", () => {
    const plan = planImport(snapshot({
      products: [product([price("price_a")])],
      customers: [customer("cus_new", { email: "Twin@example.com" }), customer("cus_old", { email: "twin@example.com", created: new Date("2020-01-01") })],
      subscriptions: [subscription("sub_1", "price_a", { customerId: "cus_new" })],
    }), none, NOW);
    expect(itemOf(plan, "customer", "cus_new")?.action).toBe("create");
    expect(itemOf(plan, "customer", "cus_old")).toMatchObject({ action: "blocked", reason: expect.stringContaining("cus_new has the same email") });
    const twins = [customer("cus_new", { email: "twin@example.com" }), customer("cus_old", { email: "twin@example.com", created: new Date("2020-01-01") })];
    const unsubscribed = planImport(snapshot({ customers: twins }), none, NOW);
    expect(itemOf(unsubscribed, "customer", "cus_new")?.action).toBe("blocked");
    expect(itemOf(unsubscribed, "customer", "cus_old")?.action).toBe("create");
  });

  it("on a rerun, leaves what did not change, updates what did, and adopts a till customer of the same email", () => {
    const shape = (amount: string) => snapshot({ products: [product([price("price_a", { unitAmount: amount })])] });
    const first = planImport(shape("1000"), none, NOW);
    const [made] = first.products;
    if (!made) throw new Error("no product");
    const links = new Map([
      [linkKey("product", made.key), { tillId: "till-product", digest: productDigest(made) }],
      [linkKey("price", "price_a/usd"), { tillId: "till-price", digest: "" }],
    ]);
    const again = planImport(shape("1000"), { ...none, links, emails: new Map([["cus_1@example.com", "till-1"]]) }, NOW);
    expect(itemOf(again, "product", made.key)).toMatchObject({ action: "unchanged", tillId: "till-product" });
    expect(itemOf(again, "price", "price_a/usd")).toMatchObject({ action: "unchanged", tillId: "till-price" });
    expect(itemOf(again, "customer", "cus_1")).toMatchObject({ action: "update", tillId: "till-1", becomes: "the till customer of the same email" });
    const renamed = planImport(snapshot({ products: [product([price("price_a", { unitAmount: "1000" })], { name: "Pro 2" })] }), { ...none, links }, NOW);
    expect(itemOf(renamed, "product", made.key)?.action).toBe("update");
  });
});
