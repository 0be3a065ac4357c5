// The dunning's own errors, in Polar's names and statuses (customer_portal:orders:confirm_retry_payment):
// 422 OrderNotEligibleForRetry, 409 PaymentAlreadyInProgress, 429 ManualRetryLimitExceeded.
import { z } from "zod";
import { declareError, errorUnion } from "../errors.js";

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

const DebitProcessing = z.object({ error: z.literal("DebitProcessing"), detail: z.string(), code: z.literal("debit_processing") });

/**
 * till's own: a bank debit of the order (SEPA, ACH) is still processing. The processor cannot cancel it and the bank
 * answers within days, so the order is paid no other way meanwhile: not marked paid, nor paid by card or transfer on
 * its pay page (whose buyer reads the code in their words). Money that arrives twice anyway is given back
 * (duplicate.ts).
 */
export const debitProcessing = declareError({
  status: 409,
  error: "DebitProcessing",
  code: "debit_processing",
  model: DebitProcessing,
  detail: "A bank debit of this order is still processing: the order cannot be paid another way until the bank answers (within a few business days). If the debit fails, the order can be paid then.",
});

/** Mark paid's refusals: the order is not owed, or a bank debit of it is still processing. */
export const markPaidRefused = errorUnion(z.union([z.object({ error: z.literal("OrderNotPending"), detail: z.string() }), DebitProcessing]), [notPending, debitProcessing]);

/** The pay page's card payment refused: another attempt holds the order, or a bank debit of it is still processing. */
export const payLinkBusy = errorUnion(
  z.union([z.object({ error: z.literal("PaymentAlreadyInProgress"), detail: z.string(), code: z.literal("payment_in_progress") }), DebitProcessing]),
  [paymentInProgress, debitProcessing],
);

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

/** The pay page's bank transfer refused: none offered for the order, or a bank debit of it is still processing. */
export const bankTransferRefused = errorUnion(
  z.union([z.object({ error: z.literal("BankTransferUnavailable"), detail: z.string() }), DebitProcessing]),
  [bankTransferUnavailable, debitProcessing],
);
