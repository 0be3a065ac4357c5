// The Stripe adapter of the payment seam: an organization's Stripe account takes its payments.
// A checkout's confirmation token (made by Stripe.js's Payment Element on the page) is confirmed server-side as
// a PaymentIntent — a SetupIntent when nothing is due now (a trial) — on the Stripe customer of the till
// customer, set up for off-session use when a subscription will charge it again; renewals and retries charge
// the saved PaymentMethod off-session. Every create carries an idempotency key, so a retried request is taken
// once. Stripe's own decline messages are what the customer reads. An intent that needs the customer (3-D
// Secure) or is still on its way (bank debits) comes back as a NextAction; how it ends comes as an event
// (events.ts, billing/processor-events/payments.ts).
import type Stripe from "stripe";
import {
  type BankTransferAnswer,
  type BankTransferRequest,
  type CancelTransferRequest,
  type ChargeRequest,
  type Microdeposits,
  type NextAction,
  type PaymentMethodSummary,
  type PaymentProcessor,
  type PaymentRequest,
  type PaymentResult,
  type RefundRequest,
  type RefundResult,
  PAYMENT_CANCELED_CODE,
  unprocessed,
} from "../processor.js";
import { Stripe as StripeSdk, withoutCallSite } from "./client.js";
import { stripeMethodTypes } from "../../../shared/stripe.js";
import { minimumChargeAmount } from "../minimum-charge.js";
import { cancelTransfer, instructionsOf, offersBankTransfer, transferIntent } from "./bank-transfers.js";

/** What the checkout page needs to mount the Payment Element (Polar's metadata carries the publishable key too). */
export const STRIPE_METADATA_PROCESSOR = "stripe";

const summaryOf = (pm: Stripe.PaymentMethod | string | null): PaymentMethodSummary => {
  const method = typeof pm === "object" ? pm : null;
  // a bank transfer to the customer's balance: no instrument of the customer's to name
  if (method?.type === "customer_balance") return { method: method.type, brand: method.type, last4: "", expMonth: 0, expYear: 0 };
  // a bank debit's account: its type for a brand, the account's last four, no expiry
  const bank = method?.sepa_debit ?? method?.us_bank_account;
  if (method && bank) return { method: method.type, brand: method.type, last4: bank.last4 ?? "0000", expMonth: 0, expYear: 0 };
  const card = method?.card;
  return { brand: card?.brand ?? "unknown", last4: card?.last4 ?? "0000", expMonth: card?.exp_month ?? 0, expYear: card?.exp_year ?? 0 };
};
const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));

/**
 * Stripe's codes of an `invalid_request_error` that the customer can fix (a failed 3-D Secure challenge, a bank or
 * wallet that refused, microdeposits typed wrong): declines like a card error. Every other request Stripe refuses is
 * till's or the seller's to fix (an unknown parameter, an amount Stripe does not take, a customer deleted in Stripe's
 * dashboard, a key of the wrong mode) and is not the customer's decline. Card errors (`card_error`) are all declines.
 */
export const CUSTOMER_FIXABLE_CODES: ReadonlySet<string> = new Set([
  "payment_intent_authentication_failure",
  "setup_intent_authentication_failure",
  "payment_intent_payment_attempt_failed",
  "payment_intent_payment_attempt_expired",
  "setup_attempt_failed",
  "setup_intent_setup_attempt_expired",
  "payment_method_customer_decline",
  "payment_method_provider_decline",
  "bank_account_declined",
  "debit_not_authorized",
  "payment_method_microdeposit_verification_amounts_invalid",
  "payment_method_microdeposit_verification_amounts_mismatch",
  "payment_method_microdeposit_verification_descriptor_code_mismatch",
  "payment_method_microdeposit_verification_attempts_exceeded",
  "card_declined",
  "expired_card",
  "incorrect_cvc",
  "incorrect_number",
  "incorrect_zip",
  "invalid_cvc",
  "invalid_expiry_month",
  "invalid_expiry_year",
  "invalid_number",
  "authentication_required",
]);

