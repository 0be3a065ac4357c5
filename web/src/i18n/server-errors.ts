// The server's errors a buyer may read (a decline, a refused discount code, an expired checkout, a wrong sign-in
// code), in the page's language: the server names each with a stable machine code (`code`, shared/customer-errors.ts,
// or the processor's decline code) and the page says that code from its catalog. An error without a known code is
// shown as the server wrote it (English on the wire, as Polar's), and so is every error on an English page. A code
// whose message the page's catalog lacks (the portal's member errors on the checkout) is shown as written too.
import type { CustomerErrorCode } from "../../../shared/customer-errors.js";
import { intl, locale, t, type MessageId } from "./intl.js";

const BY_CODE: Record<CustomerErrorCode, MessageId> = {
  card_declined: "server.declined",
  insufficient_funds: "server.insufficientFunds",
  incorrect_number: "server.cardNumberInvalid",
  expired_card: "card.expiryPast",
  invalid_token: "server.paymentInvalid",
  invalid_payment_method: "server.paymentInvalid",
  no_payment_method: "server.noCard",
  processing_error: "server.processingError",
  checkout_expired: "server.expired",
  already_subscribed: "server.alreadySubscribed",
  total_changed: "server.totalChanged",
  amount_below_minimum: "server.belowMinimum",
  seats_unavailable: "server.seats",
  discount_unknown: "server.discountUnknown",
  discount_over: "server.discountOver",
  discount_not_yet: "server.discountNotYet",
  discount_not_applicable: "server.discountNotApplicable",
  tax_id_invalid: "server.taxIdInvalid",
  tax_id_country: "server.taxIdCountry",
  required: "server.required",
  session_code_invalid: "signIn.codeWrong",
  email_link_invalid: "server.emailLinkInvalid",
  change_not_allowed: "server.notAllowed",
  already_canceled: "server.alreadyCancelled",
  subscription_busy: "server.busy",
  payment_in_progress: "server.paymentInProgress",
  debit_processing: "server.debitProcessing",
  payment_method_in_use: "server.cardInUse",
  seats_inactive: "server.seatsInactive",
  member_exists: "server.memberExists",
  role_refused: "server.roleRefused",
  owner_only: "server.ownerOnly",
  own_role: "server.ownRole",
  remove_self: "server.removeSelf",
  remove_owner: "server.removeOwner",
  recharge_amount_required: "server.rechargeAmount",
};

/** Stripe's decline codes beyond the test processor's (a live organization's cards), as the customer reads them. */
const STRIPE_CODES: Record<string, MessageId> = {
  generic_decline: "server.declined",
  do_not_honor: "server.declined",
  lost_card: "server.declined",
  stolen_card: "server.declined",
  pickup_card: "server.declined",
  restricted_card: "server.declined",
  fraudulent: "server.declined",
  transaction_not_allowed: "server.declined",
  card_velocity_exceeded: "server.declined",
  invalid_number: "server.cardNumberInvalid",
  incorrect_cvc: "server.cvcInvalid",
  invalid_cvc: "server.cvcInvalid",
};

const messageOf = (code: string): MessageId | undefined =>
  Object.hasOwn(BY_CODE, code) ? BY_CODE[code as CustomerErrorCode] : Object.hasOwn(STRIPE_CODES, code) ? STRIPE_CODES[code] : undefined;

/** A server error as the buyer reads it: its code's message in the page's language, else the server's words. */
export function serverMessage(message: string, code?: string | null): string {
  if (locale() === "en" || !code) return message;
  const id = messageOf(code);
  return id && id in intl().messages ? t(id) : message;
}
