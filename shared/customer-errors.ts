// The stable machine codes of the errors a customer can meet on the checkout page and in the portal. The server
// puts one as `code` beside Polar's `error` and `detail` (and on a 422's issue beside `loc`, `msg`, `type`): an
// addition the SDKs' schemas let through, the wire otherwise Polar's. The pages say each code in the buyer's
// language (web/src/i18n/server-errors.ts) and show the English `detail` only for an error without one.
// A payment refused by the processor carries the processor's own code (Stripe's decline codes: card_declined,
// insufficient_funds, expired_card, …), which the pages map too where they know it.
export const CUSTOMER_ERROR_CODES = [
  // the card and its payment (the test processor's, named as Stripe names them)
  "card_declined",
  "insufficient_funds",
  "incorrect_number",
  "expired_card",
  "invalid_token",
  "invalid_payment_method",
  "no_payment_method",
  // a payment the processor could not process (not a decline: the seller's or till's, or an outage)
  "processing_error",
  // the checkout
  "checkout_expired",
  "already_subscribed",
  "total_changed",
  "amount_below_minimum",
  "seats_unavailable",
  "discount_unknown",
  "discount_over",
  "discount_not_yet",
  "discount_not_applicable",
  "tax_id_invalid",
  "tax_id_country",
  "required",
  // the portal
  "session_code_invalid",
  "email_link_invalid",
  "change_not_allowed",
  "already_canceled",
  "subscription_busy",
  "payment_in_progress",
  // a bank debit of the order still processing: it is paid no other way meanwhile (the pay page)
  "debit_processing",
  "payment_method_in_use",
  "seats_inactive",
  "member_exists",
  "role_refused",
  "owner_only",
  "own_role",
  "remove_self",
  "remove_owner",
  "recharge_amount_required",
] as const;

export type CustomerErrorCode = (typeof CUSTOMER_ERROR_CODES)[number];
