// Paying an unpaid subscription order by bank transfer from its hosted pay page: the seller's processor (a connected
// Stripe account's customer-balance transfers) opens a payment of the amount owed and gives the account to send it to,
// with a reference; the payment is recorded pending. Nothing is settled here: the order is paid (late.ts, as a bank
// debit is) only when the processor's event says the money arrived — a partial transfer leaves the order unpaid and
// the instructions say what is left. Asked again, the same payment's instructions are read as they are now.
import { randomUUID } from "node:crypto";
import type { Db, Queryable } from "../../db/client.js";
import { withCallTurn } from "../../db/call-turns.js";
import { processorCustomerOf, rememberProcessorCustomer } from "../../payments/customers.js";
import { processorErrorOf, processorFor, type BankTransferAnswer, type BankTransferInstructions, type PaymentProcessor } from "../../payments/processor.js";
import { orgNow } from "../clock.js";
import { findCustomer } from "../customers/service.js";
import { lockOrderRow } from "../orders/service.js";
import type { OrderRow } from "../orders/wire.js";
import * as payments from "../payments/service.js";
import { noteProcessorError } from "../processor-connections/processor-errors.js";
import type { DunningDeps } from "./collect.js";
import { bankTransferUnavailable, debitProcessing, notEligibleForRetry } from "./errors.js";

type Deps = DunningDeps & { db: Db };

export interface BankTransferState {
  /** `awaiting_transfer`: the instructions say where to send the money; `processing`: it arrived, the order settles. */
  status: "awaiting_transfer" | "processing";
  instructions: BankTransferInstructions | null;
}

const owed = (o: OrderRow) => Math.max(0, o.totalAmount + o.appliedBalanceAmount);

/** Whether the page offers a bank transfer: a subscription's order still owed, in a currency the processor takes. */
export async function offersBankTransfer(deps: Deps, o: OrderRow): Promise<boolean> {
  if (o.status !== "pending" || !o.subscriptionId || owed(o) === 0) return false;
  return (await processorFor(deps.processor, deps.db, o.organizationId)).offersBankTransfer(o.currency);
}

/** The processor's transfer for the locked order: the pending one read again, else a new one. */
async function askProcessor(tx: Queryable, processor: PaymentProcessor, o: OrderRow, intentId: string | null): Promise<BankTransferAnswer> {
  const customer = await findCustomer(tx, o.organizationId, o.customerId);
  if (!customer) throw notEligibleForRetry();
  const known = await processorCustomerOf(tx, o.organizationId, o.customerId, processor.id);
  const answer = await processor.bankTransfer({
    intentId,
    amount: owed(o),
    currency: o.currency,
    customer: { id: customer.id, email: customer.email, name: customer.name, processorCustomerId: known },
    country: o.billingAddress?.country ?? null,
    description: `Order ${o.invoiceNumber}`,
    // what the processor's event pays (processor-events/payments.ts)
    metadata: { order_id: o.id, subscription_id: o.subscriptionId ?? "" },
    idempotencyKey: `till-order-${o.id}-transfer-${randomUUID()}`,
  });
  if (answer.processorCustomerId && !known) await rememberProcessorCustomer(tx, o.organizationId, o.customerId, processor.id, answer.processorCustomerId);
  return answer;
}

/**
 * Starts the order's bank transfer, or shows the one started; 422 when the order is not owed, 409 when its processor
 * takes no bank transfer for it (or refused to open one: the seller is told, the customer reads till's message).
 */
export async function payByBankTransfer(deps: Deps, row: OrderRow): Promise<BankTransferState> {
  if (!(await offersBankTransfer(deps, row))) {
    if (row.status !== "pending" || owed(row) === 0) throw notEligibleForRetry();
    throw bankTransferUnavailable();
  }
  const org = row.organizationId;
  const processor = await processorFor(deps.processor, deps.db, org);
  // the processor is asked under the order's lock, in one of the pool's turns (db/call-turns.ts): one transfer each
  return withCallTurn(deps.db, () => deps.db.transaction(async (tx) => {
    const o = await lockOrderRow(tx, org, row.id);
    if (!o || o.status !== "pending" || owed(o) === 0) throw notEligibleForRetry();
    // the debit cannot be canceled: money sent beside it would pay the order twice
    if (await payments.processingDebitOfOrder(tx, org, o.id)) throw debitProcessing();
    const now = await orgNow(tx, org);
    let open = await payments.pendingTransferOfOrder(tx, org, o.id);
    let answer = await askProcessor(tx, processor, o, open?.processorPaymentId ?? null);
    if (open?.processorPaymentId && !answer.result.ok && !answer.result.next && !processorErrorOf(answer.result)) {
      // the earlier transfer ended without the money (canceled at Stripe): recorded failed, and a new one opened
      await payments.settlePendingCharge(tx, org, o.id, open.processorPaymentId, answer.result, now);
      open = undefined;
      answer = await askProcessor(tx, processor, o, null);
    }
    const error = processorErrorOf(answer.result);
    if (error) {
      await noteProcessorError(tx, org, error, { what: "bank transfer", id: o.id }, now, deps.log);
      throw bankTransferUnavailable("The seller's payment account could not open a bank transfer now. Pay by card, or try again later.");
    }
    const { result } = answer;
    if (!result.ok && !result.next) throw bankTransferUnavailable(result.message);
    if (!open) {
      const charge = { method: null, result, processorId: processor.id };
      const at = { organizationId: org, customerId: o.customerId, orderId: o.id, checkoutId: null, amount: owed(o), currency: o.currency, attempt: "manual" as const };
      // pending until the processor's event, even when the customer's balance paid it at once: the event settles it
      await payments.insertPayment(tx, { ...payments.paymentOf(processor, charge, at, now), status: "pending", method: "customer_balance" });
    }
    return result.ok ? { status: "processing", instructions: null } : { status: "awaiting_transfer", instructions: answer.instructions };
  }));
}
