// The payment processor seen by checkouts: the page tokenizes the card with the processor (Stripe.js, or the
// built-in test processor's own endpoint), and confirming a checkout charges or saves that token. Card
// numbers never reach the checkout API; swapping the processor changes only this adapter and the page's
// tokenize step.

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
}

export interface PaymentMethodSummary {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export type PaymentResult =
  | { ok: true; paymentId: string | null; paymentMethodId: string; paymentMethod: PaymentMethodSummary }
  | {
      ok: false;
      /** Stripe's decline codes where they apply (card_declined, insufficient_funds, expired_card, …). */
      code: string;
      /** Shown to the customer as is. */
      message: string;
    };

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
  | { ok: true; processorRefundId: string }
  | {
      ok: false;
      code: string;
      message: string;
    };

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
  /** `payment_processor_metadata` for a checkout: what the page needs to tokenize (strings only). */
  checkoutMetadata(checkout: { clientSecret: string; baseURL: string }): Record<string, string>;
  /** Charges (amount > 0) or saves (amount 0) the payment method behind the token. */
  pay(request: PaymentRequest): Promise<PaymentResult>;
  /** Charges a saved payment method off-session (no customer present). */
  charge(request: ChargeRequest): Promise<PaymentResult>;
  /** Gives back `amount` of a payment; answers once the processor accepted (or refused) the refund. */
  refund(request: RefundRequest): Promise<RefundResult>;
}
