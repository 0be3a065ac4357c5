// The Stripe stand-in's test payment instruments (never shipped), from Stripe's testing docs: the test payment
// methods and the card numbers behind them, the test bank accounts (SEPA IBANs, US account numbers), what a payment
// method made from one looks like (its type's details, as Stripe shows them), and the checks Stripe makes of a bank
// account entered in the Payment Element. stripe-peer-intents.ts confirms intents with them.
import { StripeFailure, type Params } from "./stripe-peer.js";

export const missing = (param: string) => new StripeFailure(400, { type: "invalid_request_error", code: "parameter_missing", param, message: `Missing required param: ${param}.` });
export const str = (v: unknown) => (typeof v === "string" ? v : undefined);

export interface Behaviour {
  brand: string;
  last4: string;
  /** Declined whenever used (setup and charge). */
  decline?: { decline_code: string; message: string };
  /**
   * Refused whenever used with a card error of its own code and NO decline_code (Stripe sets decline_code only on
   * `card_declined`): expired_card, incorrect_cvc, processing_error, with the card field at fault as `param`.
   */
  cardError?: { code: string; message: string; param?: string };
  /** Attaches (setup succeeds); every charge is declined. */
  chargesFail?: boolean;
  /** Declined when charged (insufficient funds); a setup alone succeeds. */
  noFunds?: boolean;
  /** 3-D Secure: on every payment (`always`, off-session too), or until set up for off-session use (`setup`). */
  auth?: "always" | "setup";
  /**
   * A refund of its charge is not final at once (Stripe's "asynchronous refund" test cards): `pending` starts
   * pending and later succeeds; `fails` starts succeeded and later fails (expired_or_canceled_card). The later
   * answer comes when the test calls `settleRefund` (in Stripe's test mode, a moment after).
   */
  refund?: "pending" | "fails";
  /** A bank debit: its payment goes `processing`, then the bank's answer (settleDebit) succeeds or fails it. */
  debit?: { type: "sepa_debit" | "us_bank_account"; outcome: "succeeds" | "fails" };
}

/** Stripe's test payment methods (https://docs.stripe.com/testing), and the card numbers behind them. */
export const TEST_PAYMENT_METHODS: Record<string, Behaviour> = {
  pm_card_visa: { brand: "visa", last4: "4242" },
  pm_card_mastercard: { brand: "mastercard", last4: "4444" },
  pm_card_chargeDeclined: { brand: "visa", last4: "0002", decline: { decline_code: "generic_decline", message: "Your card was declined." } },
  pm_card_chargeDeclinedInsufficientFunds: { brand: "visa", last4: "9995", noFunds: true },
  pm_card_chargeCustomerFail: { brand: "visa", last4: "0341", chargesFail: true },
  pm_card_authenticationRequired: { brand: "visa", last4: "3184", auth: "always" },
  pm_card_authenticationRequiredOnSetup: { brand: "visa", last4: "3155", auth: "setup" },
  pm_card_threeDSecure2Required: { brand: "visa", last4: "3220", auth: "always" },
  ...CARD_ERRORS(),
  pm_card_pendingRefund: { brand: "visa", last4: "7726", refund: "pending" },
  pm_card_refundFail: { brand: "visa", last4: "5126", refund: "fails" },
};
/**
 * Stripe's test cards of its "Declined payments" table (https://docs.stripe.com/testing#declined-payments) beyond the
 * generic ones: a lost card (card_declined, decline_code lost_card), and the refusals whose error code is the reason
 * and which carry no decline_code (an expired card, an incorrect CVC, a processing error).
 */
function CARD_ERRORS(): Record<string, Behaviour> {
  return {
    pm_card_chargeDeclinedLostCard: { brand: "visa", last4: "9987", decline: { decline_code: "lost_card", message: "Your card was declined." } },
    pm_card_chargeDeclinedExpiredCard: { brand: "visa", last4: "0069", cardError: { code: "expired_card", param: "exp_month", message: "Your card has expired." } },
    pm_card_chargeDeclinedIncorrectCvc: { brand: "visa", last4: "0127", cardError: { code: "incorrect_cvc", param: "cvc", message: "Your card's security code is incorrect." } },
    pm_card_chargeDeclinedProcessingError: {
      brand: "visa", last4: "0119",
      cardError: { code: "processing_error", message: "An error occurred while processing your card. Try again in a little bit." },
    },
  };
}

export const behaviourOf = (name: string): Behaviour | undefined => TEST_PAYMENT_METHODS[name] ?? BANK_ACCOUNTS[name];

export const CARD_NUMBERS: Record<string, string> = {
  "4242424242424242": "pm_card_visa",
  "5555555555554444": "pm_card_mastercard",
  "4000000000000002": "pm_card_chargeDeclined",
  "4000000000009995": "pm_card_chargeDeclinedInsufficientFunds",
  "4000000000000341": "pm_card_chargeCustomerFail",
  "4000002760003184": "pm_card_authenticationRequired",
  "4000002500003155": "pm_card_authenticationRequiredOnSetup",
  "4000000000003220": "pm_card_threeDSecure2Required",
  "4000000000009987": "pm_card_chargeDeclinedLostCard",
  "4000000000000069": "pm_card_chargeDeclinedExpiredCard",
  "4000000000000127": "pm_card_chargeDeclinedIncorrectCvc",
  "4000000000000119": "pm_card_chargeDeclinedProcessingError",
  "4000000000007726": "pm_card_pendingRefund",
  "4000000000005126": "pm_card_refundFail",
};


