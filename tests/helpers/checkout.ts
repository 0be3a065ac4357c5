// Buying through a checkout in tests: products of each price kind, the public SDK the customer's page uses
// (no token), the test processor's tokenizer, and a confirm that fills in what a purchase needs.
import { Polar } from "@polar-sh/sdk";
import type { Checkout } from "@polar-sh/sdk/models/components/checkout.js";
import type { CheckoutPublicConfirmed } from "@polar-sh/sdk/models/components/checkoutpublicconfirmed.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { expect } from "vitest";
import { rawRequest } from "./api.js";
import type { Seller } from "./seller.js";
import type { TestServer } from "./server.js";

export const CARDS = {
  ok: "4242 4242 4242 4242",
  declined: "4000 0000 0000 0002",
  insufficient: "4000 0000 0000 9995",
} as const;

/** The SDK as the customer's page uses it: no access token. */
export const publicSdk = (server: Pick<TestServer, "url">) => new Polar({ serverURL: server.url });

export async function publicRequest(server: Pick<TestServer, "url">, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

/** Tokenizes a card with the test processor; throws unless it is accepted. */
export async function tokenize(server: Pick<TestServer, "url">, clientSecret: string, number: string = CARDS.ok): Promise<string> {
  const res = await publicRequest(server, "POST", `/v1/checkouts/client/${clientSecret}/test-card`, {
    number,
    exp_month: 12,
    exp_year: new Date().getUTCFullYear() + 2,
    cvc: "123",
  });
  if (res.status !== 200) throw new Error(`tokenize failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.confirmation_token_id as string;
}

let n = 0;
export const uniqueBuyer = (tag = "buyer") => `${tag}-${Date.now().toString(36)}-${n++}@example.com`;

/** Confirms with everything a paid checkout asks for (email, name, address, card) unless `extra` overrides it. */
export async function pay(
  server: Pick<TestServer, "url">,
  checkout: Pick<Checkout, "clientSecret">,
  extra: Record<string, unknown> = {},
  card: string | null = CARDS.ok,
): Promise<CheckoutPublicConfirmed> {
  const token = card ? await tokenize(server, checkout.clientSecret, card) : undefined;
  return publicSdk(server).checkouts.clientConfirm({
    clientSecret: checkout.clientSecret,
    checkoutConfirmStripe: {
      customerEmail: uniqueBuyer(),
      customerName: "Ada Buyer",
      customerBillingAddress: { country: "FR" },
      ...(token ? { confirmationTokenId: token } : {}),
      ...extra,
    },
  });
}

/**
 * A subscription to `productId` bought through a paid checkout of the seller `sdk`, and read back through its
 * order: for a customer made first with `externalId` (its email `<externalId>@example.com`) when one is given.
 */
export async function subscribeThroughCheckout(server: TestServer, sdk: Polar, productId: string, externalId?: string): Promise<Subscription> {
  const email = `${externalId}@example.com`;
  if (externalId) await sdk.customers.create({ email, externalId, name: externalId });
  const checkout = await sdk.checkouts.create({ products: [productId], ...(externalId ? { externalCustomerId: externalId } : {}) });
  await pay(server, checkout, externalId ? { customerEmail: email } : {});
  const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order?.subscriptionId) throw new Error("no subscription");
  return sdk.subscriptions.get({ id: order.subscriptionId });
}

/** A meter counting `api.call` events, for the metered prices of createProduct. */
export function createApiCallsMeter(seller: Seller) {
  return seller.sdk.meters.create({
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
    aggregation: { func: "count" },
  });
}

export type ProductKind = "fixed" | "custom" | "free" | "seats" | "monthly" | "metered" | "trial";

/** A product of one price kind (recurring kinds are monthly). */
export async function createProduct(seller: Seller, kind: ProductKind, extra: Record<string, unknown> = {}, meterId?: string): Promise<Product> {
  const name = `${kind} product ${n++}`;
  switch (kind) {
    case "fixed":
      return seller.sdk.products.create({ name, prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" }], ...extra });
    case "custom":
      return seller.sdk.products.create({
        name,
        prices: [{ amountType: "custom", minimumAmount: 500, maximumAmount: 10_000, presetAmount: 1500, priceCurrency: "usd" }],
        ...extra,
      });
    case "free":
      return seller.sdk.products.create({ name, prices: [{ amountType: "free" }], ...extra });
    case "seats":
      return seller.sdk.products.create({
        name,
        recurringInterval: "month",
        prices: [
          {
            amountType: "seat_based",
            priceCurrency: "usd",
            seatTiers: {
              seatTierType: "volume",
              tiers: [
                { minSeats: 1, maxSeats: 4, pricePerSeat: 1000 },
                { minSeats: 5, maxSeats: 20, pricePerSeat: 800 },
              ],
            },
          },
        ],
        ...extra,
      });
    case "monthly":
      return seller.sdk.products.create({ name, recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }], ...extra });
    case "trial":
      return seller.sdk.products.create({
        name,
        recurringInterval: "month",
        trialInterval: "day",
        trialIntervalCount: 14,
        prices: [{ amountType: "fixed", priceAmount: 1200, priceCurrency: "usd" }],
        ...extra,
      });
    case "metered":
      if (!meterId) throw new Error("metered products need a meter");
      return seller.sdk.products.create({
        name,
        recurringInterval: "month",
        prices: [{ amountType: "metered_unit", meterId, unitAmount: "0.5", priceCurrency: "usd" }],
        ...extra,
      });
  }
}

/**
 * A monthly plan of $9 and a metered price on a new meter (the sum of `units` of `tokens-<suffix>` events):
 * graduated tiers (up to 1,000 units at 1¢, then 0.25¢ and a $5.00 flat fee), capped at $40.00. Through plain
 * /v1 JSON: the SDK drops `unit_tiers`.
 */
export async function tieredCappedPlan(server: TestServer, seller: Seller, suffix: string) {
  const meter = await seller.sdk.meters.create({
    name: `Tokens ${suffix}`,
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: `tokens-${suffix}` }] },
    aggregation: { func: "sum", property: "units" },
  });
  const plan = await rawRequest(server.url, seller.token, "POST", "/v1/products/", {
    name: `Pro plan ${suffix}`,
    recurring_interval: "month",
    prices: [
      { amount_type: "fixed", price_amount: 900, price_currency: "usd" },
      {
        amount_type: "metered_unit",
        meter_id: meter.id,
        cap_amount: 4000,
        unit_tiers: { tier_type: "graduated", tiers: [{ up_to: 1000, unit_amount: "1" }, { up_to: null, unit_amount: "0.25", flat_amount: 500 }] },
      },
    ],
  });
  expect(plan.status, JSON.stringify(plan.body)).toBe(201);
  return { meter, planId: String(plan.body.id) };
}
