// A card subscription bought through the Stripe stand-in's checkout (never shipped), the card saved for off-session
// charges (the off-session renewal tests start with one), and an invoice with terms made of it: its renewal issued
// as an invoice due in 10 days, the way the bank-transfer tests start.
import { expect } from "vitest";
import { rawRequest } from "./api.js";
import { createProduct, publicRequest, uniqueBuyer } from "./checkout.js";
import type { Seller } from "./seller.js";
import { confirmationToken, STRIPE_CARDS, until, type StripeSandbox } from "./stripe-sandbox.js";

/** A French buyer's subscription to a new product of `kind`, paid with a Visa card saved for off-session charges. */
export async function subscribeWithCard(s: StripeSandbox, seller: Seller, kind: "monthly" | "trial", tag: string) {
  const product = await createProduct(seller, kind);
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  const confirmed = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
    customer_email: uniqueBuyer(tag),
    customer_name: "Ada Buyer",
    customer_billing_address: { country: "FR" },
    confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa, "off_session"),
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  const sub = await until(async () => (await s.sdk.subscriptions.list({ productId: product.id })).result.items[0], "the subscription");
  return { product, sub, customerId: (confirmed.body as { customer_id: string }).customer_id };
}

/** The subscription, its renewal's unpaid order and the order's pay-link token. */
export async function invoiceWithTerms(s: StripeSandbox, seller: Seller, tag: string) {
  const { sub } = await subscribeWithCard(s, seller, "monthly", tag);
  const terms = await rawRequest(s.server.url, s.key, "PATCH", `/v1/subscriptions/${sub.id}/terms`, { collection_method: "send_invoice", days_until_due: 10 });
  expect(terms.status, JSON.stringify(terms.body)).toBe(200);
  const renewed = await rawRequest(s.server.url, s.key, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
  expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
  const orders = (await s.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"] })).result.items;
  const order = orders[0];
  if (!order) throw new Error("no order");
  const got = await rawRequest(s.server.url, s.key, "GET", `/v1/orders/${order.id}`);
  expect(got.body).toMatchObject({ status: "pending", due_at: expect.any(String) });
  const token = String(got.body.pay_url).split("/pay/")[1] ?? "";
  return { sub, order, token };
}
