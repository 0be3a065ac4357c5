// The organization's Stripe connection as GET/PUT /v1/stripe/connection answer it (till's own route), read by
// the server's service and the CLI's `till stripe`.

export interface StripeConnectionWire {
  connected: true;
  /** Stripe's account id; null when the (restricted) key may not read the account. */
  account_id: string | null;
  livemode: boolean;
  /** The key's kind and last four characters, never the key. */
  secret_key: string;
  publishable_key: string;
  /** id null: events come through `stripe listen` (its own signing secret), not an endpoint till made. */
  webhook_endpoint: { id: string | null; url: string };
  last_event: { id: string; type: string; created_at: string; received_at: string } | null;
  /**
   * The last payment Stripe could not process for a reason that was not the customer's (till's own): Stripe's code
   * and developer message, and when; null since the connection was made without one.
   */
  last_error: { code: string; message: string; at: string } | null;
  connected_at: string;
}

/**
 * No Stripe account: `test_processor` says whether the built-in test processor takes this organization's payments
 * meanwhile (a sandbox; a live one only on a server run with TILL_TEST_PAYMENTS=live). False: its checkouts of
 * paid products are refused until Stripe is connected.
 */
export type StripeStatusWire = StripeConnectionWire | { connected: false; test_processor: boolean };

/** One difference `till payments reconcile` found between till's payments and the Stripe account's. */
export interface ReconcileDifference {
  kind: "missing_in_stripe" | "missing_in_till" | "amount_mismatch" | "status_mismatch";
  /** The PaymentIntent's or charge's id. */
  stripe_id: string;
  /** till's payment and its order, when till has one. */
  payment_id: string | null;
  order_id: string | null;
  till: { amount: number; currency: string; status: string } | null;
  stripe: { object: "payment_intent" | "charge"; amount: number; currency: string; status: string } | null;
  message: string;
}

/** The answer of POST /v1/stripe/reconcile (till's own route). */
export interface Reconciliation {
  since: string;
  until: string;
  /**
   * `stripe_billing`: payments Stripe Billing took from customers imported into till (before their hand-over),
   * matched to them and not listed as differences.
   */
  compared: { till_payments: number; stripe_payment_intents: number; stripe_charges: number; stripe_billing: number };
  /** A list reached its bound: what was read was compared, the rest was not. */
  truncated: boolean;
  differences: ReconcileDifference[];
}

/** The payment method types till takes through Stripe (Stripe's own names). */
export type StripeMethodType = "card" | "sepa_debit" | "us_bank_account";

/**
 * What a buyer may pay with through Stripe in `currency`: the methods till's confirm completes without sending the
 * buyer to another site — no redirect, so no `return_url` and no page receiving one. A card (3-D Secure runs in the
 * page), SEPA Direct Debit in euros, a US bank account in dollars (the only currencies each is charged in). The
 * checkout page's Payment Element is limited to this list and the confirm's intent allows exactly it, so the element
 * never offers a method the confirm refuses (iDEAL, Klarna, … even when the seller turned them on in Stripe's
 * dashboard). For a setup (a trial) `currency` is the one the saved method will be charged in.
 */
export function stripeMethodTypes(currency: string): StripeMethodType[] {
  const c = currency.toLowerCase();
  return ["card", ...(c === "eur" ? (["sepa_debit"] as const) : []), ...(c === "usd" ? (["us_bank_account"] as const) : [])];
}
