// Money the processor took for an order already paid another way is given back: a bank debit that was `processing`
// when the order was paid otherwise (a debit cannot be canceled, so it may still succeed), a bank transfer that beat
// its cancel (transfer-cancel.ts), a payment the customer authenticated after the order was marked paid. Found by
// the payment's late success (late.ts, Stripe's payment_intent.succeeded) and by the transfers' cancel
// (transfer-cancel.ts) — one path for all (docs/decisions.md, "An order is paid once").
import type { Queryable } from "../../db/client.js";
import { processorFor, type PaymentProcessor } from "../../payments/processor.js";
import { requestEmail } from "../customer-emails/service.js";
import { getOrder } from "../orders/service.js";
import * as payments from "../payments/service.js";

/** The decline code of a payment given back: the seller's payments list shows it failed so, with why. */
export const GIVEN_BACK_CODE = "duplicate";

const TRANSFER_GIVEN_BACK = "The bank transfer arrived after the order was paid another way: it was refunded to the customer's cash balance.";
const DEBIT_GIVEN_BACK = "The bank debit succeeded after the order was paid another way: it was refunded in full to the customer.";
const PAYMENT_GIVEN_BACK = "The payment succeeded after the order was paid another way: it was refunded in full to the customer.";

function givenBackMessage(row: payments.PaymentRow): string {
  if (row.method === "customer_balance") return TRANSFER_GIVEN_BACK;
  return row.declineReason === "processing" ? DEBIT_GIVEN_BACK : PAYMENT_GIVEN_BACK;
}

/**
 * A payment of `orderId` recorded pending that succeeded at the processor although the order is paid already (the
 * caller holds the order's lock and knows it paid): refunded whole (refundDuplicate) and recorded failed with why
 * (recordGivenBack), so the order is paid once. A refund the processor did not take is thrown (the event is tried
 * again later). Null: no pending payment of the order under that id (handled already, or another's).
 */
export async function giveBackDuplicate(tx: Queryable, router: PaymentProcessor, organizationId: string, orderId: string, processorPaymentId: string, now: Date): Promise<"given_back" | null> {
  const row = await payments.pendingPaymentOf(tx, organizationId, orderId, processorPaymentId);
  if (!row) return null;
  await refundDuplicate(await processorFor(router, tx, organizationId), orderId, row);
  await recordGivenBack(tx, organizationId, orderId, row, now);
  return "given_back";
}

/**
 * Refunds the payment whole (reason duplicate; a customer-balance payment's money goes back to the customer's cash
 * balance there). Keyed by the payment, so a second ask (an event handled again, a job after a crash, the event and
 * a transfer's cancel both finding it) refunds once; it carries no refund_id, so its own events are no refund of the
 * order (processor-events/refunds.ts). Makes no database call: a caller may hold no transaction across it.
 */
export async function refundDuplicate(processor: PaymentProcessor, orderId: string, row: payments.PaymentRow): Promise<void> {
  const processorPaymentId = row.processorPaymentId ?? "";
  const refund = await processor.refund({
    refundId: `payment-${row.id}-duplicate`,
    paymentId: processorPaymentId,
    amount: row.amount,
    currency: row.currency,
    reason: "duplicate",
    metadata: { order_id: orderId, payment_id: row.id },
  });
  if (!refund.ok) throw new Error(`the payment ${processorPaymentId} of order ${orderId}, paid already, could not be refunded: ${refund.code}`);
}

/**
 * The refunded payment recorded failed with why, once, and the buyer told by email that the duplicate payment came
 * back (the caller holds the order's lock). Null: it was recorded already (the other path got there first).
 */
export async function recordGivenBack(tx: Queryable, organizationId: string, orderId: string, row: payments.PaymentRow, now: Date): Promise<"given_back" | null> {
  const given = { ok: false as const, code: GIVEN_BACK_CODE, message: givenBackMessage(row) };
  const settled = await payments.settlePendingCharge(tx, organizationId, orderId, row.processorPaymentId ?? "", given, now);
  if (settled !== "failed") return null;
  await requestDuplicateRefundedEmail(tx, organizationId, orderId, row);
  return "given_back";
}

/** How the duplicate was paid, as its email says where the money went (a transfer's stays in the cash balance). */
export type DuplicateMethod = "bank_transfer" | "bank_debit" | "payment";

function methodOf(row: payments.PaymentRow): DuplicateMethod {
  if (row.method === "customer_balance") return "bank_transfer";
  return row.declineReason === "processing" ? "bank_debit" : "payment";
}

/** The buyer's email: the payment that came after the order was paid was refunded in full (once per payment). */
async function requestDuplicateRefundedEmail(tx: Queryable, organizationId: string, orderId: string, row: payments.PaymentRow): Promise<void> {
  const order = await getOrder(tx, organizationId, orderId);
  if (!order.customer.email) return;
  await requestEmail(tx, {
    organizationId,
    causeId: row.id,
    type: "duplicate_payment_refunded",
    recipient: order.customer.email,
    customerId: order.customer_id,
    data: {
      amount: row.amount,
      currency: row.currency,
      method: methodOf(row),
      order: { id: order.id, invoice_number: order.invoice_number, product: order.product ? { name: order.product.name } : null, total_amount: order.total_amount },
    },
  });
}