/** A decline's code: Stripe's decline code, else its error code (the client gives a missing one as ""), never empty. */
const declineCode = (decline: string | null | undefined, code: string | null | undefined, fallback: string) => decline || code || fallback;

/**
 * Stripe's error as the seam's result. A card error, or a request error the customer can fix, is a decline: its
 * decline code (else its code) and Stripe's message, which the customer reads (an off-session charge that needs
 * authentication is declined `authentication_required`: the renewal goes past due and the customer authenticates
 * a new on-session payment from the portal). Anything else Stripe answers — a request it refuses as till's or the
 * seller's, an outage, a rate limit, a connection lost after the client's own retries (each with the same
 * idempotency key, so never a second charge) — is `unprocessed`: nothing was charged, the customer reads a message
 * of till's, never Stripe's developer message. What is not Stripe's error at all is a bug of till's and thrown.
 */
export function failureOf(err: unknown): Extract<PaymentResult, { ok: false }> {
  if (!(err instanceof StripeSdk.errors.StripeError)) throw err;
  if (err.type === "StripeCardError" || (err.type === "StripeInvalidRequestError" && CUSTOMER_FIXABLE_CODES.has(err.code ?? ""))) {
    return { ok: false, code: declineCode(err.decline_code, err.code, "card_declined"), message: err.message || "Your card was declined." };
  }
  const transient = err.type === "StripeRateLimitError" || err.type === "StripeAPIError" || err.type === "StripeConnectionError" || err.type === "StripeIdempotencyError";
  return unprocessed({ code: err.code || err.rawType || err.type, detail: err.message, transient, answerLost: err.type === "StripeConnectionError" });
}
const declined = failureOf;

/**
 * An intent's outcome read again could not be read: a passing failure is thrown (the event that asked is processed
 * again later); anything else answers as failureOf does.
 */
function outcomeFailure(err: unknown): PaymentResult {
  const failure = failureOf(err);
  if (failure.processorError?.transient) throw err;
  return failure;
}

/** A PaymentIntent's outcome as the seam's result. */
export function paymentIntentResult(pi: Stripe.PaymentIntent): PaymentResult {
  const customer = idOf(pi.customer);
  if (pi.status === "succeeded") {
    return {
      ok: true,
      paymentId: pi.id,
      paymentMethodId: idOf(pi.payment_method) ?? "",
      paymentMethod: summaryOf(typeof pi.payment_method === "object" ? pi.payment_method : null),
      processorCustomerId: customer ?? undefined,
    };
  }
  if ((pi.status === "requires_action" || pi.status === "processing") && pi.client_secret) {
    const method = typeof pi.payment_method === "object" && pi.payment_method && pi.payment_method.type !== "card" ? { method: pi.payment_method.type } : {};
    const next: NextAction = {
      status: pi.status === "processing" ? "processing" : "requires_action", intentId: pi.id, clientSecret: pi.client_secret,
      kind: "payment", processorCustomerId: customer, ...method,
    };
    return { ok: false, code: pi.status, message: pi.status === "processing" ? "The payment is processing." : "The payment needs your confirmation.", next };
  }
  const error = pi.last_payment_error;
  // canceled (a bank transfer of an order paid another way): its payment says so, whichever of the cancel's answer and
  // its event comes first
  if (pi.status === "canceled" && !error) return { ok: false, code: PAYMENT_CANCELED_CODE, message: "The payment was canceled." };
  return { ok: false, code: declineCode(error?.decline_code, error?.code, "payment_failed"), message: error?.message || "The payment failed." };
}

