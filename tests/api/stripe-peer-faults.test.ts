// The Stripe stand-in's faults and refusals, each proven with the official `stripe` client as till makes it
// (stripeClient: maxNetworkRetries 2): 429s with and without Stripe-Should-Retry, 500 api_errors, a connection
// dropped after the charge was made (the client's retry with the same Idempotency-Key gets the stored answer: one
// charge), an Idempotency-Key reused with other parameters, declines with and without a decline_code, a customer
// deleted in the dashboard and a detached payment method (resource_missing and Stripe's refusal), and
// ConfirmationTokens used twice, expired, or of the wrong mode.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stripe, stripeClient } from "../../server/payments/stripe/client.js";
import { StripePeer } from "../helpers/stripe-peer.js";
import { PeerFaults } from "../helpers/stripe-peer-faults.js";
import { confirmationToken, STRIPE_CARDS, STRIPE_KEYS } from "../helpers/stripe-sandbox.js";

let peer: StripePeer;
let faults: PeerFaults;
let stripe: Stripe;

beforeAll(async () => {
  peer = new StripePeer([{ id: "acct_1Faults", keys: [{ secret: STRIPE_KEYS.secret }, { secret: STRIPE_KEYS.publishable }] }]);
  faults = new PeerFaults(peer);
  await peer.start();
  stripe = stripeClient(STRIPE_KEYS.secret, peer.url);
});
afterAll(async () => {
  await peer?.stop();
});

