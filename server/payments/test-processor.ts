// The built-in test processor: Stripe's test cards without Stripe. The page sends the card to the
// processor's tokenize endpoint (POST /v1/checkouts/client/{client_secret}/test-card) and confirms the
// checkout with the token it gets back. The token carries only the brand, last four digits, expiry and the
// card's scripted outcome — never the number — so it is safe to hand to the page; it is not signed, because
// a forged token can do nothing a test card could not. Like a Stripe token id, each one is new and
// unguessable (a random part): the same card tokenized again gives another token, so only the page that
// tokenized holds it, and sending it again proves a retry of that page's confirm (billing/checkouts/confirm-retry.ts).
// A token is for what it was made for (`for`: the checkout, or the portal's customer): anything else refuses it,
// so a checkout's token pays that checkout once (a confirmed checkout takes no second payment).
import { randomBytes, randomUUID } from "node:crypto";
import { formatMoney } from "../../shared/money.js";
import { isBelowMinimumCharge, minimumChargeAmount } from "./minimum-charge.js";
import { PAYMENT_CANCELED_CODE, type ChargeRequest, type PaymentProcessor, type PaymentRequest, type PaymentResult, type RefundRequest, type RefundResult } from "./processor.js";

export const TEST_TOKEN_PREFIX = "tok_test_";

/** Scripted outcomes of Stripe's test numbers; any other number that passes the Luhn check succeeds. */
const DECLINES: Record<string, { code: string; message: string }> = {
  "4000000000000002": { code: "card_declined", message: "Your card was declined." },
  "4000000000009995": { code: "insufficient_funds", message: "Your card has insufficient funds." },
};
/** Stripe's "attaches, but charges fail": it can be saved (a trial), and every charge of it is declined. */
const CHARGES_FAIL = "4000000000000341";
const CHARGE_DECLINE = { code: "card_declined", message: "Your card was declined." };
/** Stripe's insufficient-funds card: declined when charged; saving it alone (no charge) succeeds. */
const NO_FUNDS = "4000000000009995";
const NO_FUNDS_DECLINE = { code: "insufficient_funds", message: "Your card has insufficient funds." };
/** Saved payment methods: pm_test_{last4}_{month}_{year}, with a suffix when their charges are declined. */
const FAILING_METHOD_SUFFIX = "_fails";
const NO_FUNDS_METHOD_SUFFIX = "_nofunds";

