// The payment processor seen by checkouts: the page tokenizes the card with the processor (Stripe.js, or the
// built-in test processor's own endpoint), and confirming a checkout charges or saves that token. Card
// numbers never reach the checkout API; swapping the processor changes only this adapter and the page's
// tokenize step. An organization with a Stripe account pays through it (server/payments/stripe/), one
// without through the test processor: the router (server/payments/index.ts) chooses per organization.
import type { BankTransferInstructions } from "../../shared/bank-transfer.js";
import type { Queryable } from "../db/client.js";

/** The till customer a payment is for, and the processor's own customer for them when one was made before. */
export interface PaymentCustomer {
  id: string;
  email: string;
  name: string | null;
  /** The processor's customer (Stripe's cus_…) kept for this customer; null: the processor makes one. */
  processorCustomerId: string | null;
}

/** What a checkout asks the processor to do with the customer's confirmation token. */
export interface PaymentRequest {
  /** The processor's token from the page (Polar's `confirmation_token_id`). */
  confirmationTokenId: string;
  /** Minor units; 0 with `setupFutureUsage` only saves the payment method (trials, metered-only prices). */
  amount: number;
  currency: string;
  description: string;
  /** Keep the payment method for later charges (subscriptions). */
  setupFutureUsage: boolean;
  metadata: Record<string, string>;
  /** Who pays (a processor that keeps customers, as Stripe does, attaches the saved method to them). */
  customer?: PaymentCustomer;
  /** The same key for a retried request: the processor takes the payment once (derived from the checkout and token). */
  idempotencyKey?: string;
}

/** A later charge of a payment method saved by an earlier payment (a subscription's renewal). */
export interface ChargeRequest {
  /** `PaymentResult.paymentMethodId` of the payment that saved it. */
  paymentMethodId: string;
  /** Minor units, > 0. */
  amount: number;
  currency: string;
  description: string;
  metadata: Record<string, string>;
  /** The processor's customer the method is attached to, when till knows it. */
  processorCustomerId?: string | null;
  /**
   * The saved method's type (Stripe's `card`, `sepa_debit`, `us_bank_account`); default `card`. A bank debit's
   * charge answers `processing` (NextAction) and ends later, as the processor's event.
   */
  methodType?: string;
  /** On-session: the customer is present (a portal retry) and may be asked to authenticate; default off-session. */
  onSession?: boolean;
  /** The same key for a retried request: charged once. */
  idempotencyKey?: string;
}

/**
 * A payment the processor has not finished: the customer must act (3-D Secure: the page runs Stripe.js's
 * handleNextAction with the client secret), or the money is on its way (`processing`, bank debits). How it ends
 * comes later, as the processor's event (billing/processor-events/payments.ts).
 */
export interface NextAction {
  status: "requires_action" | "processing";
  /** The processor's intent (Stripe's pi_… or seti_…). */
  intentId: string;
  /** What the page hands to Stripe.js; it lets the customer act on that one intent only. */
  clientSecret: string;
  /** A payment, or a setup (nothing due now: a trial). */
  kind: "payment" | "setup";
  /** The processor's customer the intent is for. */
  processorCustomerId: string | null;
  /** The payment method's type when not a card (Stripe's `sepa_debit`, `us_bank_account`): Polar's payment `method`. */
  method?: string;
  /**
   * A US bank account entered by hand: the processor sends microdeposits and the customer verifies them (their two
   * amounts or the descriptor code) — on the page (Stripe.js's verifyMicrodepositsForSetup) or on the processor's
   * own page. Until then the intent waits (`requires_action`).
   */
  microdeposits?: Microdeposits;
}

export interface Microdeposits {
  /** When the deposits are expected on the account. */
  arrivalDate: Date | null;
  /** The processor's page where the customer verifies them (Stripe's hosted verification page). */
  hostedVerificationUrl: string | null;
  /** What the customer is asked for: the two amounts, or the code in the deposit's statement descriptor. */
  type: "amounts" | "descriptor_code";
}

