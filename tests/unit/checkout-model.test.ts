// The checkout page's pure logic (web/src/checkout/model.ts, form.ts): how prices read, seat tiers, a typed
// pay-what-you-want amount, the card's expiry, every problem of the form at once, and the confirm body.
import { describe, expect, it } from "vitest";
import type { Checkout, Price } from "../../web/src/checkout-api.js";
import { emptyForm, formReducer } from "../../web/src/checkout/form.js";
import {
  cardIssues,
  choicesOf,
  confirmBody,
  customAmount,
  formIssues,
  meteredText,
  parseExpiry,
  priceText,
  renewalText,
  seatBounds,
  seatQuote,
  taxChanges,
} from "../../web/src/checkout/model.js";
import { unitName } from "../../shared/meter-units.js";
import { markdownToHtml } from "../../web/src/markdown.js";

const monthly = { recurring_interval: "month", recurring_interval_count: 1 };
const fixed: Price = { id: "f", amount_type: "fixed", price_amount: 1000, price_currency: "usd" };
const metered: Price = { id: "m", amount_type: "metered_unit", unit_amount: "0.5", price_currency: "usd", meter: { id: "x", name: "API calls" } };
const seats: Price = {
  id: "s",
  amount_type: "seat_based",
  price_currency: "usd",
  seat_tiers: {
    seat_tier_type: "volume",
    tiers: [
      { min_seats: 1, max_seats: 4, price_per_seat: 1000 },
      { min_seats: 5, max_seats: null, price_per_seat: 800 },
    ],
  },
};
const custom: Price = { id: "c", amount_type: "custom", price_currency: "usd", minimum_amount: 500, maximum_amount: 10_000, preset_amount: 1500 };

function checkoutWith(price: Price, extra: Partial<Checkout> = {}): Checkout {
  return {
    id: "co",
    status: "open",
    client_secret: "s",
    success_url: "",
    embed_origin: null,
    amount: 1000,
    seats: null,
    min_seats: null,
    max_seats: null,
    price_per_seat: null,
    discount_amount: 0,
    net_amount: 1000,
    tax_amount: 0,
    total_amount: 1000,
    currency: "usd",
    active_trial_interval: null,
    active_trial_interval_count: null,
    trial_end: null,
    allow_discount_codes: true,
    is_discount_applicable: true,
    is_free_product_price: false,
    is_payment_required: true,
    is_payment_form_required: true,
    is_business_customer: false,
    customer_name: null,
    customer_email: null,
    customer_billing_name: null,
    customer_billing_address: null,
    customer_tax_id: null,
    custom_field_data: {},
    billing_address_fields: { country: "required", state: "disabled", city: "disabled", postal_code: "disabled", line1: "disabled", line2: "disabled" },
    products: [{ id: "p", name: "P", description: null, is_recurring: true, recurring_interval: "month", prices: [price, metered] }],
    product: null,
    product_price: price,
    discount: null,
    attached_custom_fields: [],
    organization: { name: "Org", avatar_url: null },
    ...extra,
  };
}

describe("prices as they read", () => {
  it("a metered unit price in its own precision, per the meter's unit, billed with the product's interval", () => {
    expect(meteredText(metered, monthly)).toBe("$0.005 per API call, billed monthly");
    expect(meteredText({ ...metered, unit_amount: "12", cap_amount: 5000, meter: { id: "x", name: "Tokens" } }, { recurring_interval: "year", recurring_interval_count: 1 })).toBe(
      "$0.12 per token, billed yearly, up to $50.00",
    );
    expect(unitName("GB stored")).toBe("GB stored");
    expect(priceText(fixed, monthly)).toBe("$10.00 / month");
    expect(priceText(fixed, { recurring_interval: "month", recurring_interval_count: 3 })).toBe("$10.00 / 3 months");
    expect(priceText(seats, monthly)).toBe("From $10.00 per seat / month");
    // the server writes a free price as a fixed price of 0
    expect(priceText({ ...fixed, price_amount: 0 }, monthly)).toBe("Free");
  });

  it("a tiered metered price reads its tiers and its cap, as the invoice prices them (till's unit_tiers)", () => {
    const tiered: Price = {
      ...metered,
      cap_amount: 4000,
      unit_tiers: {
        tier_type: "graduated",
        tiers: [
          { up_to: 1000, unit_amount: "0", flat_amount: 0 },
          { up_to: null, unit_amount: "0.15", flat_amount: 500 },
        ],
      },
    };
    expect(meteredText(tiered, monthly)).toBe("$0.00 per API call for 1–1,000, $0.0015 per API call above 1,000 + $5.00 (graduated), billed monthly, up to $40.00");
    expect(priceText({ ...tiered, unit_tiers: { tier_type: "volume", tiers: tiered.unit_tiers?.tiers ?? [] } }, monthly)).toContain("(volume: all units at the tier the total reaches)");
  });

  it("offers static prices only; a usage-only product offers its metered price", () => {
    expect(choicesOf(checkoutWith(fixed)).map((c) => c.price.id)).toEqual(["f"]);
    const usageOnly = checkoutWith(metered, { products: [{ id: "u", name: "U", description: null, is_recurring: true, recurring_interval: "month", prices: [metered] }] });
    expect(choicesOf(usageOnly).map((c) => c.price.id)).toEqual(["m"]);
  });
});

