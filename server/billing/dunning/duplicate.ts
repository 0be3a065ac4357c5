// Money the processor took for an order already paid another way is given back: a bank debit that was `processing`
// when the order was paid otherwise (a debit cannot be canceled, so it may still succeed), a bank transfer that beat
// its cancel (transfer-cancel.ts), a payment the customer authenticated after the order was marked paid. Found by
// the payment's late success (late.ts, Stripe's payment_intent.succeeded) and by the transfers' cancel
// (transfer-cancel.ts) — one path for all (docs/decisions.md, "An order is paid once").
import type { Queryable } from "../../db/client.js";
import { processorFor, type PaymentProcessor } from "../../payments/processor.js";
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
 * caller holds the order's lock and knows it paid): refunded whole (reason duplicate; a customer-balance payment's
 * money goes back to the customer's cash balance there) and recorded failed with why, so the order is paid once. The
 * refund is keyed by the payment, so an event handled again refunds once; it carries no refund_id, so its own events
 * are no refund of the order (processor-events/refunds.ts). A refund the processor did not take is thrown (the event
 * is tried again later). Null: no pending payment of the order under that id (handled already, or another's).
 */
export async function giveBackDuplicate(tx: Queryable, router: PaymentProcessor, organizationId: string, orderId: string, processorPaymentId: string, now: Date): Promise<"given_back" | null> {
  const row = await payments.pendingPaymentOf(tx, organizationId, orderId, processorPaymentId);
  if (!row) return null;
  const processor = await processorFor(router, tx, organizationId);
  const refund = await processor.refund({
    refundId: `payment-${row.id}-duplicate`,
    paymentId: processorPaymentId,
    amount: row.amount,
    currency: row.currency,
    reason: "duplicate",
    metadata: { order_id: orderId, payment_id: row.id },
  });
  if (!refund.ok) throw new Error(`the payment ${processorPaymentId} of order ${orderId}, paid already, could not be refunded: ${refund.code}`);
  const given = { ok: false as const, code: GIVEN_BACK_CODE, message: givenBackMessage(row) };
  await payments.settlePendingCharge(tx, organizationId, orderId, processorPaymentId, given, now);
  return "given_back";
}
