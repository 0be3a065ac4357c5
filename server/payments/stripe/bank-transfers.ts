// Stripe's customer-balance bank transfers (https://docs.stripe.com/payments/bank-transfers): a PaymentIntent of the
// `customer_balance` method, funded by a bank transfer, on the Stripe customer of the till customer. Confirmed at
// once, it waits (`requires_action`) with `next_action.display_bank_transfer_instructions`: the account to send the
// money to and the reference to write on it. Stripe reconciles the customer's transfers with it and sends
// payment_intent.succeeded once the whole amount arrived (a partial transfer leaves it waiting, with less to send).
// Which transfer a currency takes is Stripe's table: the seller's account must have the matching method enabled.
import type Stripe from "stripe";
import type { BankTransferInstructions, BankTransferRequest, CancelTransferRequest } from "../processor.js";
import { Stripe as StripeSdk, withoutCallSite } from "./client.js";

type TransferType = Stripe.PaymentIntentCreateParams.PaymentMethodOptions.CustomerBalance.BankTransfer.Type;

/** The bank transfer Stripe offers for each currency it takes them in. */
const TRANSFER_TYPES: Readonly<Record<string, TransferType>> = {
  usd: "us_bank_transfer",
  eur: "eu_bank_transfer",
  gbp: "gb_bank_transfer",
  jpy: "jp_bank_transfer",
  mxn: "mx_bank_transfer",
};
/** The countries Stripe holds euro accounts in (eu_bank_transfer.country); another buyer's goes to the first. */
const EU_TRANSFER_COUNTRIES = ["IE", "NL", "DE", "FR", "ES", "BE"] as const;

export const offersBankTransfer = (currency: string) => TRANSFER_TYPES[currency.toLowerCase()] !== undefined;

function transferOptions(type: TransferType, country: string | null): Stripe.PaymentIntentCreateParams.PaymentMethodOptions.CustomerBalance.BankTransfer {
  if (type !== "eu_bank_transfer") return { type };
  const upper = country?.toUpperCase() ?? "";
  const at = (EU_TRANSFER_COUNTRIES as readonly string[]).includes(upper) ? upper : EU_TRANSFER_COUNTRIES[0];
  return { type, eu_bank_transfer: { country: at } };
}

/** The details of one account as name/value pairs (its postal addresses left out: the page shows the numbers). */
function detailsOf(address: Stripe.PaymentIntent.NextAction.DisplayBankTransferInstructions.FinancialAddress) {
  const own = address[address.type as "aba" | "iban" | "sort_code" | "spei" | "swift" | "zengin"];
  if (!own) return [];
  return Object.entries(own)
    .filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== "")
    .map(([name, value]) => ({ name, value }));
}

export function instructionsOf(pi: Stripe.PaymentIntent): BankTransferInstructions | null {
  const shown = pi.status === "requires_action" && pi.next_action?.type === "display_bank_transfer_instructions" ? pi.next_action.display_bank_transfer_instructions : undefined;
  if (!shown) return null;
  return {
    type: shown.type,
    amount_remaining: shown.amount_remaining ?? pi.amount,
    currency: shown.currency ?? pi.currency,
    reference: shown.reference,
    hosted_instructions_url: shown.hosted_instructions_url,
    financial_addresses: (shown.financial_addresses ?? []).map((a) => ({ type: a.type, supported_networks: a.supported_networks ?? [], details: detailsOf(a) })),
  };
}

/** The Stripe customer of the till customer: the one kept, else a new one (its create keyed by the request). */
async function customerOf(stripe: Stripe, request: BankTransferRequest): Promise<string> {
  if (request.customer.processorCustomerId) return request.customer.processorCustomerId;
  const created = await withoutCallSite(() => stripe.customers.create(
    { email: request.customer.email, name: request.customer.name ?? undefined } satisfies Stripe.CustomerCreateParams,
    { idempotencyKey: `${request.idempotencyKey}-customer` },
  ));
  return created.id;
}

async function startTransfer(stripe: Stripe, request: BankTransferRequest, type: TransferType, customer: string): Promise<Stripe.PaymentIntent> {
  return withoutCallSite(() => stripe.paymentIntents.create(
    {
      amount: request.amount,
      currency: request.currency,
      customer,
      // the pinned API version names the methods an intent takes allowed_payment_method_types
      allowed_payment_method_types: ["customer_balance"],
      payment_method_data: { type: "customer_balance" },
      payment_method_options: { customer_balance: { funding_type: "bank_transfer", bank_transfer: transferOptions(type, request.country) } },
      confirm: true,
      description: request.description,
      metadata: request.metadata,
      expand: ["payment_method"],
    } satisfies Stripe.PaymentIntentCreateParams,
    { idempotencyKey: request.idempotencyKey },
  ));
}

/**
 * A new transfer's intent (its customer made first when the till customer has none at Stripe), or the earlier one read
 * as it is now; null when the currency takes no bank transfer. Stripe's errors are thrown (the adapter reads them).
 */
export async function transferIntent(stripe: Stripe, request: BankTransferRequest): Promise<{ pi: Stripe.PaymentIntent; customer: string | null } | null> {
  const type = TRANSFER_TYPES[request.currency.toLowerCase()];
  if (!type) return null;
  if (request.intentId) {
    const id = request.intentId;
    return { pi: await withoutCallSite(() => stripe.paymentIntents.retrieve(id, { expand: ["payment_method"] })), customer: request.customer.processorCustomerId };
  }
  const customer = await customerOf(stripe, request);
  return { pi: await startTransfer(stripe, request, type, customer), customer };
}

/**
 * Cancels a transfer's intent that awaits the money (its order was paid another way): Stripe then leaves money that
 * still arrives in the customer's cash balance, unapplied. Stripe refuses to cancel an intent the money already
 * succeeded (`payment_intent_unexpected_state`): it is read as it is instead. The key makes a retry Stripe's first
 * answer (a crash or a lost answer cancels once).
 */
export async function cancelTransfer(stripe: Stripe, request: CancelTransferRequest): Promise<Stripe.PaymentIntent> {
  const { intentId, idempotencyKey } = request;
  try {
    return await withoutCallSite(() => stripe.paymentIntents.cancel(
      intentId,
      // the order was paid once already: this intent would be a second payment of it
      { cancellation_reason: "duplicate", expand: ["payment_method"] } satisfies Stripe.PaymentIntentCancelParams,
      { idempotencyKey },
    ));
  } catch (err) {
    if (!(err instanceof StripeSdk.errors.StripeInvalidRequestError) || err.code !== "payment_intent_unexpected_state") throw err;
    return withoutCallSite(() => stripe.paymentIntents.retrieve(intentId, { expand: ["payment_method"] }));
  }
}
