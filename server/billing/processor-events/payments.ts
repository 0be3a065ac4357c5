// What a processor's payment and setup events change in till: the processor finished a payment after till's request
// answered — 3-D Secure completed on the checkout page or in the portal, a bank debit cleared, or it failed. The
// adapter reads the intent as it is now (events may come late, twice, or out of order), and the metadata till put
// on it says what it pays:
//   - checkout_id: the checkout waiting `confirmed` is purchased now (completeCheckoutPayment), once whether the
//     confirm or the event came first; a failure ends it failed (a bank debit) or opens it again (a failed 3-D
//     Secure challenge): checkouts/payment-failed.ts.
//   - order_id and subscription_id: a subscription's order — a renewal, a plan change billed now or a dunning
//     retry whose bank debit was processing, or a retry the customer authenticated from the portal — is paid,
//     or its refusal puts the subscription past due (dunning's settleLatePayment).
//   - customer_id on a setup (the portal's): the method the customer set up is kept once the processor finished it,
//     even when the page never confirms it (payments' keepFinishedSetup); a failed setup kept nothing.
//   - wallet_id, order_id and wallet_movement: a wallet's top-up or auto-recharge whose bank debit was processing
//     credits the wallet once, or its refusal stops auto-recharge as a decline does (wallets' settleWalletCharge).
// Each is safe to run again (the checkout lock and the order's payment make it once).
import type { PaymentEvent } from "../../payments/accounts.js";
import { completeCheckoutPayment } from "../checkouts/confirm.js";
import { failCheckoutPayment } from "../checkouts/payment-failed.js";
import { settleLatePayment } from "../dunning/late.js";
import { isUuid } from "../http.js";
import { keepFinishedSetup } from "../payments/methods.js";
import { settleWalletCharge } from "../wallets/late.js";
import { ProcessorEventNotReady, type ProcessorEventContext, type ProcessorEventHandler } from "./registry.js";

/** `not_ready`: the payment it finishes is not recorded in till (yet): the event is tried again later. */
async function settle(ctx: ProcessorEventContext, event: PaymentEvent): Promise<"handled" | "not_ready"> {
  const { db, organizationId, baseURL } = ctx;
  const { processor, intent, metadata, result } = event;
  if (metadata.checkout_id) {
    await checkoutOutcome(ctx, metadata.checkout_id, event);
    return "handled";
  }
  if (metadata.order_id && metadata.subscription_id && intent.kind === "payment") {
    const ref = { orderId: metadata.order_id, subscriptionId: metadata.subscription_id, processorPaymentId: intent.id };
    const outcome = await settleLatePayment({ db, processor, baseURL }, organizationId, ref, result);
    return outcome === "not_recorded" ? "not_ready" : "handled";
  }
  // a setup made outside till may carry a customer_id of its own: only a till customer's id is looked at
  if (metadata.customer_id && isUuid(metadata.customer_id) && intent.kind === "setup") {
    await keepFinishedSetup({ db, processor }, organizationId, metadata.customer_id, result);
    return "handled";
  }
  if (metadata.wallet_id && metadata.order_id && metadata.wallet_movement && intent.kind === "payment") {
    const ref = { walletId: metadata.wallet_id, orderId: metadata.order_id, key: metadata.wallet_movement, processorPaymentId: intent.id };
    const outcome = await settleWalletCharge(db, organizationId, ref, result);
    return outcome === "not_recorded" ? "not_ready" : "handled";
  }
  return "handled";
}

async function checkoutOutcome(ctx: ProcessorEventContext, checkoutId: string, event: PaymentEvent): Promise<void> {
  const { processor, result } = event;
  if (result.ok) {
    await completeCheckoutPayment({ db: ctx.db, baseURL: ctx.baseURL, processor }, ctx.organizationId, checkoutId, processor, result);
    return;
  }
  // still waiting (processing, or the customer has not acted yet): nothing to do
  if (result.next) return;
  // failed: the checkout waiting for this intent ends failed (a debit) or opens again (a challenge), the attempt
  // recorded
  await failCheckoutPayment({ db: ctx.db, baseURL: ctx.baseURL }, ctx.organizationId, checkoutId, event.intent, result, processor.id);
}

export const paymentEvents: ProcessorEventHandler<"payment"> = {
  name: "payment_intents",
  async handle(ctx, event) {
    // a payment whose charge is not recorded in till yet (its transaction still open, or lost): later
    if ((await settle(ctx, event)) === "not_ready") throw new ProcessorEventNotReady(`the payment of ${ctx.event.objectId} is not recorded`);
    return "handled";
  },
};
