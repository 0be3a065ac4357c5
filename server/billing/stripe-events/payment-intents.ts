// The PaymentIntent and SetupIntent events (issue 27 §2–§3) as a handler of the Stripe event pipeline: a payment
// the processor finished after till's request answered (3-D Secure, a bank debit, a failure) is acted on by
// payment-intent-events.ts, which reads the intent's current state from Stripe and is safe to run
// again (the checkout lock and the order's payment make it once).
import { handleStripePaymentEvent, PAYMENT_EVENT_TYPES } from "./payment-intent-events.js";
import { StripeEventNotReady, type StripeEventHandler } from "./registry.js";

export const paymentIntentEvents: StripeEventHandler = {
  name: "payment_intents",
  types: [...PAYMENT_EVENT_TYPES],
  async handle(ctx) {
    if (!ctx.event.objectId) return "ignored";
    const outcome = await handleStripePaymentEvent({ db: ctx.db, ...ctx.deps }, ctx.organizationId, { type: ctx.event.type, data: { object: { id: ctx.event.objectId } } });
    // a payment whose charge is not recorded in till yet (its transaction still open, or lost): later
    if (outcome === "not_ready") throw new StripeEventNotReady(`the payment of ${ctx.event.objectId} is not recorded`);
    return "handled";
  },
};