export interface TestCard {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

interface TokenBody {
  v: 2;
  /** 128 random bits: what makes the token unguessable from the card's details. */
  n: string;
  /** What the token may pay: `checkout:{id}` or `customer:{id}` (the payment's metadata names it). */
  for: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  decline: string | null;
  /** Saving succeeds; any charge is declined (CHARGES_FAIL). */
  chargesFail?: boolean;
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function brandOf(digits: string): string {
  if (digits.startsWith("4")) return "visa";
  if (/^(5[1-5]|2[2-7])/.test(digits)) return "mastercard";
  if (/^3[47]/.test(digits)) return "amex";
  if (/^6(011|5)/.test(digits)) return "discover";
  return "unknown";
}

export type TokenizeResult = { ok: true; token: string; brand: string; last4: string } | { ok: false; field: keyof TestCard; message: string; code: "incorrect_number" | "expired_card" };

/**
 * What a payment request is for, as a token names it: the checkout it confirms, else the customer it saves a card for.
 */
export function paymentPurpose(metadata: Record<string, string>): string {
  if (metadata.checkout_id) return `checkout:${metadata.checkout_id}`;
  if (metadata.customer_id) return `customer:${metadata.customer_id}`;
  return "";
}

/**
 * Checks a card like a card form would and returns its token, usable only `purpose` (paymentPurpose). `now` decides
 * what "expired" means.
 */
export function tokenizeTestCard(card: TestCard, purpose: string, now = new Date()): TokenizeResult {
  const digits = card.number.replace(/[\s-]/g, "");
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) {
    return { ok: false, field: "number", message: "Your card number is invalid.", code: "incorrect_number" };
  }
  const year = card.exp_year < 100 ? 2000 + card.exp_year : card.exp_year;
  // a card is valid through the last day of its expiry month
  const expiredBefore = Date.UTC(year, card.exp_month, 1);
  if (expiredBefore <= now.getTime()) {
    return { ok: false, field: "exp_year", message: "Your card's expiration date is in the past.", code: "expired_card" };
  }
  const body: TokenBody = {
    v: 2,
    n: randomBytes(16).toString("base64url"),
    for: purpose,
    brand: brandOf(digits),
    last4: digits.slice(-4),
    exp_month: card.exp_month,
    exp_year: year,
    decline: DECLINES[digits] ? digits : null,
    ...(digits === CHARGES_FAIL ? { chargesFail: true } : {}),
  };
  const token = TEST_TOKEN_PREFIX + Buffer.from(JSON.stringify(body)).toString("base64url");
  return { ok: true, token, brand: body.brand, last4: body.last4 };
}

function readToken(token: string): TokenBody | null {
  if (!token.startsWith(TEST_TOKEN_PREFIX) || token.length > 1024) return null;
  try {
    const body = JSON.parse(Buffer.from(token.slice(TEST_TOKEN_PREFIX.length), "base64url").toString("utf8")) as Partial<TokenBody>;
    if (body.v !== 2 || typeof body.n !== "string" || body.n.length < 22 || typeof body.for !== "string") return null;
    if (typeof body.last4 !== "string" || typeof body.brand !== "string") return null;
    if (typeof body.exp_month !== "number" || typeof body.exp_year !== "number") return null;
    return {
      v: 2,
      n: body.n,
      for: body.for,
      brand: body.brand,
      last4: body.last4,
      exp_month: body.exp_month,
      exp_year: body.exp_year,
      decline: body.decline ?? null,
      chargesFail: body.chargesFail === true,
    };
  } catch {
    return null;
  }
}

/** Stripe's test mode refuses an amount under the currency's minimum (its `amount_too_small`): so does the sandbox. */
function tooSmall(amount: number, currency: string): PaymentResult | null {
  if (!isBelowMinimumCharge(amount, currency)) return null;
  return { ok: false, code: "amount_too_small", message: `Amount must be at least ${formatMoney(minimumChargeAmount(currency), currency, "en")} ${currency.toLowerCase()}` };
}

/** What the test processor answers for an intent: it finishes every payment at once, so it never has one pending. */
const NO_INTENT = { ok: false, code: "resource_missing", message: "No such payment intent." } as const;
/** What `pay` answers for a token the test processor did not make (a setup's id is no token of its own). */
const INVALID_TOKEN = { ok: false, code: "invalid_token", message: "The payment details are invalid. Please enter your card again." } as const;

/** `servesLive`: it takes live organizations' payments too (TILL_TEST_PAYMENTS=live). */
export function createTestProcessor(servesLive = false): PaymentProcessor {
  return {
    id: "test",
    wireName: "stripe",
    servesLive,
    minimumCharge: minimumChargeAmount,
    checkoutMetadata: ({ clientSecret, baseURL }) => ({
      processor: "test",
      tokenize_url: `${baseURL}/v1/checkouts/client/${clientSecret}/test-card`,
    }),
    async pay(request: PaymentRequest): Promise<PaymentResult> {
      const card = readToken(request.confirmationTokenId);
      if (!card || card.for !== paymentPurpose(request.metadata)) return INVALID_TOKEN;
      const small = tooSmall(request.amount, request.currency);
      if (small) return small;
      const decline = card.decline ? DECLINES[card.decline] : undefined;
      // insufficient funds only matter when money moves: a card saved for later (amount 0) attaches
      const savesNoFunds = card.decline === NO_FUNDS && request.amount === 0 && request.setupFutureUsage;
      if (decline && !savesNoFunds) return { ok: false, ...decline };
      if (card.chargesFail && request.amount > 0) return { ok: false, ...CHARGE_DECLINE };
      return {
        ok: true,
        paymentId: request.amount > 0 ? `py_test_${randomUUID().replace(/-/g, "")}` : null,
        paymentMethodId: `pm_test_${card.last4}_${card.exp_month}_${card.exp_year}${card.chargesFail ? FAILING_METHOD_SUFFIX : savesNoFunds ? NO_FUNDS_METHOD_SUFFIX : ""}`,
        paymentMethod: { brand: card.brand, last4: card.last4, expMonth: card.exp_month, expYear: card.exp_year },
      };
    },
    // every refund of a test payment succeeds at once
    async refund(request: RefundRequest): Promise<RefundResult> {
      return { ok: true, processorRefundId: `re_test_${request.refundId.replace(/-/g, "")}` };
    },
    async charge(request: ChargeRequest): Promise<PaymentResult> {
      const m = /^pm_test_(\d{4})_(\d{1,2})_(\d{4})(_fails|_nofunds)?$/.exec(request.paymentMethodId);
      if (!m) return { ok: false, code: "invalid_payment_method", message: "The saved payment method is invalid." };
      const small = tooSmall(request.amount, request.currency);
      if (small) return small;
      if (m[4] === FAILING_METHOD_SUFFIX) return { ok: false, ...CHARGE_DECLINE };
      if (m[4] === NO_FUNDS_METHOD_SUFFIX) return { ok: false, ...NO_FUNDS_DECLINE };
      const [expMonth, expYear] = [Number(m[2]), Number(m[3])];
      return {
        ok: true,
        paymentId: `py_test_${randomUUID().replace(/-/g, "")}`,
        paymentMethodId: request.paymentMethodId,
        paymentMethod: { brand: "unknown", last4: m[1] ?? "", expMonth, expYear },
      };
    },
    async paymentOutcome(): Promise<PaymentResult> {
      return NO_INTENT;
    },
    // a setup it never left unfinished: the id is no token of its own, refused as `pay` refuses one
    async setupOutcome(): Promise<PaymentResult> {
      return INVALID_TOKEN;
    },
    // no bank transfers: they are the seller's Stripe account's (customer-balance transfers)
    offersBankTransfer: () => false,
    async bankTransfer() {
      return { result: { ok: false, code: "payment_method_unavailable", message: "Bank transfers are not offered here." }, instructions: null, processorCustomerId: null };
    },
    // it opens none, so there is none to cancel: answered canceled, as a cancel asked again is
    async cancelBankTransfer() {
      return { ok: false, code: PAYMENT_CANCELED_CODE, message: "The bank transfer was canceled." };
    },
    // it keeps no methods or customers of its own: till's rows are all there is
    async detach(): Promise<void> {},
    async setDefault(): Promise<void> {},
    // one processor for every organization (the router, payments/index.ts, chooses another where one is connected);
    // `this`, so a copy with a member replaced (a test's refusing refund) answers itself
    async forOrganization() {
      return this;
    },
    forConnection() {
      return this;
    },
  };
}
