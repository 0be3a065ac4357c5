// A checkout whose total is positive but under the smallest amount its processor may charge in its currency
// (Stripe's `amount_too_small`, server/payments/minimum-charge.ts) is refused with a 422 that names the minimum,
// when the checkout is created or changed (a seller creating it through the API learns it at once; a buyer's
// discount code that brings it there is refused as they enter it) and again at confirm, before any payment.
import { formatMoney } from "../../../shared/money.js";
import { validationError, type ValidationIssue } from "../errors.js";
import type { CheckoutPatch } from "./input.js";
import { derive, type CheckoutView } from "./wire.js";

/** The issue, or null when the total is 0, not charged now (a trial), or at least `minimum`. */
export function minimumChargeIssue(view: CheckoutView, patch: Pick<CheckoutPatch, "discount_code">, minimum: (currency: string) => number, now: Date): ValidationIssue | null {
  const d = derive(view, now);
  const { currency } = view.row;
  const least = minimum(currency);
  if (!d.isPaymentRequired || d.totalAmount >= least) return null;
  // what brought it there: the discount (the code the buyer typed, or the one the seller set), else the amount
  const field = d.discountAmount > 0 ? (patch.discount_code ? "discount_code" : "discount_id") : "amount";
  return {
    loc: ["body", field],
    msg: `The total, ${formatMoney(d.totalAmount, currency, "en")}, is below the smallest amount that can be charged in ${currency.toUpperCase()} (${formatMoney(least, currency, "en")}).`,
    type: "value_error",
    input: d.totalAmount,
    code: "amount_below_minimum",
  };
}

/** Throws the 422 of minimumChargeIssue. */
export function assertMinimumCharge(view: CheckoutView, patch: Pick<CheckoutPatch, "discount_code">, minimum: (currency: string) => number, now: Date): void {
  const issue = minimumChargeIssue(view, patch, minimum, now);
  if (issue) throw validationError([issue]);
}
