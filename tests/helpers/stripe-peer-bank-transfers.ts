// The stand-in's customer-balance bank transfers (never shipped), from Stripe's docs
// (https://docs.stripe.com/payments/bank-transfers/accept-a-payment, .../customer-balance/reconciliation) and the API
// reference: a PaymentIntent of the `customer_balance` method (`payment_method_data[type]`, a customer, and
// `payment_method_options[customer_balance]` with `funding_type=bank_transfer` and the transfer type of the intent's
// currency — a euro transfer with its country) confirmed `requires_action` with next_action
// `display_bank_transfer_instructions`: the customer's virtual account and a reference. Stripe's own test helper
// (POST /v1/test_helpers/customers/{id}/fund_cash_balance) is the customer's transfer arriving: the customer's cash
// balance is funded and reconciled with their waiting intents of that currency — the one whose reference the
// transfer names, else the oldest. The whole amount succeeds the intent (payment_intent.succeeded, through the signed
// webhook); less funds it partly (payment_intent.partially_funded, amount_remaining lowered), and it keeps waiting.
// A canceled intent is never funded (what it had received goes back to the cash balance, as a refund of a transfer's
// payment does); GET /v1/customers/{id}/cash_balance reads what is left there.
import { createHash } from "node:crypto";
import { StripeFailure, type Authed, type Params, type PeerRoute } from "./stripe-peer.js";
import { missing, str } from "./stripe-peer-instruments.js";
import type { Ctx, Intent, PaymentMethod } from "./stripe-peer-payments.js";
import { newId, now } from "./stripe-peer-util.js";

/** The transfer Stripe takes in each currency (its bank transfers' supported currencies). */
const TYPE_OF_CURRENCY: Record<string, string> = {
  usd: "us_bank_transfer",
  eur: "eu_bank_transfer",
  gbp: "gb_bank_transfer",
  jpy: "jp_bank_transfer",
  mxn: "mx_bank_transfer",
};
const EU_COUNTRIES = ["BE", "DE", "ES", "FR", "IE", "NL"];

const invalid = (param: string, message: string) => new StripeFailure(400, { type: "invalid_request_error", code: "parameter_invalid", param, message });

/** Whether a create names the customer_balance method (its data, or the only type it allows). */
export function isCustomerBalance(p: Params): boolean {
  const data = (p.payment_method_data ?? {}) as Params;
  return data.type === "customer_balance";
}

/** The intent's transfer options as Stripe checks them: the type its currency takes, a euro one's country. */
function transferOf(p: Params, currency: string): { type: string; country: string | null } {
  const allowed = Array.isArray(p.allowed_payment_method_types) ? p.allowed_payment_method_types.map(String) : null;
  if (allowed && !allowed.includes("customer_balance")) {
    throw invalid("payment_method_data[type]", "The payment method type customer_balance is not in this PaymentIntent's allowed_payment_method_types.");
  }
  if (p.setup_future_usage !== undefined) throw invalid("setup_future_usage", "customer_balance does not support setup_future_usage.");
  const options = (((p.payment_method_options ?? {}) as Params).customer_balance ?? {}) as Params;
  if (str(options.funding_type) !== "bank_transfer") throw missing("payment_method_options[customer_balance][funding_type]");
  const transfer = (options.bank_transfer ?? {}) as Params;
  const type = str(transfer.type);
  if (!type) throw missing("payment_method_options[customer_balance][bank_transfer][type]");
  const expected = TYPE_OF_CURRENCY[currency];
  if (expected !== type) {
    throw invalid("payment_method_options[customer_balance][bank_transfer][type]", `The bank transfer type ${type} does not support the currency ${currency}.`);
  }
  if (type !== "eu_bank_transfer") return { type, country: null };
  const country = str(((transfer.eu_bank_transfer ?? {}) as Params).country);
  if (!country) throw missing("payment_method_options[customer_balance][bank_transfer][eu_bank_transfer][country]");
  if (!EU_COUNTRIES.includes(country)) {
    throw invalid("payment_method_options[customer_balance][bank_transfer][eu_bank_transfer][country]", `Country ${country} is not supported for EU bank transfers.`);
  }
  return { type, country };
}

/** A number of `n` digits fixed by the customer (Stripe gives each customer one virtual account per kind). */
const digits = (seed: string, n: number) => BigInt(`0x${createHash("sha256").update(seed).digest("hex")}`).toString().slice(0, n);

