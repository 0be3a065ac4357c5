// The payments' own errors, once each, in Polar's shapes: 400 PaymentError (a charge or a refund the processor
// refused: checkout confirm, refunds) and 402 PaymentFailed (a manual order's charge declined).
import { ApiError } from "../errors.js";

export const paymentError = (detail: string) => new ApiError(400, { error: "PaymentError", detail });
export const paymentFailed = (detail: string) => new ApiError(402, { error: "PaymentFailed", detail });
