// The subscriptions' own errors, once each, in Polar's wording: 403 AlreadyCanceledSubscription (a change or a
// renewal of a subscription that is canceled, or set to be at the period end) and 409 SubscriptionLocked.
import { declareError } from "../errors.js";

export const alreadyCanceled = declareError({
  status: 403,
  error: "AlreadyCanceledSubscription",
  detail: "This subscription is already canceled or will be at the end of the period.",
  code: "already_canceled",
});

export const subscriptionLocked = declareError({ status: 409, error: "SubscriptionLocked", detail: "This subscription is being updated; try again.", code: "subscription_busy" });
