// The payments' own errors, once each, in Polar's shapes: 400 PaymentError (a charge or a refund the processor
// refused: checkout confirm, refunds) and 402 PaymentFailed (a manual order's charge declined). `code` is the
// processor's reason (Stripe's decline codes), which the customer pages say in the buyer's language. And the
// portal's payment methods: one the processor would not set up, one that pays for a subscription still billed.
import { declareBody, declareError } from "../errors.js";

const withCode = (code: string | undefined) => (code ? { code } : {});
export const paymentError = declareBody(400, "PaymentError", (detail: string, code?: string) => ({ error: "PaymentError", detail, ...withCode(code) }));
export const paymentFailed = declareBody(402, "PaymentFailed", (detail: string, code?: string) => ({ error: "PaymentFailed", detail, ...withCode(code) }));

/** A method the processor would not set up; the document shows Polar's 400 of the operation, CustomerNotReady. */
export const paymentMethodSetupFailed = declareError({ status: 400, error: "PaymentMethodSetupFailed", model: "CustomerNotReady", detail: (detail: string) => detail });

export const paymentMethodInUse = declareError({
  status: 400,
  error: "PaymentMethodInUseByActiveSubscription",
  detail: "This payment method pays for an active subscription: add another one before removing it.",
  code: "payment_method_in_use",
});
