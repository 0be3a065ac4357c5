// The Stripe importer's mapping (server/payments/stripe/billing-import/map-*.ts): Stripe's objects, written as
// literals of the `stripe` package's own types for the pinned API version, read into the neutral import types.
import type StripeTypes from "stripe";
import { describe, expect, it } from "vitest";
import { BillingSourceError } from "../../server/payments/billing-import.js";
import { lacksOptionTiers, mapCoupon, mapMeter, mapPrice, mapProduct, mapPromotionCode } from "../../server/payments/stripe/billing-import/map-catalog.js";
import { isEnded, mapCustomer, mapPaymentMethod, mapSubscription } from "../../server/payments/stripe/billing-import/map-customers.js";
import { Stripe } from "../../server/payments/stripe/client.js";
import { card, coupon, customer, discount, item, price, promotionCode, sepa, subscription, T0, taxId } from "../helpers/stripe-billing-objects.js";

const d = (v: string) => Stripe.Decimal.from(v);
const at = (seconds: number) => new Date(seconds * 1000);

describe("prices", () => {
  it("a per-unit price: its decimal amount, lower-case currency, interval; an unspecified tax behavior is none", () => {
    const p = mapPrice(price({ currency: "USD", unit_amount: 1250, unit_amount_decimal: d("1250"), tax_behavior: "unspecified", nickname: "Pro" }));
    expect(p).toMatchObject({
      id: "price_1", productId: "prod_1", active: true, nickname: "Pro", currency: "usd", type: "recurring", interval: "month", intervalCount: 1,
      usage: "licensed", meterId: null, custom: null, unitAmount: "1250", tiers: null, currencyOptions: {}, transformQuantity: false, taxBehavior: null,
    });
  });

  it("a fraction of a minor unit stays a decimal string", () => {
    expect(mapPrice(price({ unit_amount: null, unit_amount_decimal: d("0.25"), tax_behavior: "exclusive" }))).toMatchObject({ unitAmount: "0.25", taxBehavior: "exclusive" });
  });

  it("a graduated price: its tiers (the last up to null) and its other currencies' tiers, its own currency not among them", () => {
    const tier = (up_to: number | null, unit: string, flat: number | null) => ({
      up_to, unit_amount: null, unit_amount_decimal: d(unit), flat_amount: flat, flat_amount_decimal: flat === null ? null : d(String(flat)),
    });
    const p = mapPrice(price({
      billing_scheme: "tiered", tiers_mode: "graduated", unit_amount: null, unit_amount_decimal: null,
      tiers: [tier(10, "100", 500), tier(null, "80", null)],
      currency_options: {
        usd: { custom_unit_amount: null, tax_behavior: "exclusive", unit_amount: null, unit_amount_decimal: null, tiers: [tier(10, "100", 500), tier(null, "80", null)] },
        EUR: { custom_unit_amount: null, tax_behavior: "exclusive", unit_amount: null, unit_amount_decimal: null, tiers: [tier(10, "90", 450), tier(null, "0.5", null)] },
      },
    }));
    expect(p.unitAmount).toBeNull();
    expect(p.tiers).toEqual({ mode: "graduated", tiers: [{ upTo: 10, unitAmount: "100", flatAmount: 500 }, { upTo: null, unitAmount: "80", flatAmount: 0 }] });
    expect(p.currencyOptions).toEqual({
      eur: { unitAmount: null, tiers: { mode: "graduated", tiers: [{ upTo: 10, unitAmount: "90", flatAmount: 450 }, { upTo: null, unitAmount: "0.5", flatAmount: 0 }] } },
    });
  });

  it("per-unit currency options keep their amounts; tiered ones without their tiers are found and refused", () => {
    const option = { custom_unit_amount: null, tax_behavior: null, unit_amount: 900, unit_amount_decimal: d("900") };
    expect(mapPrice(price({ currency_options: { usd: { ...option, unit_amount: 1000, unit_amount_decimal: d("1000") }, gbp: option } })).currencyOptions)
      .toEqual({ gbp: { unitAmount: "900", tiers: null } });
    const tiered = price({
      billing_scheme: "tiered", tiers_mode: "volume", unit_amount: null, unit_amount_decimal: null,
      tiers: [{ up_to: null, unit_amount: 5, unit_amount_decimal: d("5"), flat_amount: null, flat_amount_decimal: null }],
      currency_options: { usd: { ...option, tiers: [] }, eur: option },
    });
    expect(lacksOptionTiers(tiered)).toBe(true);
    expect(() => mapPrice(tiered)).toThrow(BillingSourceError);
    expect(lacksOptionTiers(price({ currency_options: { eur: option } }))).toBe(false);
  });

  it("a metered price names its meter and has no quantity; a one-time price has no interval", () => {
    const metered = mapPrice(price({ recurring: { interval: "month", interval_count: 1, meter: "mtr_1", trial_period_days: null, usage_type: "metered" } }));
    expect(metered).toMatchObject({ usage: "metered", meterId: "mtr_1", interval: "month" });
    expect(mapPrice(price({ type: "one_time", recurring: null }))).toMatchObject({ type: "one_time", interval: null, intervalCount: null, usage: "licensed" });
  });

  it("a customer-chosen amount and a divided quantity are said as such", () => {
    const custom = mapPrice(price({ unit_amount: null, unit_amount_decimal: null, custom_unit_amount: { minimum: 500, maximum: 10000, preset: 1500 } }));
    expect(custom).toMatchObject({ custom: { minimum: 500, maximum: 10000, preset: 1500 }, unitAmount: null, tiers: null });
    expect(mapPrice(price({ transform_quantity: { divide_by: 1000, round: "up" } })).transformQuantity).toBe(true);
  });

  it("a value this API version does not have stops the mapping instead of a guess", () => {
    expect(() => mapPrice(price({ type: "subscription_bundle" }))).toThrow(/price type "subscription_bundle"/);
  });

  it("a product carries its default price (expanded or not) and the prices given", () => {
    const prices = [mapPrice(price({}))];
    const product: StripeTypes.Product = {
      id: "prod_1", object: "product", active: false, created: T0, default_price: price({}), description: null, images: [], livemode: false,
      marketing_features: [], metadata: { tier: "pro" }, name: "Pro", package_dimensions: null, shippable: null, tax_details: null,
      type: "service", updated: T0, url: null,
    };
    expect(mapProduct(product, prices)).toEqual({ id: "prod_1", name: "Pro", description: null, active: false, defaultPriceId: "price_1", metadata: { tier: "pro" }, prices });
    expect(mapProduct({ ...product, default_price: null }, []).defaultPriceId).toBeNull();
  });
});

