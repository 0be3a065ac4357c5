// The server's messages a buyer may read (a decline, a refused discount code, a field the API refused), in the
// page's language: the known ones by their English text, any other as a plain "check this" in the buyer's words
// (the English original stays for an English page). The server speaks English on the wire, as Polar's does. The
// table holds the checkout's and the portal's messages; a page whose catalog lacks one says "check this".
import { intl, locale, t, type MessageId } from "./intl.js";

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
  // the customer portal's (its catalog alone has these)
  "A member with this email address already exists for this customer.": "server.memberExists",
  "Your role in this team does not allow this: ask its owner or a billing manager.": "server.roleRefused",
  "Only the team's owner and billing managers can manage members.": "server.roleRefused",
  "Only the owner can hand ownership on.": "server.ownerOnly",
  "You cannot change your own role.": "server.ownRole",
  "You cannot remove yourself from the team.": "server.removeSelf",
  "The owner of a team cannot be removed: make another member the owner first.": "server.removeOwner",
  "This payment method pays for an active subscription: add another one before removing it.": "server.cardInUse",
  "There is no payment method on file.": "server.noCard",
  "This subscription is already canceled or will be at the end of the period.": "server.alreadyCancelled",
  "This subscription is being updated; try again.": "server.busy",
  "The subscription is not active: its seats cannot be assigned or claimed.": "server.seatsInactive",
  "This email update link is invalid, was used already or has expired.": "server.emailLinkInvalid",
  "Changing the plan is not allowed by the seller.": "server.notAllowed",
  "Changing the seats is not allowed by the seller.": "server.notAllowed",
  "This change is not available to customers.": "server.notAllowed",
  "An amount to charge is required to turn auto-recharge on.": "server.rechargeAmount",
};

/** A server message as the buyer reads it; `fallback` is what an unknown one becomes on a non-English page. */
export function serverMessage(message: string, fallback: MessageId = "server.unknown"): string {
  if (locale() === "en") return message;
  const known = KNOWN[message];
  if (known && known in intl().messages) return t(known);
  if (message.startsWith("The total changed")) return t("server.totalChanged");
  if (/^(No seat tier covers|Seats must be)/.test(message)) return t("server.seats");
  return t(fallback);
}
