// A bank transfer left open by an order paid another way (a card on the pay page or in the portal, "mark paid", a
// dunning retry): its intent is canceled at the processor, so money the customer still sends stays in their cash
// balance there instead of paying the order twice (docs/decisions.md, "A bank transfer of an order paid another way").
// Done from the outbox — order.paid, in the fan-out's transaction — and again by the schedule's pass for an order the
// processor could not be asked for (an outage, a lost answer) or that went void: the cancel is keyed by the payment,
// so a retry after a crash is the processor's first answer again, never a second cancel; a cancel refused for good is
// not asked again. Money that won the race (the intent succeeded before its cancel) is given back (duplicate.ts).
import type { Db, Queryable } from "../../db/client.js";
import type { OutboxSubscriber } from "../../db/outbox.js";
import { processorErrorOf, processorFor, PAYMENT_CANCELED_CODE, type PaymentProcessor } from "../../payments/processor.js";
import type { ScheduledPass } from "../../tasks/claim.js";
import { orgNow } from "../clock.js";
import { lockOrderRow } from "../orders/service.js";
import * as payments from "../payments/service.js";
import { giveBackDuplicate } from "./duplicate.js";

/** What the payment of a canceled transfer says (its decline message: the seller's payments list shows it). */
const TRANSFER_CANCELED_MESSAGE = "The bank transfer was canceled: the order was paid another way.";
/** What the payment of a transfer says whose cancel the processor refused for good (its code follows). */
const CANCEL_REFUSED_MESSAGE = "Stripe refused to cancel the bank transfer of this order, paid another way: money the customer still sends is refunded";

/**
 * What a cancel did: `canceled` (the payment recorded failed), `given_back` (the money came first: refunded),
 * `refused` (the processor will not cancel it: noted, not asked again), `unanswered` (the processor could not be
 * asked: left for the next pass), `none` (nothing open, or still owed).
 */
export type TransferCancel = "canceled" | "given_back" | "refused" | "unanswered" | "none";

/**
 * Cancels the open transfer of an order no longer owed, under the order's lock (the transfer's event waits for it).
 * A passing failure (an outage, a lost answer) is asked again by the next pass, under the same key; a refusal that
 * will not go away (a 400 or 404 with its code: an intent the account does not hold, a request it does not take) is
 * not: the intent as the processor holds it decides, and an intent still open is noted and left pending, so that
 * money that arrives for it is given back (late.ts).
 */
export async function cancelOpenTransfer(tx: Queryable, router: PaymentProcessor, organizationId: string, orderId: string): Promise<TransferCancel> {
  const order = await lockOrderRow(tx, organizationId, orderId);
  if (!order || order.status === "pending") return "none";
  const open = await payments.pendingTransferOfOrder(tx, organizationId, orderId);
  if (!open?.processorPaymentId || open.declineReason === payments.CANCEL_REFUSED_CODE) return "none";
  const intentId = open.processorPaymentId;
  const processor = await processorFor(router, tx, organizationId);
  // another processor than the one that opened it (the seller disconnected Stripe) holds no such intent
  if (processor.id !== open.processor) return "unanswered";
  let result = await processor.cancelBankTransfer({ intentId, idempotencyKey: `till-payment-${open.id}-cancel` });
  const refused = processorErrorOf(result);
  if (refused && (refused.transient || refused.answerLost)) return "unanswered";
  // refused for good: asking again would be refused again; the intent is read as it is (a passing failure to read it
  // is thrown: the next pass asks again)
  if (refused) result = await processor.paymentOutcome(intentId);
  const now = await orgNow(tx, organizationId);
  // the money came first: given back now, whether its event came already or never comes
  if (result.ok) return (await giveBackDuplicate(tx, router, organizationId, orderId, intentId, now)) ?? "none";
  if (!result.next && !processorErrorOf(result)) {
    const failed = refused ? result : { ok: false as const, code: PAYMENT_CANCELED_CODE, message: TRANSFER_CANCELED_MESSAGE };
    await payments.settlePendingCharge(tx, organizationId, orderId, intentId, failed, now);
    return "canceled";
  }
  // still awaiting after a cancel it took is not an answer the processor gives: asked again by the next pass
  if (!refused) return "unanswered";
  await payments.noteCancelRefused(tx, organizationId, intentId, `${CANCEL_REFUSED_MESSAGE} (${refused.code}).`, now);
  return "refused";
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
