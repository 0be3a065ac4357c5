// How the Stripe adapter reads Stripe's errors (failureOf): card errors and the request errors a customer can fix
// are declines with a decline code that is never empty; every other error Stripe answers is not the customer's —
// nothing was charged, the buyer reads till's message and never Stripe's developer message.
import { describe, expect, it } from "vitest";
import { PROCESSING_ERROR_CODE, PROCESSING_ERROR_MESSAGE } from "../../server/payments/processor.js";
import { failureOf } from "../../server/payments/stripe/adapter.js";
import { Stripe } from "../../server/payments/stripe/client.js";

type Raw = ConstructorParameters<typeof Stripe.errors.StripeCardError>[0];
/**
 * The error the client makes of Stripe's answer with that body (its class is chosen by the HTTP status, as the client
 * does).
 */
const stripeError = (raw: Raw & { type: string }) => {
  const E = Stripe.errors;
  if (raw.type === "card_error") return new E.StripeCardError(raw);
  if (raw.type === "invalid_request_error") return new E.StripeInvalidRequestError(raw);
  if (raw.type === "authentication_error") return new E.StripeAuthenticationError(raw);
  if (raw.type === "rate_limit_error") return new E.StripeRateLimitError(raw);
  return new E.StripeAPIError(raw);
};

describe("failureOf", () => {
  it("a card error without a decline code is declined with its error code (the client gives the missing one as \"\")", () => {
    const err = stripeError({ type: "card_error", code: "incorrect_cvc", message: "Your card's security code is incorrect." });
    expect((err as { decline_code?: string }).decline_code).toBe("");
    expect(failureOf(err)).toEqual({ ok: false, code: "incorrect_cvc", message: "Your card's security code is incorrect." });
  });

  it("a card error with a decline code is declined with it", () => {
    const err = stripeError({ type: "card_error", code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." });
    expect(failureOf(err)).toMatchObject({ ok: false, code: "insufficient_funds" });
    expect(failureOf(err)).not.toHaveProperty("processorError");
  });

  it("a card error with neither code is declined card_declined", () => {
    expect(failureOf(stripeError({ type: "card_error", message: "" }))).toMatchObject({ code: "card_declined", message: "Your card was declined." });
  });

  it("a request error the customer can fix (a failed 3-D Secure challenge) is a decline", () => {
    const err = stripeError({ type: "invalid_request_error", code: "payment_intent_authentication_failure", message: "We are unable to authenticate your payment method." });
    expect(failureOf(err)).toMatchObject({ ok: false, code: "payment_intent_authentication_failure" });
    expect(failureOf(err)).not.toHaveProperty("processorError");
  });

  for (const [code, message] of [
    ["parameter_unknown", "Received unknown parameter: payment_method_types"],
    ["amount_too_small", "Amount must be at least $0.50 usd"],
    ["resource_missing", "No such customer: 'cus_123'"],
    ["livemode_mismatch", "No such payment_method: a similar object exists in live mode, but a test mode key was used"],
  ] as const) {
    it(`a request error of till's or the seller's (${code}) is not the customer's decline`, () => {
      const failure = failureOf(stripeError({ type: "invalid_request_error", code, message }));
      expect(failure).toEqual({ ok: false, code: PROCESSING_ERROR_CODE, message: PROCESSING_ERROR_MESSAGE, processorError: { code, detail: message, transient: false, answerLost: false } });
    });
  }

  it("a revoked key, a rate limit, an outage and a lost connection are not declines; the passing ones are transient", () => {
    expect(failureOf(stripeError({ type: "authentication_error", message: "Invalid API Key provided: sk_test_****1234" })).processorError).toMatchObject({ transient: false });
    expect(failureOf(stripeError({ type: "rate_limit_error", code: "rate_limit", message: "Too many requests" })).processorError).toMatchObject({ code: "rate_limit", transient: true });
    expect(failureOf(stripeError({ type: "api_error", message: "Something went wrong on Stripe's end." })).processorError).toMatchObject({ transient: true });
    const lost = new Stripe.errors.StripeConnectionError({ message: "An error occurred with our connection to Stripe." });
    expect(failureOf(lost)).toMatchObject({ code: PROCESSING_ERROR_CODE, processorError: { transient: true } });
  });

  it("what is not Stripe's error is till's bug, thrown", () => {
    expect(() => failureOf(new TypeError("x is undefined"))).toThrow(TypeError);
  });
});