/**
 * Stripe's test bank accounts (https://docs.stripe.com/testing#sepa-direct-debit, #ach-direct-debit): SEPA IBANs
 * and US account numbers (routing number 110000000), by what the debit does once the bank answers.
 */
export const BANK_ACCOUNTS: Record<string, Behaviour> = {
  DE89370400440532013000: { brand: "sepa_debit", last4: "3000", debit: { type: "sepa_debit", outcome: "succeeds" } },
  DE35370400440532013002: { brand: "sepa_debit", last4: "3002", debit: { type: "sepa_debit", outcome: "fails" } },
  "000123456789": { brand: "us_bank_account", last4: "6789", debit: { type: "us_bank_account", outcome: "succeeds" } },
  "000111111113": { brand: "us_bank_account", last4: "1113", debit: { type: "us_bank_account", outcome: "fails" } },
};
/** What the bank says when a test account's debit fails (the charge's failure, as the intent's last_payment_error). */
export const DEBIT_FAILURE = { code: "insufficient_funds", message: "The customer's account has insufficient funds to cover this payment." };

/**
 * A payment method's type and its type's details, as Stripe shows them (a card, a SEPA mandate's IBAN, a US account).
 */
export function instrumentOf(b: Behaviour): Record<string, unknown> & { type: string } {
  if (b.debit?.type === "sepa_debit") {
    return {
      type: "sepa_debit",
      sepa_debit: { bank_code: "37040044", branch_code: "", country: "DE", fingerprint: `fp${b.last4}`, generated_from: { charge: null, setup_attempt: null }, last4: b.last4 },
    };
  }
  if (b.debit?.type === "us_bank_account") {
    return {
      type: "us_bank_account",
      us_bank_account: {
        account_holder_type: "individual", account_type: "checking", bank_name: "STRIPE TEST BANK",
        fingerprint: `fp${b.last4}`, last4: b.last4, networks: { preferred: "ach", supported: ["ach"] },
        routing_number: "110000000", status_details: {},
      },
    };
  }
  return { type: "card", card: { brand: b.brand, last4: b.last4, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3 } };
}

/**
 * The US accounts Stripe's test institution links through Financial Connections (the Payment Element's bank login),
 * by the account each one is: verified instantly, so their setups need no microdeposits.
 */
export const LINKED_ACCOUNTS: Record<string, string> = { fca_test_success: "000123456789", fca_test_insufficient_funds: "000111111113" };

/**
 * Microdeposits (https://docs.stripe.com/payments/ach-direct-debit/set-up-payment#web-verify-with-microdeposits): a US
 * account entered by hand is verified by what Stripe deposits on it — in test mode the amounts 32 and 45 cents, or
 * the descriptor code SM11AA; other values fail, at most 10 times.
 */
export const MICRODEPOSITS = { amounts: [32, 45], descriptorCode: "SM11AA", attempts: 10 } as const;

/**
 * The test bank account a confirmation token's payment_method_data names (Stripe's required fields checked), or
 * undefined for a card; `manual`: a US account entered by hand (routing and account numbers), which Stripe verifies
 * with microdeposits, not a linked one (`financial_connections_account`).
 */
export function bankAccountOf(data: Params): { account: string; manual: boolean } | undefined {
  const type = str(data.type);
  if (type !== "sepa_debit" && type !== "us_bank_account") return undefined;
  const billing = (data.billing_details ?? {}) as Params;
  const required = (param: string, value: unknown) => {
    if (!str(value)) throw missing(`payment_method_data[${param}]`);
  };
  // a SEPA mandate names its debtor: Stripe requires the account holder's name and email
  required("billing_details][name", billing.name);
  if (type === "sepa_debit") {
    required("billing_details][email", billing.email);
    const sepa = (data.sepa_debit ?? {}) as Params;
    required("sepa_debit][iban", sepa.iban);
    const iban = String(sepa.iban).replace(/\s/g, "").toUpperCase();
    if (!BANK_ACCOUNTS[iban]) throw new StripeFailure(400, {
      type: "invalid_request_error", code: "invalid_bank_account_iban", param: "payment_method_data[sepa_debit][iban]",
      message: "The IBAN you provided is invalid.",
    });
    return { account: iban, manual: false };
  }
  const account = (data.us_bank_account ?? {}) as Params;
  const linked = str(account.financial_connections_account);
  if (linked) {
    const number = LINKED_ACCOUNTS[linked];
    if (!number) throw new StripeFailure(400, {
      type: "invalid_request_error", code: "resource_missing",
      param: "payment_method_data[us_bank_account][financial_connections_account]",
      message: `No such financial connections account: '${linked}'`,
    });
    return { account: number, manual: false };
  }
  required("us_bank_account][routing_number", account.routing_number);
  required("us_bank_account][account_number", account.account_number);
  if (account.routing_number !== "110000000" || !BANK_ACCOUNTS[String(account.account_number)]) {
    throw new StripeFailure(400, {
      type: "invalid_request_error", code: "invalid_bank_account",
      param: "payment_method_data[us_bank_account][account_number]",
      message: "The bank account you provided is invalid.",
    });
  }
  return { account: String(account.account_number), manual: true };
}