describe("seats", () => {
  it("the tier a count falls in prices every seat (volume) or each seat (graduated); bounds narrow with the checkout's", () => {
    expect(seatQuote(seats, 3)).toMatchObject({ perSeat: 1000, amount: 3000, tierText: "1–4 seats" });
    expect(seatQuote(seats, 5)).toMatchObject({ perSeat: 800, amount: 4000, tierText: "5 or more seats" });
    const graduated: Price = { ...seats, seat_tiers: { ...seats.seat_tiers, seat_tier_type: "graduated", tiers: seats.seat_tiers?.tiers ?? [] } };
    expect(seatQuote(graduated, 6)?.amount).toBe(4 * 1000 + 2 * 800);
    expect(seatQuote(seats, 0)).toBeNull();
    expect(seatBounds(seats, { min_seats: null, max_seats: null })).toEqual({ min: 1, max: null });
    expect(seatBounds(seats, { min_seats: 2, max_seats: 10 })).toEqual({ min: 2, max: 10 });
  });
});

describe("pay what you want and the card", () => {
  it("reads a typed amount in minor units and says what is wrong with it", () => {
    expect(customAmount(custom, "12.5", "usd")).toEqual({ minor: 1250, issue: null });
    expect(customAmount(custom, "4,99", "usd").issue).toBe("The amount must be at least $5.00.");
    expect(customAmount(custom, "101", "usd").issue).toBe("The amount must be at most $100.00.");
    expect(customAmount(custom, "abc", "usd").issue).toMatch(/number/);
    expect(customAmount(custom, "500", "jpy")).toEqual({ minor: 500, issue: null });
  });

  it("parses an expiry and names each card problem", () => {
    expect(parseExpiry("12 / 34")).toEqual({ month: 12, year: 2034 });
    expect(parseExpiry("1/2030")).toEqual({ month: 1, year: 2030 });
    expect(parseExpiry("13/30")).toBeNull();
    const now = new Date("2026-06-15T00:00:00Z");
    expect(cardIssues({ number: "", expiry: "", cvc: "" }, now)).toEqual({
      number: "Enter your card number.",
      expiry: "Enter your card's expiration date.",
      cvc: "Enter your card's security code.",
    });
    expect(cardIssues({ number: "4242 4242", expiry: "05/26", cvc: "12" }, now)).toEqual({
      number: "Your card number is incomplete.",
      expiry: "Your card's expiration date is in the past.",
      cvc: "Your card's security code is incomplete.",
    });
    expect(cardIssues({ number: "4242 4242 4242 4242", expiry: "06/26", cvc: "123" }, now)).toEqual({});
  });
});

