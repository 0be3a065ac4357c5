// The handlers of Stripe events, by the module that owns what they change: one line per module. A module adds
// its handler here (the PaymentIntent events of the Stripe payment adapter belong beside these).
import type { StripeEventHandler } from "./registry.js";
import { disputeEvents } from "./disputes.js";
import { paymentIntentEvents } from "./payment-intents.js";
import { refundEvents } from "./refunds.js";

export const STRIPE_EVENT_HANDLERS: readonly StripeEventHandler[] = [paymentIntentEvents, refundEvents, disputeEvents];