function financialAddress(customer: string, type: string, country: string | null) {
  const holder = { account_holder_name: "Till Stand-in Seller", account_holder_address: {}, bank_address: {} };
  switch (type) {
    case "us_bank_transfer":
      return {
        type: "aba", supported_networks: ["ach", "domestic_wire_us"],
        aba: { ...holder, account_number: digits(customer, 12), account_type: "checking", bank_name: "Stand-in Bank", routing_number: "101019644" },
      };
    case "eu_bank_transfer":
      return { type: "iban", supported_networks: ["sepa"], iban: { ...holder, bic: "SXPYDEHH", country, iban: `${country}${digits(customer, 20)}` } };
    case "gb_bank_transfer":
      return { type: "sort_code", supported_networks: ["bacs", "fps"], sort_code: { ...holder, account_number: digits(customer, 8), sort_code: "040075" } };
    case "jp_bank_transfer":
      return {
        type: "zengin", supported_networks: ["zengin"],
        zengin: { ...holder, account_number: digits(customer, 7), account_type: "futsu", bank_code: "0009", bank_name: "Stand-in Bank", branch_code: "950", branch_name: "Stand-in" },
      };
    default:
      return { type: "spei", supported_networks: ["spei"], spei: { ...holder, bank_code: "002", bank_name: "Stand-in Bank", clabe: digits(customer, 18) } };
  }
}

export interface BankTransfers {
  /** Checks a customer_balance create and makes its payment method (before the intent is confirmed). */
  prepare(auth: Authed, intent: Intent, p: Params): PaymentMethod;
  /** Confirms one: it waits for the money with the instructions. */
  await(intent: Intent): void;
  /** The customer's transfer arriving (a test's control; the test helper route does the same). */
  fund(auth: Authed, customer: string, amount: number, currency: string, reference?: string): Record<string, unknown>;
  /** A transfer's intent canceled: what it received goes back to the customer's cash balance. */
  canceled(intent: Intent): void;
  /** The customer's cash balance in `currency` (what arrived and was not applied; a test reads it). */
  balanceOf(customer: string, currency: string): number;
}

type Emit = (auth: Authed, intent: Intent, what: string) => void;
type Succeed = (auth: Authed, intent: Intent, pm: PaymentMethod) => void;

