// The payments' own errors, once each, in Polar's shapes: 400 PaymentError (a charge or a refund the processor
// refused: checkout confirm, refunds) and 402 PaymentFailed (a manual order's charge declined). `code` is the
// processor's reason (Stripe's decline codes), which the customer pages say in the buyer's language.
import { ApiError } from "../errors.js";

const withCode = (code: string | undefined) => (code ? { code } : {});
export const paymentError = (detail: string, code?: string) => new ApiError(400, { error: "PaymentError", detail, ...withCode(code) });
export const paymentFailed = (detail: string, code?: string) => new ApiError(402, { error: "PaymentFailed", detail, ...withCode(code) });