export interface PaymentMethodSummary {
  /** Polar's payment `method` when not a card (a bank debit's `sepa_debit`, `us_bank_account`). */
  method?: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export type PaymentResult =
  | {
      ok: true;
      paymentId: string | null;
      paymentMethodId: string;
      paymentMethod: PaymentMethodSummary;
      /** The processor's customer the method is saved on (kept for later charges); absent for the test processor. */
      processorCustomerId?: string;
    }
  | {
      ok: false;
      /**
       * Stripe's decline codes where they apply (card_declined, insufficient_funds, expired_card,
       * authentication_required, …).
       */
      code: string;
      /** Shown to the customer as is. */
      message: string;
      /** Not declined but not finished: what the customer must do, or that the money is on its way. */
      next?: NextAction;
      /**
       * Present when the processor could not process the payment at all, which is not the customer's card or bank
       * saying no: a request it refused as till's or the seller's (an unknown parameter, a revoked key, a customer
       * deleted in the processor's dashboard, an amount it does not take) or a passing failure (an outage, a rate
       * limit, a lost connection). Nothing was charged. `code` is then PROCESSING_ERROR_CODE and `message`
       * PROCESSING_ERROR_MESSAGE (what the customer reads); this is for the seller only. The customer is never
       * dunned for it: a renewal stays active and is retried (dunning/collect.ts).
       */
      processorError?: ProcessorError;
    };

/**
 * Why the processor did not process a payment (PaymentResult.processorError): for the seller's eyes, never a buyer's.
 */
export interface ProcessorError {
  /** The processor's own code (Stripe's `resource_missing`, `parameter_unknown`, `rate_limit`…) or its error type. */
  code: string;
  /** The processor's developer message. */
  detail: string;
  /**
   * A passing failure (outage, rate limit, connection) that a retry may get through; else till's or the seller's to
   * fix.
   */
  transient: boolean;
  /**
   * The request may have been processed and its answer lost (the connection dropped after the client's own
   * retries): money may have moved. The next charge of the same thing must be sent under the same idempotency key.
   */
  answerLost: boolean;
}

/**
 * The code and message of a payment the processor could not process (PaymentResult.processorError), as the buyer reads
 * them.
 */
export const PROCESSING_ERROR_CODE = "processing_error";
export const PROCESSING_ERROR_MESSAGE = "The payment could not be processed. Nothing was charged; please try again later.";

/** The failed result of a payment the processor could not process. */
export const unprocessed = (error: ProcessorError): Extract<PaymentResult, { ok: false }> => ({
  ok: false,
  code: PROCESSING_ERROR_CODE,
  message: PROCESSING_ERROR_MESSAGE,
  processorError: error,
});

/** The processor's reason when it could not process the payment (not a decline), else null. */
export const processorErrorOf = (result: PaymentResult | null | undefined): ProcessorError | null => (result && !result.ok ? (result.processorError ?? null) : null);

/** What a refund asks the processor to give back: part or all of an earlier payment. */
export interface RefundRequest {
  /** till's id for the refund: the processor's idempotency key, so a retried request refunds once. */
  refundId: string;
  /** The processor's id of the payment refunded (`PaymentResult.paymentId`); null when it was not recorded. */
  paymentId: string | null;
  /** Minor units, tax included (what goes back to the customer's card). */
  amount: number;
  currency: string;
  /** Polar's refund reason (duplicate, fraudulent, customer_request, …). */
  reason: string;
  metadata: Record<string, string>;
}

export type RefundResult =
  | {
      ok: true;
      processorRefundId: string;
      /**
       * `pending`: the processor accepted the refund but has not given the money back yet (Stripe's `pending` and
       * `requires_action`); its outcome comes later, as an event. Absent: succeeded at once.
       */
      status?: "succeeded" | "pending";
    }
  | {
      ok: false;
      code: string;
      message: string;
    };

/**
 * A bank transfer of an amount owed to the seller's processor account (Stripe's customer-balance bank transfers): the
 * customer is shown where to send the money, with a reference, and the payment is finished when the processor says the
 * transfer arrived (its event). Asked again with the intent of an earlier request, the same intent is read as it is
 * now (what is left to send after a partial transfer).
 */
export interface BankTransferRequest {
  /** The intent an earlier request made for the same amount owed; null: a new one. */
  intentId: string | null;
  /** Minor units, > 0. */
  amount: number;
  currency: string;
  customer: PaymentCustomer;
  /** The buyer's country (two letters), when known: a euro transfer goes to an account in it where there is one. */
  country: string | null;
  description: string;
  metadata: Record<string, string>;
  /** The same key for a retried request: one intent. */
  idempotencyKey: string;
}

export type { BankTransferInstructions };

/** A bank transfer's intent to cancel, under a key of its own: a retried cancel is the processor's first answer. */
export interface CancelTransferRequest {
  intentId: string;
  idempotencyKey: string;
}

/** The seam's code of an intent canceled (a bank transfer's, its order paid another way): its payment failed so. */
export const PAYMENT_CANCELED_CODE = "canceled";

export interface BankTransferAnswer {
  /**
   * The intent as it is: waiting for the money (`next`, requires_action), paid already (ok), or refused (a request the
   * processor did not take).
   */
  result: PaymentResult;
  /** The instructions while the money is awaited; null otherwise. */
  instructions: BankTransferInstructions | null;
  /** The processor's customer the transfer is for (made when the till customer had none). */
  processorCustomerId: string | null;
}

export interface PaymentProcessor {
  /** till's name for the processor ("test", "stripe"). */
  readonly id: string;
  /** Polar's `payment_processor` on the wire: the only value the SDK accepts is "stripe". */
  readonly wireName: "stripe";
  /**
   * May take payments for live organizations. The built-in test processor does not (it serves sandboxes and
   * tests), unless the server runs with TILL_TEST_PAYMENTS=live; a live organization has no other yet.
   */
  readonly servesLive: boolean;
  /**
   * The smallest positive amount (minor units) a payment in `currency` may take: a positive total under it is
   * refused before any payment (a checkout) or carried to the next invoice (a renewal), never sent.
   */
  minimumCharge(currency: string): number;
  /** `payment_processor_metadata` for a checkout: what the page needs to tokenize (strings only). */
  checkoutMetadata(checkout: { clientSecret: string; baseURL: string }): Record<string, string>;
  /** Charges (amount > 0) or saves (amount 0) the payment method behind the token. */
  pay(request: PaymentRequest): Promise<PaymentResult>;
  /** Charges a saved payment method off-session (no customer present). */
  charge(request: ChargeRequest): Promise<PaymentResult>;
  /** Gives back `amount` of a payment; answers once the processor accepted (or refused) the refund. */
  refund(request: RefundRequest): Promise<RefundResult>;
  /**
   * A payment's outcome as the processor holds it now (an intent `pay` left unfinished: `processing`, a bank debit):
   * succeeded, failed, or still unfinished (`next`). A processor that finishes every payment at once answers that it
   * has no such intent.
   */
  paymentOutcome(intentId: string): Promise<PaymentResult>;
  /** A setup the customer finished after an action (the portal's confirmPaymentMethod with a SetupIntent id). */
  setupOutcome(intentId: string): Promise<PaymentResult>;
  /** Whether the customer may pay an amount in `currency` by bank transfer (bankTransfer); the test processor never. */
  offersBankTransfer(currency: string): boolean;
  /** Starts (or reads again) a bank transfer of an amount owed; only where offersBankTransfer says so. */
  bankTransfer(request: BankTransferRequest): Promise<BankTransferAnswer>;
  /**
   * Cancels a bank transfer's intent still awaiting the money (its order was paid another way); the answer is the
   * intent as it is then: failed with code `canceled`, succeeded when the money arrived first (it cannot be canceled
   * any more), or unprocessed (`processorError`: ask again, with the same key).
   */
  cancelBankTransfer(request: CancelTransferRequest): Promise<PaymentResult>;
  /**
   * Removes a saved method at the processor too (Stripe: detached from its customer); nothing to do where it keeps
   * none.
   */
  detach(paymentMethodId: string): Promise<void>;
  /** Makes a saved method the processor customer's default (Stripe: invoice_settings.default_payment_method). */
  setDefault(processorCustomerId: string, paymentMethodId: string): Promise<void>;
  /**
   * The processor that takes one organization's payments: a router answers the organization's own (its Stripe
   * account when connected), a plain processor itself. Use `processorFor` rather than calling it.
   */
  forOrganization(db: Queryable, organizationId: string): Promise<PaymentProcessor>;
  /**
   * The same, given the organization's connection as read with `connectionSql` (payments/index.ts) in the caller's
   * own statement; null when it has none. Use `processorOfConnection`.
   */
  forConnection(connection: ProcessorConnection | null): PaymentProcessor;
}

/** What routes an organization's payments to its Stripe account: its connection's keys (the secret one sealed). */
export interface ProcessorConnection {
  secretKey: string;
  publishableKey: string;
  livemode: boolean;
}

/** The processor that takes `organizationId`'s payments. */
export async function processorFor(processor: PaymentProcessor, db: Queryable, organizationId: string): Promise<PaymentProcessor> {
  return processor.forOrganization(db, organizationId);
}

/** processorFor, the organization's connection already read (null: none). */
export function processorOfConnection(processor: PaymentProcessor, connection: ProcessorConnection | null): PaymentProcessor {
  return processor.forConnection(connection);
}