/** A US account entered by hand: Stripe's verify_with_microdeposits next action, as the seam says it. */
function microdepositsOf(action: Stripe.SetupIntent.NextAction | null): Microdeposits | undefined {
  const verify = action?.type === "verify_with_microdeposits" ? action.verify_with_microdeposits : undefined;
  if (!verify) return undefined;
  return {
    arrivalDate: verify.arrival_date ? new Date(verify.arrival_date * 1000) : null,
    hostedVerificationUrl: verify.hosted_verification_url ?? null,
    type: verify.microdeposit_type === "descriptor_code" ? "descriptor_code" : "amounts",
  };
}

/** A SetupIntent's outcome as the seam's result (nothing charged). */
export function setupIntentResult(si: Stripe.SetupIntent): PaymentResult {
  const customer = idOf(si.customer);
  if (si.status === "succeeded") {
    return {
      ok: true,
      paymentId: null,
      paymentMethodId: idOf(si.payment_method) ?? "",
      paymentMethod: summaryOf(typeof si.payment_method === "object" ? si.payment_method : null),
      ...(customer ? { processorCustomerId: customer } : {}),
    };
  }
  if ((si.status === "requires_action" || si.status === "processing") && si.client_secret) {
    const next: NextAction = {
      status: si.status === "processing" ? "processing" : "requires_action", intentId: si.id, clientSecret: si.client_secret,
      kind: "setup", processorCustomerId: customer, microdeposits: microdepositsOf(si.next_action),
    };
    return { ok: false, code: si.status, message: "The payment method needs your confirmation.", next };
  }
  const error = si.last_setup_error;
  return { ok: false, code: declineCode(error?.decline_code, error?.code, "setup_failed"), message: error?.message || "The payment method could not be saved." };
}

/**
 * The Stripe customer of a till customer: the one kept, else a new one (its create keyed by the till customer) when
 * the payment keeps its method for later (a subscription, a trial's setup). A one-time payment of a customer Stripe
 * does not know yet is made without one, as Stripe Checkout's `customer_creation: "if_required"` does: the method is
 * not kept, so the customer would hold nothing, and the purchase costs one request to Stripe instead of two (Stripe's
 * rate limit counts them). The first subscription, or a method saved in the portal, makes it.
 */
async function customerOf(stripe: Stripe, request: PaymentRequest, key: string): Promise<string | undefined> {
  const customer = request.customer;
  if (!customer) return undefined;
  if (customer.processorCustomerId) return customer.processorCustomerId;
  if (!request.setupFutureUsage && request.amount > 0) return undefined;
  const created = await withoutCallSite(() => stripe.customers.create(
    // (a first purchase's till customer is made in the confirm's transaction: a retry names another id, so none is
    // sent)
    { email: customer.email, name: customer.name ?? undefined } satisfies Stripe.CustomerCreateParams,
    { idempotencyKey: `${key}-customer` },
  ));
  return created.id;
}

/** Polar's refund reasons Stripe has a reason for. */
const REFUND_REASONS: Record<string, Stripe.RefundCreateParams.Reason> = { duplicate: "duplicate", fraudulent: "fraudulent", customer_request: "requested_by_customer" };

/** Saves the method behind the token for later (a SetupIntent: nothing is due now, a trial or metered-only prices). */
async function setUp(stripe: Stripe, request: PaymentRequest, customer: string | undefined, key: string): Promise<PaymentResult> {
  const si = await withoutCallSite(() => stripe.setupIntents.create(
    {
      customer,
      confirmation_token: request.confirmationTokenId,
      confirm: true,
      usage: "off_session",
      // the methods the page's Payment Element offers (never one that redirects: no return_url here);
      // exclusive of automatic_payment_methods in the pinned API version
      allowed_payment_method_types: stripeMethodTypes(request.currency),
      description: request.description,
      metadata: request.metadata,
      expand: ["payment_method"],
    } satisfies Stripe.SetupIntentCreateParams,
    { idempotencyKey: `${key}-setup` },
  ));
  return setupIntentResult(si);
}

/**
 * Charges the method behind the token now (a PaymentIntent), set up for later charges when a subscription will make
 * them.
 */
