// The hosted pay page's side of an unpaid order (`/pay/<token>`, no sign-in): what the page shows, the test
// processor's card tokenizer, and the payment itself — the portal's retry (confirmRetry) on the customer the order
// belongs to, so a link's payment settles the order exactly as a dunning retry does. Paying an order already paid
// charges nothing and answers that it is paid; one whose bank debit is still processing is refused (409
// DebitProcessing) until the bank answers.
import type { Db } from "../../db/client.js";
import { processorFor } from "../../payments/processor.js";
import { paymentPurpose, tokenizeTestCard } from "../../payments/test-processor.js";
import { invalid, notFound } from "../errors.js";
import { getOrganization } from "../organizations/service.js";
import { findOrder } from "../orders/service.js";
import { readPayLinkToken } from "../pay-links.js";
import * as payments from "../payments/service.js";
import { offersBankTransfer, payByBankTransfer } from "./bank-transfer.js";
import { debitProcessing } from "./errors.js";
import type { DunningDeps } from "./collect.js";
import { confirmRetry, paymentStatus, type ConfirmRetryInput } from "./service.js";

type Deps = DunningDeps & { db: Db };

const linkNotFound = () => notFound("This pay link is not valid or has expired.");

/** The order a token pays (404 for a bad, expired or foreign token alike: a guess learns nothing). */
async function orderOfToken(db: Db, token: string) {
  const scope = readPayLinkToken(token, new Date());
  if (!scope) throw linkNotFound();
  const row = await findOrder(db, scope.organizationId, scope.orderId);
  if (!row) throw linkNotFound();
  return row;
}

const isPaid = (status: string) => status === "paid" || status === "refunded" || status === "partially_refunded";

/**
 * What the hosted page shows: the order, who is paid, how the card is taken, whether a bank transfer is offered (and
 * one was started: the page shows its instructions again), and the last payment's state.
 */
export async function payPage(deps: Deps, token: string) {
  const row = await orderOfToken(deps.db, token);
  const org = await getOrganization(deps.db, row.organizationId);
  const processor = await processorFor(deps.processor, deps.db, row.organizationId);
  const publishable = processor.id === "test" ? null : (processor.checkoutMetadata({ clientSecret: "", baseURL: deps.baseURL }).publishable_key ?? null);
  const payment = await paymentStatus(deps.db, row.organizationId, row.customerId, row.id);
  // a bank debit on its way: the page says so and offers no other way to pay meanwhile
  const debit = row.status === "pending" && (await payments.processingDebitOfOrder(deps.db, row.organizationId, row.id)) !== undefined;
  const transfer = !debit && (await offersBankTransfer(deps, row)) ? { offered: true, started: (await payments.pendingTransferOfOrder(deps.db, row.organizationId, row.id)) !== undefined } : null;
  return {
    order: {
      id: row.id,
      created_at: row.createdAt.toISOString(),
      status: row.status,
      paid: isPaid(row.status),
      invoice_number: row.invoiceNumber,
      billing_reason: row.billingReason,
      // an invoice with terms: due then (the page says so rather than a declined charge)
      due_at: row.dueAt?.toISOString() ?? null,
      currency: row.currency,
      total_amount: row.totalAmount,
      due_amount: row.status === "pending" ? Math.max(0, row.totalAmount + row.appliedBalanceAmount) : 0,
    },
    organization: { name: org.name, avatar_url: org.avatar_url ?? null },
    processor: { processor: processor.id === "test" ? ("test" as const) : ("stripe" as const), publishable_key: publishable },
    bank_transfer: transfer ?? { offered: false, started: false },
    debit_processing: debit,
    payment,
  };
}

/** Pays the order by bank transfer: its instructions (the same transfer's when one was started). */
export async function payLinkBankTransfer(deps: Deps, token: string) {
  return payByBankTransfer(deps, await orderOfToken(deps.db, token));
}

/** The test processor's card form on the hosted page: the card becomes a token bound to the order's customer. */
export async function payTestCard(deps: Deps, token: string, card: { number: string; exp_month: number; exp_year: number; cvc: string }) {
  const row = await orderOfToken(deps.db, token);
  if (deps.processor.id !== "test") throw invalid(["body"], "The server does not use the test payment processor.");
  const result = tokenizeTestCard(card, paymentPurpose({ customer_id: row.customerId }));
  if (!result.ok) throw invalid(["body", result.field], result.message, "card_error", result.code);
  return { confirmation_token_id: result.token, card: { brand: result.brand, last4: result.last4, exp_month: card.exp_month, exp_year: card.exp_year } };
}

const PAID = { status: "succeeded", client_secret: null, error: null } as const;

/**
 * Pays the order with a new card (the portal's retry: the card saved as the customer's default, the charge made
 * under the order's lock). Idempotent by order: a paid order answers succeeded without a charge, also when another
 * attempt paid it while this one waited for the lock.
 */
export async function payByLink(deps: Deps, token: string, input: ConfirmRetryInput) {
  const row = await orderOfToken(deps.db, token);
  if (isPaid(row.status)) return PAID;
  // refused before the card is saved: the debit may still succeed, and then the card would pay the order twice
  if (await payments.processingDebitOfOrder(deps.db, row.organizationId, row.id)) throw debitProcessing();
  try {
    return await confirmRetry(deps, row.organizationId, row.customerId, row.id, { confirmation_token_id: input.confirmation_token_id });
  } catch (err) {
    const now = await findOrder(deps.db, row.organizationId, row.id);
    if (now && isPaid(now.status)) return PAID;
    throw err;
  }
}

/** The order's payment now (after 3-D Secure, Stripe's event settles it a moment later). */
export async function payLinkStatus(deps: Deps, token: string) {
  const row = await orderOfToken(deps.db, token);
  return paymentStatus(deps.db, row.organizationId, row.customerId, row.id);
}