describe("meters, coupons and codes", () => {
  it("a billing meter: its event, aggregation and payload keys", () => {
    const meter: StripeTypes.Billing.Meter = {
      id: "mtr_1", object: "billing.meter", created: T0, customer_mapping: { event_payload_key: "stripe_customer_id", type: "by_id" },
      default_aggregation: { formula: "sum" }, display_name: "API calls", event_name: "api_call", event_time_window: null, livemode: false,
      status: "inactive", status_transitions: { deactivated_at: T0 }, updated: T0, value_settings: { event_payload_key: "value" },
    };
    expect(mapMeter(meter)).toEqual({ id: "mtr_1", name: "API calls", eventName: "api_call", aggregation: "sum", valueKey: "value", customerKey: "stripe_customer_id", active: false });
  });

  it("an amount-off coupon in several currencies, for some products, redeemable until a date", () => {
    const c = mapCoupon(coupon({
      amount_off: 500, currency: "usd", percent_off: null, currency_options: { usd: { amount_off: 500 }, eur: { amount_off: 450 } },
      applies_to: { products: ["prod_1"] }, duration: "repeating", duration_in_months: 3, redeem_by: T0 + 86400, max_redemptions: 10, times_redeemed: 2,
    }));
    expect(c).toMatchObject({
      amountOff: { amount: 500, currency: "usd" }, amountOffOptions: { eur: 450 }, percentOff: null, productIds: ["prod_1"], duration: "repeating",
      durationInMonths: 3, redeemBy: at(T0 + 86400), maxRedemptions: 10, timesRedeemed: 2, valid: true,
    });
  });

  it("a percent-off coupon for every product, with no metadata", () => {
    expect(mapCoupon(coupon({ metadata: null }))).toMatchObject({ percentOff: 25, amountOff: null, amountOffOptions: {}, productIds: null, metadata: {}, redeemBy: null });
    expect(mapCoupon(coupon({ applies_to: { products: [] } })).productIds).toBeNull();
  });

  it("a promotion code: its coupon under promotion (expanded or not) and its restrictions", () => {
    const code = mapPromotionCode(promotionCode({}));
    expect(code).toEqual({
      id: "promo_1", code: "WELCOME", couponId: "co_1", active: true, maxRedemptions: null, timesRedeemed: 0, expiresAt: null, firstTimeOnly: false,
      minimumAmount: null, customerId: null, metadata: {},
    });
    const restricted = mapPromotionCode(promotionCode({
      promotion: { coupon: coupon({}), type: "coupon" }, customer: "cus_1", expires_at: T0,
      restrictions: { first_time_transaction: true, minimum_amount: 2000, minimum_amount_currency: "EUR" },
    }));
    expect(restricted).toMatchObject({ couponId: "co_1", firstTimeOnly: true, minimumAmount: { amount: 2000, currency: "eur" }, customerId: "cus_1", expiresAt: at(T0) });
  });
});

