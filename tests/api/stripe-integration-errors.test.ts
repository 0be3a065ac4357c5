// What till does when Stripe's answer is not a card decline, against the stand-in's faults and refusals. Stripe's
// declines without a decline_code (an expired card) reach the buyer with Stripe's code, never an empty one; a
// rate limit Stripe says not to retry, or a Stripe customer deleted in the dashboard, is till's (or the seller's)
// problem, not the buyer's: the buyer reads that nothing was charged, never Stripe's developer message, and a
// renewal is not dunned for it (no past due, no email: the charge waits for the processor's retries).
import { describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct, publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import { confirmationToken, STRIPE_CARDS, until, type StripeSandbox, useWebhookSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seller: Seller;
const receiver = new Receiver();

useWebhookSandbox(receiver, "/integration-errors", ["subscription.updated"], (r) => {
  ({ s, seller } = r);
});

/**
 * What till tells a buyer when the payment failed for a reason that is not theirs (issue: integration errors are not
 * declines).
 */
const NOT_CHARGED = "The payment could not be processed. Nothing was charged; please try again later";

async function confirm(clientSecret: string, number: string, email = uniqueBuyer("integration"), setupFutureUsage?: "off_session") {
  return publicRequest(s.server, "POST", `/v1/checkouts/client/${clientSecret}/confirm`, {
    customer_email: email,
    customer_name: "Ada Buyer",
    customer_billing_address: { country: "FR" },
    confirmation_token_id: await confirmationToken(s.peer, number, setupFutureUsage),
  });
}

describe("till and Stripe's errors that are not declines", () => {
  it("a decline without decline_code (an expired card) reaches the buyer with Stripe's code and message, never an empty code", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    for (const [number, code, message] of [
      [STRIPE_CARDS.expired, "expired_card", "Your card has expired."],
      [STRIPE_CARDS.incorrectCvc, "incorrect_cvc", "Your card's security code is incorrect."],
      [STRIPE_CARDS.lost, "lost_card", "Your card was declined."],
    ] as const) {
      const res = await confirm(checkout.clientSecret, number);
      expect(res.status, number).toBe(400);
      expect(res.body, number).toEqual({ error: "PaymentError", detail: message, code });
    }
  });

  it("a 429 Stripe says not to retry at confirm: nothing charged, the buyer told so without Stripe's message; the checkout still open", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    s.faults.rateLimit("POST", "/v1/payment_intents", { shouldRetry: false });
    const res = await confirm(checkout.clientSecret, STRIPE_CARDS.visa);
    s.faults.clear();
    expect(res.status).not.toBe(200);
    expect(res.status).toBeLessThan(500);
    expect(JSON.stringify(res.body)).toContain(NOT_CHARGED);
    expect(JSON.stringify(res.body)).not.toContain("rate limit");
    expect([...s.peer.payments.intents.values()].filter((i) => i.metadata.checkout_id === checkout.id)).toEqual([]);
    expect((await s.sdk.checkouts.get({ id: checkout.id })).status).toBe("open");
  });

  it("a renewal refused because the Stripe customer was deleted in the dashboard is not dunned: no past due, no dunning email", async () => {
    const product = await createProduct(seller, "monthly");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const email = uniqueBuyer("deleted-customer");
    const paid = await confirm(checkout.clientSecret, STRIPE_CARDS.visa, email, "off_session");
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const sub = await until(async () => (await s.sdk.subscriptions.list({ productId: product.id })).result.items[0], "the subscription");
    const [first] = [...s.peer.payments.intents.values()].filter((i) => i.metadata.checkout_id === checkout.id);
    if (!first?.customer) throw new Error("no Stripe customer");
    s.peer.payments.deleteCustomer(first.customer);

    const res = await rawRequest(s.server.url, s.key, "POST", "/v1/test-clock/advance", { by: "31d" });
    expect(res.status).toBe(200);
    // Stripe refused the charge as it would: 404 resource_missing on the customer
    const refused = s.peer.requests.filter((r) => r.path === "/v1/payment_intents" && (r.body.metadata as Record<string, string> | undefined)?.subscription_id === sub.id);
    expect(refused.length).toBeGreaterThan(0);
    expect((await s.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    expect(s.server.mailbox.all.filter((m) => m.to.includes(email) && /Payment failed/.test(m.subject))).toEqual([]);
  }, 60_000);
});
