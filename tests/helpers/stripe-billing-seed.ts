// A Stripe Billing business seeded on the Stripe stand-in through the official client, as a seller's account would
// hold it: every shape the importer takes (multi-currency prices, an older price still billed, seats, graduated
// tiers on a Billing Meter, one-time prices, coupons and codes, customers with addresses, tax ids and cards,
// active and trialing subscriptions) and every shape it must leave at Stripe and say why.
import Stripe from "stripe";
import { STRIPE_KEYS } from "./stripe-sandbox.js";
import type { StripePeer } from "./stripe-peer.js";

export function peerClient(peer: StripePeer, secret: string = STRIPE_KEYS.secret): Stripe {
  const url = new URL(peer.url);
  return new Stripe(secret, { host: url.hostname, port: Number(url.port), protocol: "http", telemetry: false, maxNetworkRetries: 0 });
}

export interface SeededBusiness {
  stripe: Stripe;
  /** Subscriptions that move, by name. */
  moves: Record<"ada" | "bob" | "api" | "fay" | "old", Stripe.Subscription>;
  /** Subscriptions that stay at Stripe, by why. */
  stays: Record<"noEmail" | "pastDue" | "transformed", Stripe.Subscription>;
  /** Pro with the Addon product (two items, two products): till's Pro with Addon as an add-on. */
  withAddOn: Stripe.Subscription;
  /** Invoiced by Stripe (send_invoice, net 30) to a customer with no card: till invoices it the same way. */
  invoiced: Stripe.Subscription;
  /** Canceled to end with its period: till's ends then too, Stripe's is left as it is. */
  ending: Stripe.Subscription;
  customers: Record<string, Stripe.Customer>;
  prices: Record<"proMonthly" | "proYearly" | "proOld" | "seat" | "apiUsage" | "ebook" | "transformed" | "addon", Stripe.Price>;
  meter: Stripe.Billing.Meter;
  coupon: Stripe.Coupon;
}

/** A customer (named after `email`, or Nameless) whose default payment method is a Visa card. */
export async function customerWithCard(stripe: Stripe, email: string | null, extra: Stripe.CustomerCreateParams = {}): Promise<Stripe.Customer> {
  const customer = await stripe.customers.create({ ...(email ? { email } : {}), name: email ? email.split("@")[0] : "Nameless", ...extra });
  const pm = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
  return stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: pm.id } });
}

export async function seedBusiness(peer: StripePeer, tag: string): Promise<SeededBusiness> {
  const stripe = peerClient(peer);
  const customers: Record<string, Stripe.Customer> = {};
  const email = (name: string) => `${name}-${tag}@buyers.example.com`;
  for (const name of ["ada", "bob", "api", "fay", "old", "eve", "gus", "hal", "ivy"]) {
    customers[name] = await customerWithCard(stripe, email(name), name === "ada" ? {
      address: { line1: "1 Unter den Linden", city: "Berlin", postal_code: "10117", country: "DE" }, tax_id_data: [{ type: "eu_vat", value: "DE123456789" }],
    } : {});
  }
  customers.nameless = await customerWithCard(stripe, null);
  customers.dee = await stripe.customers.create({ email: email("dee"), name: "Dee" });
  const meter = await stripe.billing.meters.create({
    display_name: "API calls", event_name: `api_call_${tag}`, default_aggregation: { formula: "sum" },
    customer_mapping: { type: "by_id", event_payload_key: "stripe_customer_id" }, value_settings: { event_payload_key: "value" },
  });
  await stripe.billing.meters.create({ display_name: "Seats in use", event_name: `seats_${tag}`, default_aggregation: { formula: "last" } });
  const pro = await stripe.products.create({ name: `Pro ${tag}`, description: "Everything" });
  const proOld = await stripe.prices.create({ product: pro.id, currency: "usd", unit_amount: 1000, recurring: { interval: "month" } });
  // a customer still billed at an older price, which the product no longer offers
  const old = await stripe.subscriptions.create({ customer: customers.old?.id ?? "", items: [{ price: proOld.id }] });
  const proMonthly = await stripe.prices.create({
    product: pro.id, currency: "usd", unit_amount: 1200, recurring: { interval: "month" }, currency_options: { eur: { unit_amount: 1100 } },
  });
  await stripe.prices.update(proOld.id, { active: false });
  await stripe.products.update(pro.id, { default_price: proMonthly.id });
  const proYearly = await stripe.prices.create({ product: pro.id, currency: "usd", unit_amount: 12000, recurring: { interval: "year" } });
  const seat = await stripe.prices.create({ product_data: { name: `Team ${tag}` }, currency: "usd", unit_amount: 500, recurring: { interval: "month" } });
  const apiUsage = await stripe.prices.create({
    product_data: { name: `API ${tag}` }, currency: "usd", recurring: { interval: "month", usage_type: "metered", meter: meter.id },
    billing_scheme: "tiered", tiers_mode: "graduated", tiers: [{ up_to: 1000, unit_amount: 0 }, { up_to: "inf", unit_amount_decimal: Stripe.Decimal.from("0.5") }],
  });
  const ebook = await stripe.prices.create({ product_data: { name: `Ebook ${tag}` }, currency: "usd", unit_amount: 2000 });
  const transformed = await stripe.prices.create({
    product_data: { name: `Bundles ${tag}` }, currency: "usd", unit_amount: 900, recurring: { interval: "month" }, transform_quantity: { divide_by: 10, round: "up" },
  });
  const addon = await stripe.prices.create({ product_data: { name: `Addon ${tag}` }, currency: "usd", unit_amount: 300, recurring: { interval: "month" } });
  const coupon = await stripe.coupons.create({ name: "Launch", percent_off: 25, duration: "forever" });
  await stripe.promotionCodes.create({ promotion: { type: "coupon", coupon: coupon.id }, code: `LAUNCH${tag}`.toUpperCase() });
  await stripe.promotionCodes.create({ promotion: { type: "coupon", coupon: coupon.id }, code: `FIRST${tag}`.toUpperCase(), restrictions: { first_time_transaction: true } });

  const sub = (name: string, items: Stripe.SubscriptionCreateParams.Item[], extra: Stripe.SubscriptionCreateParams = {}) =>
    stripe.subscriptions.create({ customer: customers[name]?.id ?? "", items, metadata: { plan: name }, ...extra });
  const moves = {
    ada: await sub("ada", [{ price: proMonthly.id }], { discounts: [{ coupon: coupon.id }] }),
    bob: await sub("bob", [{ price: seat.id, quantity: 3 }]),
    api: await sub("api", [{ price: apiUsage.id }]),
    fay: await sub("fay", [{ price: proYearly.id }], { trial_period_days: 14 }),
    old,
  };
  const stays = {
    noEmail: await sub("nameless", [{ price: proMonthly.id }]),
    pastDue: await sub("gus", [{ price: proMonthly.id }]),
    transformed: await sub("ivy", [{ price: transformed.id, quantity: 25 }]),
  };
  peer.billing.failPayment(stays.pastDue.id);
  const ending = await sub("hal", [{ price: proMonthly.id }], { cancel_at_period_end: true });
  const invoiced = await sub("dee", [{ price: proMonthly.id }], { collection_method: "send_invoice", days_until_due: 30 });
  const withAddOn = await sub("eve", [{ price: proMonthly.id }, { price: addon.id, quantity: 2 }]);
  return { stripe, moves, stays, ending, invoiced, withAddOn, customers, prices: { proMonthly, proYearly, proOld, seat, apiUsage, ebook, transformed, addon }, meter, coupon };
}
