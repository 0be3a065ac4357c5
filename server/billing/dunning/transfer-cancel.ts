// A bank transfer left open by an order paid another way (a card on the pay page or in the portal, "mark paid", a
// dunning retry): its intent is canceled at the processor, so money the customer still sends stays in their cash
// balance there instead of paying the order twice (docs/decisions.md, "A bank transfer of an order paid another way").
// Done from the outbox — order.paid, in the fan-out's transaction — and again by the schedule's pass for an order the
// processor could not be asked for (an outage, a lost answer) or that went void: the cancel is keyed by the payment,
// so a retry after a crash is the processor's first answer again, never a second cancel. Money that won the race (the
// intent succeeded before its cancel) is given back (giveBackLateTransfer, from late.ts).
import type { Db, Queryable } from "../../db/client.js";
import type { OutboxSubscriber } from "../../db/outbox.js";
import { processorErrorOf, processorFor, PAYMENT_CANCELED_CODE, type PaymentProcessor } from "../../payments/processor.js";
import type { ScheduledPass } from "../../tasks/claim.js";
import { orgNow } from "../clock.js";
import { lockOrderRow } from "../orders/service.js";
import * as payments from "../payments/service.js";

/** What the payment of a canceled transfer says (its decline message: the seller's payments list shows it). */
const TRANSFER_CANCELED_MESSAGE = "The bank transfer was canceled: the order was paid another way.";

/**
 * What a cancel did: `canceled` (the payment recorded failed), `arrived` (the money came first: its event settles it),
 * `unanswered` (the processor could not be asked: left for the next pass), `none` (nothing open, or still owed).
 */
export type TransferCancel = "canceled" | "arrived" | "unanswered" | "none";

/** Cancels the open transfer of an order no longer owed, under the order's lock (the transfer's event waits for it). */
export async function cancelOpenTransfer(tx: Queryable, router: PaymentProcessor, organizationId: string, orderId: string): Promise<TransferCancel> {
  const order = await lockOrderRow(tx, organizationId, orderId);
  if (!order || order.status === "pending") return "none";
  const open = await payments.pendingTransferOfOrder(tx, organizationId, orderId);
  if (!open?.processorPaymentId) return "none";
  const processor = await processorFor(router, tx, organizationId);
  // another processor than the one that opened it (the seller disconnected Stripe) holds no such intent
  if (processor.id !== open.processor) return "unanswered";
  const result = await processor.cancelBankTransfer({ intentId: open.processorPaymentId, idempotencyKey: `till-payment-${open.id}-cancel` });
  if (processorErrorOf(result)) return "unanswered";
  if (result.ok) return "arrived";
  // still awaiting after a cancel is not an answer the processor gives: asked again by the next pass
  if (result.next) return "unanswered";
  const failed = { ok: false as const, code: PAYMENT_CANCELED_CODE, message: TRANSFER_CANCELED_MESSAGE };
  await payments.settlePendingCharge(tx, organizationId, orderId, open.processorPaymentId, failed, await orgNow(tx, organizationId));
  return "canceled";
}

/** What the payment of a transfer that arrived for an order already paid says: given back, not counted. */
const TRANSFER_GIVEN_BACK_CODE = "duplicate";
const GIVEN_BACK_MESSAGE = "The bank transfer arrived after the order was paid another way: it was refunded to the customer's cash balance.";

/**
 * A transfer's money that arrived for an order already paid another way (it beat its cancel): refunded whole — for a
 * customer-balance payment the processor puts the money back in the customer's cash balance — and its payment
 * recorded failed with why, so the order is paid once. Keyed by the payment: the event handled again refunds once. A
 * refund the processor did not take is thrown (the event is tried again later). Null: not the order's open transfer.
 */
export async function giveBackLateTransfer(tx: Queryable, router: PaymentProcessor, organizationId: string, orderId: string, processorPaymentId: string, now: Date): Promise<"given_back" | null> {
  const open = await payments.pendingTransferOfOrder(tx, organizationId, orderId);
  if (!open || open.processorPaymentId !== processorPaymentId) return null;
  const processor = await processorFor(router, tx, organizationId);
  const refund = await processor.refund({
    refundId: `payment-${open.id}-duplicate`,
    paymentId: processorPaymentId,
    amount: open.amount,
    currency: open.currency,
    reason: "duplicate",
    // no refund_id: the refund's events are not a refund of the order (processor-events/refunds.ts)
    metadata: { order_id: orderId, payment_id: open.id },
  });
  if (!refund.ok) throw new Error(`the late transfer ${processorPaymentId} of order ${orderId} could not be refunded: ${refund.code}`);
  await payments.settlePendingCharge(tx, organizationId, orderId, processorPaymentId, { ok: false, code: TRANSFER_GIVEN_BACK_CODE, message: GIVEN_BACK_MESSAGE }, now);
  return "given_back";
}

interface OutboxRowView {
  organizationId: string;
  type: string;
  payload: Record<string, unknown>;
}

/** The orders a batch paid, by organization. */
function paidOrders(rows: OutboxRowView[]): Map<string, Set<string>> {
  const byOrg = new Map<string, Set<string>>();
  for (const row of rows) {
    if (row.type !== "order.paid" || typeof row.payload.id !== "string") continue;
    const ids = byOrg.get(row.organizationId) ?? new Set<string>();
    ids.add(row.payload.id);
    byOrg.set(row.organizationId, ids);
  }
  return byOrg;
}

/**
 * The outbox's side: each paid order of the batch with a transfer awaiting the money (one indexed read per
 * organization) has it canceled, each in a savepoint; one that fails is logged and left for the schedule's pass.
 */
export function transferCancelSubscriber(processor: PaymentProcessor): OutboxSubscriber<OutboxRowView> {
  return {
    name: "bank-transfers",
    async receive(tx, rows, log) {
      for (const [org, ids] of paidOrders(rows)) {
        for (const orderId of await payments.ordersAwaitingTransfer(tx, org, [...ids])) {
          try {
            await tx.transaction((sp) => cancelOpenTransfer(sp, processor, org, orderId));
          } catch (err) {
            log.error(err, `bank transfers: the transfer of order ${orderId} could not be canceled`);
          }
        }
      }
      // nothing recorded for a job to do, no event to send
      return 0;
    },
  };
}

export interface TransferCancelRun extends ScheduledPass {
  processor: PaymentProcessor;
}

/**
 * The schedule's pass: every order no longer owed whose transfer still awaits the money has it canceled, each in a
 * transaction of its own (the cancel is keyed: two replicas asking at once cancel once). One the processor could not
 * be asked for is left for the next pass. Returns how many were canceled.
 */
export async function runTransferCancels(run: TransferCancelRun): Promise<number> {
  const db: Db = run.db;
  const due = await payments.settledOrdersAwaitingTransfer(db, run.organizationId, run.batch ?? 100);
  let canceled = 0;
  for (const { organizationId, orderId } of due) {
    try {
      if ((await db.transaction((tx) => cancelOpenTransfer(tx, run.processor, organizationId, orderId))) === "canceled") canceled += 1;
    } catch (err) {
      run.log?.error(err, `bank transfers: the transfer of order ${orderId} could not be canceled`);
    }
  }
  return canceled;
}