describe("customers", () => {
  it("address (country upper-case), tax ids, and the invoices' default card", () => {
    const c = mapCustomer(customer({
      address: { line1: "1 Rue de Rivoli", line2: null, postal_code: "75001", city: "Paris", state: null, country: "fr" },
      tax_ids: { object: "list", data: [taxId("eu_vat", "FR12345678901")], has_more: false, url: "/v1/customers/cus_1/tax_ids" },
      invoice_settings: { custom_fields: null, default_payment_method: card("pm_card"), footer: null, rendering_options: null },
    }));
    expect(c).toEqual({
      id: "cus_1", email: "ada@example.com", name: "Ada", metadata: {}, created: at(T0),
      address: { line1: "1 Rue de Rivoli", line2: null, postalCode: "75001", city: "Paris", state: null, country: "FR" },
      taxIds: [{ type: "eu_vat", value: "FR12345678901" }],
      defaultPaymentMethod: { id: "pm_card", type: "card", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 },
    });
  });

  it("tax ids read past the first page are the ones kept; no method is none", () => {
    const c = mapCustomer(customer({}), [taxId("gb_vat", "GB123456789"), taxId("us_ein", "12-3456789")]);
    expect(c.taxIds).toEqual([{ type: "gb_vat", value: "GB123456789" }, { type: "us_ein", value: "12-3456789" }]);
    expect(c.defaultPaymentMethod).toBeNull();
    expect(c.address).toBeNull();
  });

  it("a bank debit: its bank's name (else its type), no expiry", () => {
    expect(mapPaymentMethod(sepa("pm_sepa"))).toEqual({ id: "pm_sepa", type: "sepa_debit", brand: "sepa_debit", last4: "3000", expMonth: 0, expYear: 0 });
    const us = { ...card("pm_us"), type: "us_bank_account", card: undefined, us_bank_account: {
      account_holder_type: null, account_type: null, bank_name: "STRIPE TEST BANK", financial_connections_account: null, fingerprint: null, last4: "6789",
      networks: null, routing_number: "110000000", status_details: null,
    } } satisfies StripeTypes.PaymentMethod;
    expect(mapPaymentMethod(us)).toMatchObject({ brand: "STRIPE TEST BANK", last4: "6789", expMonth: 0 });
  });

  it("an unexpanded payment method is an error, not a customer without a method", () => {
    expect(() => mapCustomer(customer({ invoice_settings: { custom_fields: null, default_payment_method: "pm_1", footer: null, rendering_options: null } }))).toThrow(BillingSourceError);
  });
});

