// The server's messages a buyer may read (a decline, a refused discount code, a field the API refused), in the
// page's language: the known ones by their English text, any other as a plain "check this" in the buyer's words
// (the English original stays for an English page). The server speaks English on the wire, as Polar's does.
import { locale, t, type MessageId } from "./intl.js";

const KNOWN: Record<string, MessageId> = {
  "Your card was declined.": "server.declined",
  "Your card has insufficient funds.": "server.insufficientFunds",
  "Your card number is invalid.": "server.cardNumberInvalid",
  "Your card's security code is invalid.": "server.cvcInvalid",
  "Your card's expiration date is in the past.": "card.expiryPast",
  "The payment details are invalid. Please enter your card again.": "server.paymentInvalid",
  "The saved payment method is invalid.": "server.paymentInvalid",
  "Discount does not exist.": "server.discountUnknown",
  "Discount is no longer redeemable.": "server.discountOver",
  "Discount is not yet redeemable.": "server.discountNotYet",
  "Discount is not applicable to this product.": "server.discountNotApplicable",
  "Discount is not applicable to this currency.": "server.discountNotApplicable",
  "Discounts are not applicable to this product.": "server.discountNotApplicable",
  "Discount codes are not accepted on this checkout.": "server.discountNotApplicable",
  "Invalid tax ID.": "server.taxIdInvalid",
  "Country is required to validate tax ID.": "server.taxIdCountry",
  "Field is required.": "server.required",
  "This checkout session has expired.": "server.expired",
  "You already have an active subscription.": "server.alreadySubscribed",
};

/** A server message as the buyer reads it; `fallback` is what an unknown one becomes on a non-English page. */
export function serverMessage(message: string, fallback: MessageId = "server.unknown"): string {
  if (locale() === "en") return message;
  const known = KNOWN[message];
  if (known) return t(known);
  if (message.startsWith("The total changed")) return t("server.totalChanged");
  if (/^(No seat tier covers|Seats must be)/.test(message)) return t("server.seats");
  return t(fallback);
}