const unique = () => `test-${Math.random().toString(36).slice(2)}`;
const posts = (key: string) => peer.requests.filter((r) => r.method === "POST" && r.idempotencyKey === key);
/** The error a call fails with (the test fails if it does not). */
async function failure(call: Promise<unknown>): Promise<InstanceType<typeof Stripe.errors.StripeError>> {
  try {
    await call;
  } catch (err) {
    if (err instanceof Stripe.errors.StripeError) return err;
    throw err;
  }
  throw new Error("the call succeeded");
}
const rawDecline = (err: InstanceType<typeof Stripe.errors.StripeError>) => (err.raw as { decline_code?: string }).decline_code;
const charge = (key: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
  stripe.paymentIntents.create(
    { amount: 2000, currency: "usd", payment_method: "pm_card_visa", confirm: true, automatic_payment_methods: { enabled: true, allow_redirects: "never" }, ...extra },
    { idempotencyKey: key },
  );

describe("rate limits and Stripe's own errors", () => {
  it("a 429 with Stripe-Should-Retry: true is retried by the client with the same key; the charge is made once", async () => {
    const key = unique();
    faults.rateLimit("POST", "/v1/payment_intents", { shouldRetry: true });
    const pi = await charge(key);
    expect(pi.status).toBe("succeeded");
    expect(faults.injected.filter((f) => f.idempotencyKey === key).map((f) => f.kind)).toEqual(["rate_limit"]);
    expect(posts(key)).toHaveLength(1);
    expect([...peer.payments.intents.values()].filter((i) => i.id === pi.id)).toHaveLength(1);
  });

  it("a 429 with Stripe-Should-Retry: false, or without the header, is not retried: StripeRateLimitError, nothing made", async () => {
    for (const shouldRetry of [false, undefined]) {
      const key = unique();
      const before = peer.payments.intents.size;
      faults.rateLimit("POST", "/v1/payment_intents", { shouldRetry });
      const err = await failure(charge(key));
      expect(err).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
      expect([err.statusCode, err.code, err.rawType]).toEqual([429, "rate_limit", "invalid_request_error"]);
      expect(err.headers?.["stripe-should-retry"]).toBe(shouldRetry === undefined ? undefined : "false");
      expect(faults.injected.filter((f) => f.idempotencyKey === key)).toHaveLength(1);
      expect(peer.payments.intents.size).toBe(before);
    }
  });

  it("a 500 api_error is retried by the client (twice at most), then the 500 is the answer", async () => {
    const key = unique();
    faults.serverError("POST", "/v1/payment_intents");
    expect((await charge(key)).status).toBe("succeeded");
    expect(faults.injected.filter((f) => f.idempotencyKey === key).map((f) => f.kind)).toEqual(["api_error"]);

    const failing = unique();
    faults.serverError("POST", "/v1/payment_intents", { times: 3 });
    const err = await failure(charge(failing));
    expect(err).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect([err.statusCode, err.rawType]).toEqual([500, "api_error"]);
    expect(faults.injected.filter((f) => f.idempotencyKey === failing)).toHaveLength(3);
    expect(posts(failing)).toHaveLength(0);
  });

  it("a connection dropped after the charge: the client's retry with the same key gets the stored answer, one charge", async () => {
    const key = unique();
    faults.dropAfterProcessing("POST", "/v1/payment_intents");
    const pi = await charge(key);
    expect(pi.status).toBe("succeeded");
    expect(faults.pending()).toBe(0);
    // the first request was processed (the charge made), the second replayed
    expect(posts(key)).toHaveLength(2);
    expect(pi.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect([...peer.payments.intents.values()].filter((i) => i.amount === 2000 && i.id === pi.id)).toHaveLength(1);
    expect(peer.events.filter((e) => e.type === "payment_intent.succeeded" && e.object.id === pi.id)).toHaveLength(1);
  });

  it("without retries left, a dropped connection is a StripeConnectionError while the charge was made", async () => {
    const key = unique();
    const before = peer.payments.intents.size;
    faults.dropAfterProcessing("POST", "/v1/payment_intents", { times: 3 });
    const err = await failure(charge(key));
    expect(err).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(peer.payments.intents.size).toBe(before + 1);
    faults.clear();
  });

  it("an Idempotency-Key reused with other parameters: 400 idempotency_error, nothing made", async () => {
    const key = unique();
    await charge(key);
    const before = peer.payments.intents.size;
    const err = await failure(charge(key, { amount: 2100 }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect([err.statusCode, err.rawType]).toEqual([400, "idempotency_error"]);
    expect(err.message).toContain(`Try using a key other than '${key}'`);
    expect(peer.payments.intents.size).toBe(before);
  });
});

describe("declines with and without a decline_code", () => {
  it("card_declined carries Stripe's decline_code; expired_card, incorrect_cvc and processing_error carry none", async () => {
    const cases = [
      ["pm_card_chargeDeclined", "card_declined", "generic_decline", "Your card was declined.", undefined],
      ["pm_card_chargeDeclinedLostCard", "card_declined", "lost_card", "Your card was declined.", undefined],
      ["pm_card_chargeDeclinedExpiredCard", "expired_card", undefined, "Your card has expired.", "exp_month"],
      ["pm_card_chargeDeclinedIncorrectCvc", "incorrect_cvc", undefined, "Your card's security code is incorrect.", "cvc"],
      ["pm_card_chargeDeclinedProcessingError", "processing_error", undefined, "An error occurred while processing your card. Try again in a little bit.", undefined],
    ] as const;
    for (const [pm, code, declineCode, message, param] of cases) {
      const err = await failure(charge(unique(), { payment_method: pm }));
      expect(err, pm).toBeInstanceOf(Stripe.errors.StripeCardError);
      expect([err.statusCode, err.code, rawDecline(err), err.message, err.param], pm).toEqual([402, code, declineCode, message, param]);
      // the body has no decline_code at all; the client then sets its own field to "" (never a code to show)
      expect(Object.keys(err.raw as object).includes("decline_code"), pm).toBe(declineCode !== undefined);
      expect(err.decline_code, pm).toBe(declineCode ?? "");
      const intent = err.payment_intent;
      expect(intent?.status).toBe("requires_payment_method");
      expect(intent?.last_payment_error?.code).toBe(code);
      expect(intent?.last_payment_error?.decline_code).toBe(declineCode);
    }
  });

  it("the card numbers behind them, typed into the Payment Element, decline the same way", async () => {
    for (const [number, code] of [[STRIPE_CARDS.expired, "expired_card"], [STRIPE_CARDS.incorrectCvc, "incorrect_cvc"], [STRIPE_CARDS.processingError, "processing_error"]] as const) {
      const token = await confirmationToken(peer, number);
      const err = await failure(stripe.paymentIntents.create(
        { amount: 1500, currency: "usd", confirmation_token: token, confirm: true, automatic_payment_methods: { enabled: true, allow_redirects: "never" } },
        { idempotencyKey: unique() },
      ));
      expect([err.code, rawDecline(err)]).toEqual([code, undefined]);
    }
  });
});

describe("a customer deleted in the dashboard, a detached payment method", () => {
  it("an intent naming a deleted customer: 404 resource_missing with param customer; its retrieve says deleted; its card detached", async () => {
    const customer = await stripe.customers.create({ email: "gone@example.com" });
    const pm = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    const deleted = await stripe.customers.del(customer.id);
    expect(deleted).toMatchObject({ id: customer.id, deleted: true });
    expect(await stripe.customers.retrieve(customer.id)).toMatchObject({ id: customer.id, deleted: true });
    expect(peer.events.some((e) => e.type === "customer.deleted" && e.object.id === customer.id)).toBe(true);

    const err = await failure(charge(unique(), { customer: customer.id, payment_method: pm.id, off_session: true }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect([err.statusCode, err.code, err.param, err.message]).toEqual([404, "resource_missing", "customer", `No such customer: '${customer.id}'`]);
    expect((await stripe.paymentMethods.retrieve(pm.id)).customer).toBeNull();
    // its saved card, named without the customer, is refused too: detached with it
    const reuse = await failure(charge(unique(), { payment_method: pm.id }));
    expect([reuse.statusCode, reuse.param]).toEqual([400, "payment_method"]);
    expect(reuse.message).toContain("detached from a Customer, and may not be used again");
  });

  it("the test's control deletes a customer as the dashboard does", async () => {
    const customer = await stripe.customers.create({ email: "dashboard@example.com" });
    peer.payments.deleteCustomer(customer.id);
    const err = await failure(stripe.setupIntents.create({
      customer: customer.id, payment_method: "pm_card_visa", confirm: true, usage: "off_session",
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
    }));
    expect([err.statusCode, err.code, err.param]).toEqual([404, "resource_missing", "customer"]);
  });

  it("a detached payment method may not be used again; an unknown one is resource_missing with param payment_method", async () => {
    const customer = await stripe.customers.create({ email: "detach@example.com" });
    const pm = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    await stripe.paymentMethods.detach(pm.id);
    const err = await failure(charge(unique(), { customer: customer.id, payment_method: pm.id, off_session: true }));
    expect([err.statusCode, err.rawType, err.param]).toEqual([400, "invalid_request_error", "payment_method"]);
    expect(err.message).toBe("This PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.");
    const unknown = await failure(charge(unique(), { payment_method: "pm_1NoSuchMethod" }));
    expect([unknown.statusCode, unknown.code, unknown.param, unknown.message]).toEqual([404, "resource_missing", "payment_method", "No such PaymentMethod: 'pm_1NoSuchMethod'"]);
  });
});

describe("confirmation tokens used twice, expired, or of the wrong mode", () => {
  const confirmWith = (token: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
    stripe.paymentIntents.create(
      { amount: 1500, currency: "usd", confirmation_token: token, confirm: true, automatic_payment_methods: { enabled: true, allow_redirects: "never" }, ...extra },
      { idempotencyKey: unique() },
    );

  it("a token confirms once; used again it is refused", async () => {
    const token = await confirmationToken(peer, STRIPE_CARDS.visa);
    expect((await confirmWith(token)).status).toBe("succeeded");
    const err = await failure(confirmWith(token));
    expect([err.statusCode, err.code]).toEqual([400, "confirmation_token_already_used"]);
  });

  it("an expired token is refused, and nothing is charged", async () => {
    const token = await confirmationToken(peer, STRIPE_CARDS.visa);
    peer.payments.expireToken(token);
    const before = [...peer.payments.intents.values()].filter((i) => i.status === "succeeded").length;
    const err = await failure(confirmWith(token));
    expect([err.statusCode, err.code, err.param]).toEqual([400, "confirmation_token_expired", "confirmation_token"]);
    expect([...peer.payments.intents.values()].filter((i) => i.status === "succeeded").length).toBe(before);
  });

  it("setup_future_usage of the token and of the PaymentIntent must be the same, both ways; a SetupIntent takes a saving token", async () => {
    const saving = await confirmationToken(peer, STRIPE_CARDS.visa, "off_session");
    const err = await failure(confirmWith(saving));
    expect([err.statusCode, err.param]).toEqual([400, "setup_future_usage"]);
    expect(err.message).toContain("(off_session) does not match the PaymentIntent's setup_future_usage (null)");
    const plain = await confirmationToken(peer, STRIPE_CARDS.visa);
    const other = await failure(confirmWith(plain, { setup_future_usage: "off_session", customer: (await stripe.customers.create({})).id }));
    expect(other.message).toContain("(null) does not match the PaymentIntent's setup_future_usage (off_session)");
    // the same tokens in the mode they were made for
    const customer = await stripe.customers.create({});
    expect((await confirmWith(await confirmationToken(peer, STRIPE_CARDS.visa, "off_session"), { setup_future_usage: "off_session", customer: customer.id })).status).toBe("succeeded");
    const setup = await stripe.setupIntents.create({
      customer: customer.id, confirmation_token: await confirmationToken(peer, STRIPE_CARDS.visa, "off_session"),
      confirm: true, usage: "off_session", automatic_payment_methods: { enabled: true, allow_redirects: "never" },
    });
    expect(setup.status).toBe("succeeded");
  });
});
