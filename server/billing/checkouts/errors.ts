// The checkouts' own errors, once each, in Polar's names and statuses (as the SDK declares them): 410
// ExpiredCheckoutError; 403 CheckoutForbiddenError, the union of NotOpenCheckout, PaymentNotReady and
// AlreadyActiveSubscriptionError; and till's 409 CheckoutTotalChanged (the confirm computed another total).
import { formatMoney } from "../../../shared/money.js";
import { declareError, errorUnion } from "../errors.js";
import type { StatusReport } from "../organizations/status.js";
import type { CheckoutRow } from "./wire.js";

export const expiredCheckout = declareError({ status: 410, error: "ExpiredCheckoutError", detail: "This checkout session has expired.", code: "checkout_expired" });

export const notOpenCheckout = declareError({ status: 403, error: "NotOpenCheckout", detail: (row: CheckoutRow, status: string) => `Checkout ${row.id} is not open: ${status}` });

/**
 * Polar's error for an organization that cannot take payments; till's says what the organization lacks (its
 * status and the steps not done, organizations/status.ts) and how to test meanwhile.
 */
export const paymentNotReady = declareError({
  status: 403,
  error: "PaymentNotReady",
  detail: (report: StatusReport | null) => {
    const missing = report?.steps.filter((s) => !s.done).map((s) => (s.command ? `${s.text} (${s.command})` : s.text)) ?? [];
    const why = report ? `This live organization cannot take payments yet (status: ${report.lifecycle_status})` : "This live organization cannot take payments yet";
    return (
      `${why}${missing.length > 0 ? `: ${missing.join("; ")}` : ""}. ` +
      "Meanwhile, open this checkout in the sandbox (`till sandbox on`, or a till_test_ API key); for local development, " +
      "start the server with TILL_TEST_PAYMENTS=live."
    );
  },
});

export const alreadyActiveSubscription = declareError({
  status: 403,
  error: "AlreadyActiveSubscriptionError",
  detail: "You already have an active subscription.",
  code: "already_subscribed",
});

/** What a checkout's writes refuse with 403, as Polar documents it. */
export const checkoutForbidden = errorUnion("CheckoutForbiddenError", [notOpenCheckout, paymentNotReady, alreadyActiveSubscription]);

/**
 * The confirm computed another total than the one the buyer was shown (`expected_total_amount`): nothing is charged.
 */
export const totalChanged = declareError({
  status: 409,
  error: "CheckoutTotalChanged",
  detail: (shown: number, total: number, currency: string) =>
    `The total changed: it is now ${formatMoney(total, currency)}, not ${formatMoney(shown, currency)}. Nothing was charged; check the total and pay again.`,
  code: "total_changed",
});
