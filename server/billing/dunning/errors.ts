// The dunning's own errors, in Polar's names and statuses (customer_portal:orders:confirm_retry_payment):
// 422 OrderNotEligibleForRetry, 409 PaymentAlreadyInProgress, 429 ManualRetryLimitExceeded.
import { z } from "zod";
import { declareError } from "../errors.js";

export const notEligibleForRetry = declareError({ status: 422, error: "OrderNotEligibleForRetry", detail: "This order is not awaiting a payment." });

export const paymentInProgress = declareError({
  status: 409,
  error: "PaymentAlreadyInProgress",
  detail: "A payment of this order is already in progress.",
  code: "payment_in_progress",
});

export const manualRetryLimitExceeded = declareError({
  status: 429,
  error: "ManualRetryLimitExceeded",
  detail: (limit: number) => `This order was retried ${limit} times: contact the seller.`,
});

/** till's own (POST /v1/orders/{id}/mark-paid): an order that is not owed (paid, refunded, void) is not marked. */
export const notPending = declareError({
  status: 409,
  error: "OrderNotPending",
  // till's own error: the SDKs have no model of it, so the document describes its body
  model: z.object({ error: z.string(), detail: z.string() }),
  detail: "Only an unpaid (pending) order can be marked paid.",
});

/**
 * till's own (POST /v1/pay/{token}/bank-transfer): the seller's payment account offers no bank transfer for the order
 * (the test processor, a currency Stripe takes none in, or Stripe refused to start one).
 */
export const bankTransferUnavailable = declareError({
  status: 409,
  error: "BankTransferUnavailable",
  model: z.object({ error: z.string(), detail: z.string() }),
  detail: (why: string = "This order cannot be paid by bank transfer. Pay it by card, or ask the seller.") => why,
});