describe("the whole form", () => {
  it("lists every problem at once, in the fields' order, and builds the confirm body", () => {
    const checkout = checkoutWith(custom, {
      attached_custom_fields: [{ order: 1, required: true, custom_field: { slug: "terms", name: "Terms", type: "checkbox", properties: {} } }],
    });
    const form = { ...emptyForm().values, amount: "1" };
    expect(Object.keys(formIssues(checkout, form))).toEqual([
      "amount",
      "customer_email",
      "customer_name",
      "customer_billing_address.country",
      "custom_field_data.terms",
      "card.number",
      "card.expiry",
      "card.cvc",
    ]);
    const filled = { ...form, amount: "20", email: "a@b.co", name: "Ada", address: { ...form.address, country: "DE", city: "ignored" }, custom: { terms: true } };
    expect(confirmBody(checkout, filled)).toEqual({
      customer_email: "a@b.co",
      customer_name: "Ada",
      customer_billing_address: { country: "DE" },
      is_business_customer: false,
      custom_field_data: { terms: true },
      amount: 2000,
      expected_total_amount: checkout.total_amount,
    });
    expect(confirmBody(checkoutWith(seats), { ...filled, seats: 7 }).seats).toBe(7);
  });

  it("sends what decides the tax as one update: the address with its state, and a business's tax id", () => {
    const us = checkoutWith(fixed, {
      billing_address_fields: { country: "required", state: "required", line1: "required", line2: "optional", city: "required", postal_code: "required" },
    });
    const form = emptyForm().values;
    const typed = { ...form, address: { ...form.address, country: "US", state: "CA", city: "San Francisco" } };
    expect(taxChanges(us, typed)).toEqual({
      customer_billing_address: { country: "US", state: "CA", city: "San Francisco", line1: null, line2: null, postal_code: null },
      is_business_customer: false,
    });
    expect(taxChanges(us, { ...typed, business: true, taxId: " DE123456789 " }).customer_tax_id).toBe("DE123456789");
    expect(taxChanges(us, { ...typed, business: true, taxId: "" }).customer_tax_id).toBeNull();
  });

  it("typing clears that field's problem; a failed submit bumps the focus attempt", () => {
    let state = formReducer(emptyForm(), { type: "issues", issues: { customer_email: "x", customer_name: "y" }, focus: true });
    expect(state.attempt).toBe(1);
    state = formReducer(state, { type: "set", patch: { email: "a@b.co" } });
    expect(state.issues).toEqual({ customer_name: "y" });
    state = formReducer(state, { type: "card", key: "number", value: "4" });
    expect(state.values.card.number).toBe("4");
  });
});

describe("renewal terms", () => {
  const plan = (months: number, interval = "month") => ({ id: "p", name: "P", description: null, is_recurring: true, recurring_interval: interval, recurring_interval_count: months, prices: [fixed] });
  const discounted = (duration: string, extra: Partial<Checkout> = {}) =>
    checkoutWith(fixed, {
      amount: 1900,
      discount_amount: 475,
      net_amount: 1425,
      tax_amount: 0,
      total_amount: 1425,
      undiscounted_total_amount: 1900,
      product: plan(1),
      discount: { name: "Launch", code: null, type: "percentage", duration, duration_in_months: 3, basis_points: 2500 },
      ...extra,
    });

  it("a once-only discount: the renewals charge the full price; usage is billed after each period", () => {
    expect(renewalText(discounted("once"), " / month")).toBe("Renews automatically at $19.00 / month until you cancel.");
    const withUsage = discounted("once", { product: { ...plan(1), prices: [fixed, metered] } });
    expect(renewalText(withUsage, " / month")).toBe("Renews automatically at $19.00 / month plus usage, billed after each period, until you cancel.");
  });

  it("forever keeps the discounted price; repeating keeps it while it lasts, unless the first renewal is past its months", () => {
    expect(renewalText(discounted("forever"), " / month")).toBe("Renews automatically at $14.25 / month until you cancel.");
    expect(renewalText(discounted("repeating"), " / month")).toBe(
      "Renews automatically at $14.25 / month while the discount lasts, then $19.00 / month until you cancel.",
    );
    expect(renewalText(discounted("repeating", { product: plan(1, "year") }), " / year")).toBe("Renews automatically at $19.00 / year until you cancel.");
    expect(renewalText(checkoutWith(fixed, { product: plan(1) }), " / month")).toBe("Renews automatically at $10.00 / month until you cancel.");
  });
});

describe("markdown descriptions", () => {
  it("render markdown and never raw HTML or script links", async () => {
    expect(await markdownToHtml("**bold** [a](https://x.test)")).toBe('<p><strong>bold</strong> <a href="https://x.test">a</a></p>');
    const html = await markdownToHtml('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> [x](javascript:alert(1)) ![i](data:text/html,hi)');
    expect(html).not.toMatch(/<script|<img src=x|href="javascript:|src="data:/);
    expect(html).toContain("&lt;script&gt;");
  });
});
