// What Stripe's payment_intent.* and setup_intent.* events change in till (issue 27 §2–§3): the processor
// finished a payment after till's request answered — 3-D Secure completed on the checkout page or in the portal,
// a bank debit cleared, or it failed. The event only says which intent; its current state is read from Stripe
// (events may come late, twice, or out of order), and the intent's metadata says what it pays:
//   - checkout_id: the checkout waiting `confirmed` is purchased now (completeCheckoutPayment), once whether the
//     confirm or the event came first; a failure ends it failed (a bank debit) or opens it again (a failed 3-D
//     Secure challenge): checkouts/payment-failed.ts.
//   - order_id and subscription_id: a subscription's order — a renewal, a plan change billed now or a dunning
//     retry whose bank debit was processing, or a retry the customer authenticated from the portal — is paid,
//     or its refusal puts the subscription past due (dunning's settleLatePayment).
//   - customer_id on a setup (the portal's): the method the customer set up is kept once Stripe finished it,
//     even when the page never confirms it (payments' keepFinishedSetup); a failed setup kept nothing.
//   - wallet_id, order_id and wallet_movement: a wallet's top-up or auto-recharge whose bank debit was processing
//     credits the wallet once, or its refusal stops auto-recharge as a decline does (wallets' settleWalletCharge).
// The inbound pipeline (webhook.ts today) calls handleStripePaymentEvent once per recorded event.
import type { Db } from "../../db/client.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import { paymentIntentResult, setupIntentResult } from "../../payments/stripe/adapter.js";
import { stripeOf } from "../../payments/stripe/connection.js";
import { withoutCallSite, type Stripe } from "../../payments/stripe-client.js";
import { completeCheckoutPayment } from "../checkouts/confirm.js";
import { failCheckoutPayment } from "../checkouts/payment-failed.js";
import { settleLatePayment } from "../dunning/late.js";
import { isUuid } from "../http.js";
import { keepFinishedSetup } from "../payments/methods.js";
import { settleWalletCharge } from "../wallets/late.js";

export interface PaymentEventDeps {
  db: Db;
  secret: string;
  stripeApiUrl: string;
  baseURL: string;
}

export const PAYMENT_EVENT_TYPES = new Set([
  "payment_intent.succeeded",
  "payment_intent.payment_failed",
  "payment_intent.canceled",
  "setup_intent.succeeded",
  "setup_intent.setup_failed",
]);

type IntentOf = { kind: "payment"; intent: Stripe.PaymentIntent } | { kind: "setup"; intent: Stripe.SetupIntent };

/** The intent as Stripe holds it now (with its payment method, for the card's brand and last four). */
async function currentIntent(stripe: Stripe, type: string, id: string): Promise<IntentOf> {
  return type.startsWith("setup_intent.")
    ? { kind: "setup", intent: await withoutCallSite(() => stripe.setupIntents.retrieve(id, { expand: ["payment_method"] })) }
    : { kind: "payment", intent: await withoutCallSite(() => stripe.paymentIntents.retrieve(id, { expand: ["payment_method"] })) };
}

/**
 * Handles one verified Stripe event of an organization; events of other types are left alone. `not_ready`: the
 * payment it finishes is not recorded in till (yet): the event is tried again later.
 */
export async function handleStripePaymentEvent(
  deps: PaymentEventDeps,
  organizationId: string,
  event: { type: string; data: { object: unknown } },
): Promise<"handled" | "not_ready"> {
  if (!PAYMENT_EVENT_TYPES.has(event.type)) return "handled";
  const id = (event.data.object as { id?: unknown } | null)?.id;
  if (typeof id !== "string") return "handled";
  const connected = await stripeOf(deps.db, deps, organizationId);
  if (!connected) return "handled";
  const current = await currentIntent(connected.stripe, event.type, id);
  const metadata = current.intent.metadata ?? {};
  const result = current.kind === "payment" ? paymentIntentResult(current.intent) : setupIntentResult(current.intent);
  if (metadata.checkout_id) {
    await checkoutOutcome(deps, connected.processor, organizationId, metadata.checkout_id, current, result);
    return "handled";
  }
  if (metadata.order_id && metadata.subscription_id && current.kind === "payment") {
    const ref = { orderId: metadata.order_id, subscriptionId: metadata.subscription_id, processorPaymentId: current.intent.id };
    const outcome = await settleLatePayment({ db: deps.db, processor: connected.processor, baseURL: deps.baseURL }, organizationId, ref, result);
    return outcome === "not_recorded" ? "not_ready" : "handled";
  }
  // a setup made outside till may carry a customer_id of its own: only a till customer's id is looked at
  if (metadata.customer_id && isUuid(metadata.customer_id) && current.kind === "setup") {
    await keepFinishedSetup({ db: deps.db, processor: connected.processor }, organizationId, metadata.customer_id, result);
    return "handled";
  }
  if (metadata.wallet_id && metadata.order_id && metadata.wallet_movement && current.kind === "payment") {
    const ref = { walletId: metadata.wallet_id, orderId: metadata.order_id, key: metadata.wallet_movement, processorPaymentId: current.intent.id };
    const outcome = await settleWalletCharge(deps.db, organizationId, ref, result);
    return outcome === "not_recorded" ? "not_ready" : "handled";
  }
  return "handled";
}

async function checkoutOutcome(
  deps: PaymentEventDeps,
  processor: PaymentProcessor,
  organizationId: string,
  checkoutId: string,
  current: IntentOf,
  result: ReturnType<typeof paymentIntentResult>,
): Promise<void> {
  if (result.ok) {
    await completeCheckoutPayment({ db: deps.db, baseURL: deps.baseURL, processor }, organizationId, checkoutId, processor, result);
    return;
  }
  // still waiting (processing, or the customer has not acted yet): nothing to do
  if (result.next) return;
  // failed: the checkout waiting for this intent ends failed (a debit) or opens again (a challenge), the attempt recorded
  const { intent } = current;
  const payment = current.kind === "payment" ? current.intent : null;
  const method = typeof intent.payment_method === "object" && intent.payment_method ? intent.payment_method.type : "card";
  const failed = { id: intent.id, kind: current.kind, amount: payment?.amount ?? 0, currency: payment?.currency ?? "usd", method };
  await failCheckoutPayment(deps, organizationId, checkoutId, failed, result, processor.id);
}