async function payNow(stripe: Stripe, request: PaymentRequest, customer: string | undefined, key: string): Promise<PaymentResult> {
  const pi = await withoutCallSite(() => stripe.paymentIntents.create(
    {
      amount: request.amount,
      currency: request.currency,
      customer,
      confirmation_token: request.confirmationTokenId,
      confirm: true,
      setup_future_usage: request.setupFutureUsage ? "off_session" : undefined,
      allowed_payment_method_types: stripeMethodTypes(request.currency),
      description: request.description,
      metadata: request.metadata,
      expand: ["payment_method"],
    } satisfies Stripe.PaymentIntentCreateParams,
    { idempotencyKey: `${key}-payment` },
  ));
  return paymentIntentResult(pi);
}

async function pay(stripe: Stripe, request: PaymentRequest): Promise<PaymentResult> {
  const key = request.idempotencyKey ?? `till-${request.metadata.checkout_id ?? request.metadata.customer_id ?? "payment"}-${request.confirmationTokenId}`;
  try {
    const customer = await customerOf(stripe, request, key);
    return request.amount === 0 ? await setUp(stripe, request, customer, key) : await payNow(stripe, request, customer, key);
  } catch (err) {
    return declined(err);
  }
}

/**
 * A saved method's charge: on-session, the customer present (a portal retry) and Stripe free to ask them to
 * authenticate; else off-session, with the saved method's own type (a bank debit's mandate is charged as it was set
 * up). One literal per shape, checked against the pinned API version's own parameter types: a spread of a
 * conditional object escapes TypeScript's excess-property check (a removed parameter once went through so).
 */
function chargeParams(request: ChargeRequest, customer: string | null): Stripe.PaymentIntentCreateParams {
  return request.onSession
    ? ({
        amount: request.amount,
        currency: request.currency,
        customer: customer ?? undefined,
        payment_method: request.paymentMethodId,
        confirm: true,
        automatic_payment_methods: { enabled: true, allow_redirects: "never" },
        description: request.description,
        metadata: request.metadata,
        expand: ["payment_method"],
      } satisfies Stripe.PaymentIntentCreateParams)
    : ({
        amount: request.amount,
        currency: request.currency,
        customer: customer ?? undefined,
        payment_method: request.paymentMethodId,
        confirm: true,
        off_session: true,
        allowed_payment_method_types: [request.methodType ?? "card"],
        description: request.description,
        metadata: request.metadata,
        expand: ["payment_method"],
      } satisfies Stripe.PaymentIntentCreateParams);
}

async function charge(stripe: Stripe, request: ChargeRequest): Promise<PaymentResult> {
  try {
    const customer = request.processorCustomerId ?? idOf((await withoutCallSite(() => stripe.paymentMethods.retrieve(request.paymentMethodId))).customer);
    const params = chargeParams(request, customer);
    const pi = await withoutCallSite(() => stripe.paymentIntents.create(params, request.idempotencyKey ? { idempotencyKey: request.idempotencyKey } : undefined));
    return paymentIntentResult(pi);
  } catch (err) {
    return declined(err);
  }
}

async function refund(stripe: Stripe, request: RefundRequest): Promise<RefundResult> {
  const paymentId = request.paymentId;
  if (!paymentId) return { ok: false, code: "no_payment", message: "The payment to refund is not known to Stripe." };
  try {
    const made = await withoutCallSite(() => stripe.refunds.create(
      {
        charge: paymentId.startsWith("ch_") ? paymentId : undefined,
        payment_intent: paymentId.startsWith("ch_") ? undefined : paymentId,
        amount: request.amount,
        reason: REFUND_REASONS[request.reason],
        metadata: request.metadata,
      } satisfies Stripe.RefundCreateParams,
      { idempotencyKey: `till-refund-${request.refundId}` },
    ));
    if (made.status === "failed" || made.status === "canceled") return { ok: false, code: made.failure_reason ?? "refund_failed", message: "Stripe could not refund the payment." };
    // Stripe gives a card's money back at once or later: a pending (or requires_action) refund may still fail
    // or be canceled, which its refund.updated / refund.failed event says (billing/processor-events/refunds.ts)
    return { ok: true, processorRefundId: made.id, status: made.status === "succeeded" ? "succeeded" : "pending" };
  } catch (err) {
    if (err instanceof StripeSdk.errors.StripeError) return { ok: false, code: err.code ?? "refund_failed", message: err.message };
    throw err;
  }
}

