// What the seller app says in a seller's words where the API speaks a developer's: an event's webhook type
// (`order.paid` → "Order paid"), a card's brand (`amex` → "American Express"), the status of an order, a payment, a
// subscription, a seat, a refund and a dispute (`past_due` → "Past due"), a dispute's reason (Stripe's
// `product_not_received`), a refund's reason, an order's billing reason, a benefit's type, and a meter's remainder
// once usage went past its credits. One mapping each, read through `wordsFor`: what a mapping
// does not know still reads (its words, capitalized), so a new value never shows as a blank; a missing one, a dash.
import { readable, wordsFor } from "../wording.js";

export { readable };

const EVENTS: Readonly<Record<string, string>> = {
  "order.created": "Order created",
  "order.updated": "Order changed",
  "order.paid": "Order paid",
  "order.refunded": "Order refunded",
  "refund.created": "Refund made",
  "refund.updated": "Refund changed",
  "subscription.created": "Subscription started",
  "subscription.active": "Subscription active",
  "subscription.updated": "Subscription changed",
  "subscription.canceled": "Subscription set to cancel",
  "subscription.uncanceled": "Subscription kept (cancellation taken back)",
  "subscription.revoked": "Subscription ended",
  "subscription.past_due": "Renewal payment failed",
  "subscription.paused": "Subscription paused",
  "subscription.resumed": "Subscription resumed",
  "benefit_grant.created": "Benefit granted",
  "benefit_grant.updated": "Benefit grant changed",
  "benefit_grant.revoked": "Benefit revoked",
  "benefit_grant.cycled": "Benefit renewed for the new period",
  "checkout.created": "Checkout opened",
  "checkout.updated": "Checkout changed",
  "checkout.expired": "Checkout expired",
  "customer.created": "Customer created",
  "customer.updated": "Customer changed",
  "customer.deleted": "Customer deleted",
  "customer.state_changed": "Customer's access changed",
  "customer_seat.assigned": "Seat assigned",
  "customer_seat.claimed": "Seat claimed",
  "customer_seat.revoked": "Seat revoked",
  "member.created": "Team member added",
  "member.updated": "Team member changed",
  "member.deleted": "Team member removed",
  "product.created": "Product created",
  "product.updated": "Product changed",
  "benefit.created": "Benefit created",
  "benefit.updated": "Benefit changed",
  "organization.updated": "Organization changed",
  "till.usage_alert.triggered": "Usage alert reached",
  "till.wallet.transaction.created": "Wallet moved",
  "till.wallet.updated": "Wallet balance changed",
};

/** An event's webhook type in a seller's words (till's own events without their `till.` prefix). */
export const eventWords = wordsFor(EVENTS, (type) => readable(type.replace(/^till\./, "")));

/** A card's brand as printed on it (shared with the customer portal). */
export { cardBrand } from "../card-brand.js";

const ORDER_STATUSES: Readonly<Record<string, string>> = {
  pending: "Pending",
  paid: "Paid",
  partially_refunded: "Partially refunded",
  refunded: "Refunded",
  void: "Void",
};

/** Where an order's money stands. */
export const orderStatus = wordsFor(ORDER_STATUSES);

const PAYMENT_STATUSES: Readonly<Record<string, string>> = {
  pending: "Pending",
  succeeded: "Succeeded",
  failed: "Failed",
};

/** Whether a payment went through. */
export const paymentStatus = wordsFor(PAYMENT_STATUSES);

const SUBSCRIPTION_STATUSES: Readonly<Record<string, string>> = {
  incomplete: "Incomplete",
  incomplete_expired: "Incomplete, expired",
  trialing: "Trialing",
  active: "Active",
  past_due: "Past due",
  canceled: "Canceled",
  unpaid: "Unpaid",
};

/** Where a subscription stands. */
export const subscriptionStatus = wordsFor(SUBSCRIPTION_STATUSES);

const SEAT_STATUSES: Readonly<Record<string, string>> = {
  pending: "Pending",
  claimed: "Claimed",
  revoked: "Revoked",
};

/** Whether a seat's holder took it. */
export const seatStatus = wordsFor(SEAT_STATUSES);

const DISPUTE_STATUSES: Readonly<Record<string, string>> = {
  early_warning: "Early warning",
  warning_needs_response: "Early warning: needs your response",
  needs_response: "Needs your response",
  under_review: "Under review",
  won: "Won",
  lost: "Lost",
  prevented: "Prevented",
};

/** A dispute's status, saying when the seller has something to do. */
export const disputeStatus = wordsFor(DISPUTE_STATUSES);

// Stripe's dispute reasons (Stripe.Dispute's `reason`), as the customer's bank put them.
const DISPUTE_REASONS: Readonly<Record<string, string>> = {
  bank_cannot_process: "The bank could not process it",
  check_returned: "The check was returned",
  credit_not_processed: "Refund or credit promised, not received",
  customer_initiated: "The customer asked their bank",
  debit_not_authorized: "Debit not authorized",
  duplicate: "Charged twice",
  fraudulent: "Fraud: the cardholder did not make this payment",
  general: "Other",
  incorrect_account_details: "Wrong account details",
  insufficient_funds: "Insufficient funds",
  noncompliant: "Not compliant with the card network's rules",
  product_not_received: "Product not received",
  product_unacceptable: "Product defective or not as described",
  subscription_canceled: "Billed after canceling the subscription",
  unrecognized: "The customer does not recognize the payment",
};

/** Why the customer's bank disputes the payment. */
export const disputeReason = wordsFor(DISPUTE_REASONS);

const REFUND_REASONS: Readonly<Record<string, string>> = {
  customer_request: "The customer asked",
  duplicate: "Charged twice",
  fraudulent: "Fraudulent payment",
  service_disruption: "Service disruption",
  satisfaction_guarantee: "Satisfaction guarantee",
  other: "Other",
};

/** Why the seller refunded. */
export const refundReason = wordsFor(REFUND_REASONS);

const REFUND_STATUSES: Readonly<Record<string, string>> = {
  pending: "Pending",
  succeeded: "Refunded",
  failed: "Failed",
  canceled: "Canceled",
};

/** Where a refund's money is. */
export const refundStatus = wordsFor(REFUND_STATUSES);

const BILLING_REASONS: Readonly<Record<string, string>> = {
  purchase: "One-time purchase",
  subscription_create: "First payment of a subscription",
  subscription_cycle: "Subscription renewal",
  subscription_update: "Change of a subscription",
};

/** What an order bills for. */
export const billingReason = wordsFor(BILLING_REASONS);

const BENEFIT_TYPES: Readonly<Record<string, string>> = {
  custom: "Custom",
  license_keys: "License keys",
  downloadables: "File downloads",
  github_repository: "GitHub repository access",
  discord: "Discord role",
  meter_credit: "Meter credits",
  feature_flag: "Feature flag",
};

/** A benefit's type by its proper name. */
export const benefitType = wordsFor(BENEFIT_TYPES);

/** What is left of a meter's credits; usage past them is said as overage, never as a negative remainder. */
export function meterLeft(balance: number): string {
  const n = (v: number) => v.toLocaleString("en");
  return balance < 0 ? `${n(-balance)} over the credit` : n(balance);
}