describe("subscriptions", () => {
  it("its items (a metered one without quantity), the earliest period of its items, its own method", () => {
    const s = mapSubscription(subscription({
      items: [
        item("si_1", price({}), { quantity: 3, start: T0, end: T0 + 31 * 86400 }),
        item("si_2", price({ id: "price_m", recurring: { interval: "month", interval_count: 1, meter: "mtr_1", trial_period_days: null, usage_type: "metered" } }), {
          start: T0 + 86400,
          end: T0 + 15 * 86400,
        }),
      ],
      default_payment_method: sepa("pm_sepa"),
    }));
    expect(s.items).toEqual([{ id: "si_1", priceId: "price_1", quantity: 3 }, { id: "si_2", priceId: "price_m", quantity: null }]);
    expect(s.currentPeriodStart).toEqual(at(T0 + 86400));
    expect(s.currentPeriodEnd).toEqual(at(T0 + 15 * 86400));
    expect(s.defaultPaymentMethod).toMatchObject({ id: "pm_sepa", type: "sepa_debit" });
    expect(s).toMatchObject({ id: "sub_1", customerId: "cus_1", status: "active", collection: "automatic", currency: "usd", paused: false, cancelAt: null, movedTo: null });
  });

  it("the coupons of its discounts (each once; an item's own discount is not the subscription's)", () => {
    const s = mapSubscription(subscription({
      discounts: [discount("di_1", "co_a"), discount("di_2", coupon({ id: "co_b" })), discount("di_3", "co_a"), { ...discount("di_4", "co_item"), subscription_item: "si_1" }],
    }));
    expect(s.couponIds).toEqual(["co_a", "co_b"]);
    expect(() => mapSubscription(subscription({ discounts: ["di_1"] }))).toThrow(BillingSourceError);
  });

  it("moved to till only while it ends with its period; an end at its period's end is no other date", () => {
    const end = T0 + 31 * 86400;
    const marked = subscription({ metadata: { till_subscription_id: "till-sub-1", moved_to_till_at: new Date(end * 1000).toISOString() }, cancel_at_period_end: true, cancel_at: end });
    expect(mapSubscription(marked)).toMatchObject({ movedTo: "till-sub-1", cancelAtPeriodEnd: true, cancelAt: null });
    expect(mapSubscription({ ...marked, cancel_at_period_end: false, cancel_at: null }).movedTo).toBeNull();
    expect(mapSubscription(subscription({ cancel_at: T0 + 10 * 86400 })).cancelAt).toEqual(at(T0 + 10 * 86400));
  });

  it("trial, invoices sent, collection paused, items read past the first page", () => {
    const s = mapSubscription(
      subscription({
        status: "trialing", trial_start: T0, trial_end: T0 + 14 * 86400, collection_method: "send_invoice", days_until_due: 15,
        pause_collection: { behavior: "void", resumes_at: null },
      }),
      [item("si_9", price({ id: "price_9" }), { quantity: 1, start: T0, end: T0 + 14 * 86400 })],
    );
    expect(s).toMatchObject({ status: "trialing", trialStart: at(T0), trialEnd: at(T0 + 14 * 86400), collection: "send_invoice", daysUntilDue: 15, paused: true });
    expect(s.items).toEqual([{ id: "si_9", priceId: "price_9", quantity: 1 }]);
  });

  it("canceled and incomplete_expired ones are ended; past_due and paused are not", () => {
    expect(["canceled", "incomplete_expired", "past_due", "paused", "incomplete"].map((status) => isEnded(subscription({ status })))).toEqual([true, true, false, false, false]);
  });
});
