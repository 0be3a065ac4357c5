// Stripe Billing objects as Stripe answers them (the `stripe` package's types, pinned API version), written as
// literals with plain defaults: a test states only what it is about.
import type Stripe from "stripe";

/** 2026-01-01T00:00:00Z in Stripe's seconds. */
export const T0 = 1_767_225_600;

export function price(over: Partial<Stripe.Price>): Stripe.Price {
  return {
    id: "price_1", object: "price", active: true, billing_scheme: "per_unit", created: T0, currency: "usd", custom_unit_amount: null, livemode: false,
    lookup_key: null, metadata: {}, nickname: null, product: "prod_1",
    recurring: { interval: "month", interval_count: 1, meter: null, trial_period_days: null, usage_type: "licensed" },
    tax_behavior: "exclusive", tiers_mode: null, transform_quantity: null, type: "recurring", unit_amount: 1000, unit_amount_decimal: null,
    ...over,
  };
}

export function coupon(over: Partial<Stripe.Coupon>): Stripe.Coupon {
  return {
    id: "co_1", object: "coupon", amount_off: null, created: T0, currency: null, duration: "once", duration_in_months: null, livemode: false,
    max_redemptions: null, metadata: {}, name: null, percent_off: 25, redeem_by: null, times_redeemed: 0, valid: true,
    ...over,
  };
}

export function promotionCode(over: Partial<Stripe.PromotionCode>): Stripe.PromotionCode {
  return {
    id: "promo_1", object: "promotion_code", active: true, code: "WELCOME", created: T0, customer: null, customer_account: null, expires_at: null,
    livemode: false, max_redemptions: null, metadata: {}, promotion: { coupon: "co_1", type: "coupon" },
    restrictions: { first_time_transaction: false, minimum_amount: null, minimum_amount_currency: null }, times_redeemed: 0,
    ...over,
  };
}

export function customer(over: Partial<Stripe.Customer>): Stripe.Customer {
  return {
    id: "cus_1", object: "customer", balance: 0, created: T0, default_source: null, description: null, email: "ada@example.com", name: "Ada",
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false, metadata: {}, shipping: null,
    ...over,
  };
}

export function taxId(type: Stripe.TaxId.Type, value: string): Stripe.TaxId {
  return {
    id: `txi_${value}`, object: "tax_id", country: null, created: T0, customer: "cus_1", customer_account: null, livemode: false, owner: null, type,
    value, verification: null,
  };
}

const billingDetails = { address: null, email: null, name: null, phone: null, tax_id: null };

export function card(id: string): Stripe.PaymentMethod {
  return {
    id, object: "payment_method", billing_details: billingDetails, created: T0, customer: "cus_1", customer_account: null, livemode: false,
    metadata: {}, type: "card",
    card: {
      brand: "visa", checks: null, country: "US", display_brand: "visa", exp_month: 12, exp_year: 2030, funding: "credit", generated_from: null,
      last4: "4242", networks: null, regulated_status: null, three_d_secure_usage: null, wallet: null,
    },
  };
}

export function sepa(id: string): Stripe.PaymentMethod {
  return {
    id, object: "payment_method", billing_details: billingDetails, created: T0, customer: "cus_1", customer_account: null, livemode: false,
    metadata: {}, type: "sepa_debit",
    sepa_debit: { bank_code: "37040044", branch_code: null, country: "DE", fingerprint: null, generated_from: null, last4: "3000" },
  };
}

export function discount(id: string, couponOf: string | Stripe.Coupon): Stripe.Discount {
  return {
    id, object: "discount", checkout_session: null, customer: "cus_1", customer_account: null, end: null, invoice: null, invoice_item: null,
    promotion_code: null, source: { coupon: couponOf, type: "coupon" }, start: T0, subscription: "sub_1", subscription_item: null,
  };
}

/** A subscription item of `p`, over the period given. */
export function item(id: string, p: Stripe.Price, o: { quantity?: number; start: number; end: number }): Stripe.SubscriptionItem {
  const recurring = p.recurring ?? { interval: "month", interval_count: 1, meter: null, usage_type: "licensed" };
  return {
    id, object: "subscription_item", billing_thresholds: null, created: T0, current_period_start: o.start, current_period_end: o.end,
    current_trial: null, discounts: [], metadata: {}, price: p, quantity: o.quantity, subscription: "sub_1", tax_rates: null,
    plan: {
      id: p.id, object: "plan", active: p.active, amount: p.unit_amount, amount_decimal: p.unit_amount_decimal, billing_scheme: p.billing_scheme,
      created: p.created, currency: p.currency, interval: recurring.interval, interval_count: recurring.interval_count, livemode: false,
      metadata: {}, meter: recurring.meter, nickname: p.nickname, product: p.product, tiers_mode: p.tiers_mode, transform_usage: null,
      trial_period_days: null, usage_type: recurring.usage_type,
    },
  };
}

/** A subscription; `items` as an array (the list around them is made here). */
export function subscription(over: Omit<Partial<Stripe.Subscription>, "items"> & { items?: Stripe.SubscriptionItem[] }): Stripe.Subscription {
  const { items = [item("si_1", price({}), { quantity: 1, start: T0, end: T0 + 31 * 86400 })], ...rest } = over;
  return {
    id: "sub_1", object: "subscription", application: null, application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null }, billing_cycle_anchor: T0, billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: "classic" }, billing_schedules: [], billing_thresholds: null, cancel_at: null, cancel_at_period_end: false,
    canceled_at: null, cancellation_details: null, collection_method: "charge_automatically", created: T0, currency: "usd", customer: "cus_1",
    customer_account: null, days_until_due: null, default_payment_method: null, default_source: null, description: null, discounts: [],
    ended_at: null, invoice_settings: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: { type: "self" } },
    items: { object: "list", data: items, has_more: false, url: "/v1/subscription_items?subscription=sub_1" },
    latest_invoice: null, livemode: false, managed_payments: null, metadata: {}, next_pending_invoice_item_invoice: null, on_behalf_of: null,
    pause_collection: null, payment_settings: null, pending_invoice_item_interval: null, pending_setup_intent: null, pending_update: null,
    schedule: null, start_date: T0, status: "active", test_clock: null, transfer_data: null, trial_end: null, trial_settings: null, trial_start: null,
    ...rest,
  };
}