/** A customer-balance bank transfer (bank-transfers.ts): the intent as the seam's result, with its instructions. */
async function bankTransfer(stripe: Stripe, request: BankTransferRequest): Promise<BankTransferAnswer> {
  const known = request.customer.processorCustomerId;
  try {
    const made = await transferIntent(stripe, request);
    if (!made) return { result: { ok: false, code: "payment_method_unavailable", message: "Bank transfers are not offered in this currency." }, instructions: null, processorCustomerId: known };
    return { result: paymentIntentResult(made.pi), instructions: instructionsOf(made.pi), processorCustomerId: made.customer };
  } catch (err) {
    return { result: declined(err), instructions: null, processorCustomerId: known };
  }
}

/** A transfer's intent canceled (bank-transfers.ts): canceled, or as it is when the money arrived first. */
async function cancelBankTransfer(stripe: Stripe, request: CancelTransferRequest): Promise<PaymentResult> {
  try {
    return paymentIntentResult(await cancelTransfer(stripe, request));
  } catch (err) {
    return declined(err);
  }
}

export function createStripeProcessor(stripe: Stripe, publishableKey: string): PaymentProcessor {
  return {
    id: "stripe",
    wireName: "stripe",
    servesLive: true,
    minimumCharge: minimumChargeAmount,
    checkoutMetadata: () => ({ processor: STRIPE_METADATA_PROCESSOR, publishable_key: publishableKey }),
    pay: (request) => pay(stripe, request),
    charge: (request) => charge(stripe, request),
    refund: (request) => refund(stripe, request),
    offersBankTransfer,
    bankTransfer: (request) => bankTransfer(stripe, request),
    cancelBankTransfer: (request) => cancelBankTransfer(stripe, request),

    async paymentOutcome(intentId: string): Promise<PaymentResult> {
      if (!intentId.startsWith("pi_")) return { ok: false, code: "resource_missing", message: "No such PaymentIntent." };
      try {
        return paymentIntentResult(await withoutCallSite(() => stripe.paymentIntents.retrieve(intentId, { expand: ["payment_method"] })));
      } catch (err) {
        return outcomeFailure(err);
      }
    },

    async setupOutcome(intentId: string): Promise<PaymentResult> {
      if (!intentId.startsWith("seti_")) return { ok: false, code: "resource_missing", message: "No such SetupIntent." };
      try {
        return setupIntentResult(await withoutCallSite(() => stripe.setupIntents.retrieve(intentId, { expand: ["payment_method"] })));
      } catch (err) {
        return outcomeFailure(err);
      }
    },

    async detach(paymentMethodId: string): Promise<void> {
      try {
        await withoutCallSite(() => stripe.paymentMethods.detach(paymentMethodId));
      } catch (err) {
        // detached already (or never attached) is what was asked
        if (!(err instanceof StripeSdk.errors.StripeInvalidRequestError)) throw err;
      }
    },

    async setDefault(processorCustomerId: string, paymentMethodId: string): Promise<void> {
      await withoutCallSite(() => stripe.customers.update(processorCustomerId, { invoice_settings: { default_payment_method: paymentMethodId } }));
    },

    // an organization's own account: it answers for itself (the router, payments/index.ts, finds it)
    async forOrganization() {
      return this;
    },
    forConnection() {
      return this;
    },
  };
}