export function registerBankTransfers({ peer, o, customerParam }: Ctx, emitIntent: Emit, succeed: Succeed, route: PeerRoute): BankTransfers {
  /** Each customer's cash balance by currency: what arrived and was not applied to an intent yet. */
  const balances = new Map<string, Map<string, number>>();
  const transfers = new Map<string, { type: string; country: string | null; reference: string }>();

  const prepare = (auth: Authed, intent: Intent, p: Params): PaymentMethod => {
    const customer = intent.customer;
    if (!customer) throw missing("customer");
    customerParam(auth, customer);
    const currency = String(intent.currency);
    transfers.set(intent.id, { ...transferOf(p, currency), reference: `TILL${digits(`${intent.id}-ref`, 10)}` });
    const pm: PaymentMethod = {
      id: newId("pm"), object: "payment_method", type: "customer_balance", customer_balance: {}, billing_details: {},
      customer, behaviour: { brand: "customer_balance", last4: "" }, setUp: false, unverified: false, created: now(),
      account: auth.account.id, livemode: auth.livemode,
    };
    o.paymentMethods.set(pm.id, pm);
    intent.payment_method_types = ["customer_balance"];
    return pm;
  };

  const instructions = (intent: Intent, remaining: number) => {
    const t = transfers.get(intent.id);
    if (!t || !intent.customer) throw new Error(`no bank transfer ${intent.id}`);
    return {
      type: "display_bank_transfer_instructions",
      display_bank_transfer_instructions: {
        type: t.type, amount_remaining: remaining, currency: intent.currency, reference: t.reference,
        hosted_instructions_url: `https://payments.stripe.com/bank_transfers/instructions/test_${intent.id}`,
        financial_addresses: [financialAddress(intent.customer, t.type, t.country)],
      },
    };
  };

  const awaitMoney = (intent: Intent) => {
    intent.status = "requires_action";
    intent.next_action = instructions(intent, Number(intent.amount));
    emitIntent(peer.authOf(intent.account, intent.livemode), intent, "requires_action");
  };

  /** Applies the customer's balance to their waiting intents: the one the reference names first, then the oldest. */
  const reconcile = (auth: Authed, customer: string, currency: string, reference: string | undefined) => {
    const balance = balances.get(customer) ?? new Map<string, number>();
    const waiting = [...o.intents.values()]
      .filter((i) => i.customer === customer && i.currency === currency && i.status === "requires_action" && transfers.has(i.id) && i.account === auth.account.id)
      .sort((a, b) => Number(transfers.get(b.id)?.reference === reference) - Number(transfers.get(a.id)?.reference === reference) || Number(a.created) - Number(b.created));
    for (const intent of waiting) {
      const available = balance.get(currency) ?? 0;
      if (available <= 0) break;
      const shown = (intent.next_action as { display_bank_transfer_instructions: { amount_remaining: number } }).display_bank_transfer_instructions;
      const applied = Math.min(available, shown.amount_remaining);
      balance.set(currency, available - applied);
      const remaining = shown.amount_remaining - applied;
      intent.amount_received = Number(intent.amount) - remaining;
      if (remaining === 0) {
        const pm = o.paymentMethods.get(intent.payment_method ?? "");
        if (pm) succeed(auth, intent, pm);
      } else {
        intent.next_action = instructions(intent, remaining);
        emitIntent(auth, intent, "partially_funded");
      }
    }
    balances.set(customer, balance);
  };

  const fund = (auth: Authed, customer: string, amount: number, currency: string, reference?: string) => {
    customerParam(auth, customer);
    if (!Number.isInteger(amount) || amount <= 0) throw invalid("amount", "Amount must be a positive integer.");
    credit(customer, currency, amount);
    reconcile(auth, customer, currency, reference);
    return {
      id: newId("ccsbtxn"), object: "customer_cash_balance_transaction", type: "funded", customer, currency, net_amount: amount,
      ending_balance: balances.get(customer)?.get(currency) ?? 0, created: now(), livemode: auth.livemode,
      funded: { bank_transfer: { type: TYPE_OF_CURRENCY[currency] ?? "us_bank_transfer", reference: reference ?? null } },
    };
  };

  const credit = (customer: string, currency: string, amount: number) => {
    const balance = balances.get(customer) ?? new Map<string, number>();
    balance.set(currency, (balance.get(currency) ?? 0) + amount);
    balances.set(customer, balance);
  };

  // Stripe's reconciliation docs: canceling a partly funded intent returns what it received to the cash balance (a
  // canceled intent is never funded again: reconcile takes only those awaiting the money)
  const canceled = (intent: Intent) => {
    if (!transfers.has(intent.id) || !intent.customer) return;
    intent.next_action = null;
    const received = Number(intent.amount_received ?? 0);
    if (received > 0) credit(intent.customer, String(intent.currency), received);
  };

  // a refund of a customer_balance payment goes to the customer's cash balance (its transaction refunded_from_payment)
  o.hooks.refunded.push((_auth, refund) => {
    const intent = o.intents.get(String(refund.payment_intent));
    if (intent?.customer && transfers.has(intent.id)) credit(intent.customer, String(refund.currency), Number(refund.amount));
  });

  // Stripe's own test helper: the customer's bank transfer arrives
  route("POST", "/v1/test_helpers/customers/:id/fund_cash_balance", "customer_write", (auth, req) => {
    const p = peer.params(req);
    if (p.amount === undefined) throw missing("amount");
    const currency = str(p.currency);
    if (!currency) throw missing("currency");
    return fund(auth, (req.params as { id: string }).id, Number(p.amount), currency, str(p.reference));
  });
  // the customer's cash balance (GET /v1/customers/{customer}/cash_balance): what arrived and no intent took
  route("GET", "/v1/customers/:id/cash_balance", "customer_read", (auth, req) => {
    const customer = (req.params as { id: string }).id;
    customerParam(auth, customer);
    return {
      object: "cash_balance", customer, livemode: auth.livemode, available: Object.fromEntries(balances.get(customer) ?? new Map<string, number>()),
      settings: { reconciliation_mode: "automatic", using_merchant_default: true },
    };
  });
  return { prepare, await: awaitMoney, fund, canceled, balanceOf: (customer, currency) => balances.get(customer)?.get(currency) ?? 0 };
}
