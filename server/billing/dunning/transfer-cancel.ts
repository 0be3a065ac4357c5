// A bank transfer left open by an order paid another way (a card on the pay page or in the portal, "mark paid", a
// dunning retry): its intent is canceled at the processor, so money the customer still sends stays in their cash
// balance there instead of paying the order twice (docs/decisions.md, "A bank transfer of an order paid another way").
// The outbox's order.paid records a job in the fan-out's transaction (server/tasks/processor-jobs.ts); the job — and
// the schedule's pass, for an order the processor could not be asked for (an outage, a lost answer) or that went void
// — asks the processor with no transaction open, then records the answer under the order's lock in a short one. The
// cancel is keyed by the payment, so a retry after a crash is the processor's first answer again, never a second
// cancel; a cancel refused for good is not asked again. Money that won the race (the intent succeeded before its
// cancel) is given back (duplicate.ts).
import type { Db, Queryable } from "../../db/client.js";
import type { OutboxSubscriber } from "../../db/outbox.js";
import { processorErrorOf, processorFor, PAYMENT_CANCELED_CODE, type PaymentProcessor, type PaymentResult } from "../../payments/processor.js";
import type { ScheduledPass } from "../../tasks/claim.js";
import { finishProcessorJob, recordProcessorJobs, type ProcessorJobEnv, type ProcessorJobRow } from "../../tasks/processor-jobs.js";
import { orgNow } from "../clock.js";
import { findOrder, lockOrderRow } from "../orders/service.js";
import * as payments from "../payments/service.js";
import { recordGivenBack, refundDuplicate } from "./duplicate.js";

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

/** The processor's answer to a cancel, asked with no transaction open. */
interface Asked {
  payment: payments.PaymentRow;
  result: PaymentResult;
  /** The processor refused the cancel for good (its code): `result` is then the intent as it holds it. */
  refusedCode: string | null;
}

/**
 * Cancels the open transfer of an order no longer owed: read, asked and recorded in three steps, so that no row
 * lock waits on the processor. A passing failure (an outage, a lost answer) is asked again by the next pass, under
 * the same key; a refusal that will not go away (a 400 or 404 with its code: an intent the account does not hold, a
 * request it does not take) is not: the intent as the processor holds it decides, and an intent still open is noted
 * and left pending, so that money that arrives for it is given back (late.ts).
 */
export async function cancelOpenTransfer(db: Db, router: PaymentProcessor, organizationId: string, orderId: string): Promise<TransferCancel> {
  const order = await findOrder(db, organizationId, orderId);
  if (!order || order.status === "pending") return "none";
  const open = await payments.pendingTransferOfOrder(db, organizationId, orderId);
  if (!open?.processorPaymentId || open.declineReason === payments.CANCEL_REFUSED_CODE) return "none";
  const processor = await processorFor(router, db, organizationId);
  // another processor than the one that opened it (the seller disconnected Stripe) holds no such intent
  if (processor.id !== open.processor) return "unanswered";
  const asked = await askCancel(processor, orderId, open);
  if (!asked) return "unanswered";
  // the answer recorded under the order's lock, as the transfer's own event is (late.ts): whichever comes second
  // finds the payment settled and changes nothing
  return db.transaction((tx) => recordCancel(tx, organizationId, orderId, asked));
}

/** Asks the processor to cancel the transfer (and, the money having come first, refunds it); null: no answer. */
async function askCancel(processor: PaymentProcessor, orderId: string, open: payments.PaymentRow): Promise<Asked | null> {
  const intentId = open.processorPaymentId ?? "";
  let result = await processor.cancelBankTransfer({ intentId, idempotencyKey: `till-payment-${open.id}-cancel` });
  const refused = processorErrorOf(result);
  if (refused && (refused.transient || refused.answerLost)) return null;
  // refused for good: asking again would be refused again; the intent is read as it is (a passing failure to read it
  // is thrown: the next pass asks again)
  if (refused) result = await processor.paymentOutcome(intentId);
  // the money came first: given back (the refund is keyed by the payment: a second ask refunds once)
  if (result.ok) await refundDuplicate(processor, orderId, open);
  return { payment: open, result, refusedCode: refused?.code ?? null };
}

async function recordCancel(tx: Queryable, organizationId: string, orderId: string, asked: Asked): Promise<TransferCancel> {
  const order = await lockOrderRow(tx, organizationId, orderId);
  const intentId = asked.payment.processorPaymentId ?? "";
  if (!order || !(await payments.pendingPaymentOf(tx, organizationId, orderId, intentId))) return "none";
  const { result, refusedCode } = asked;
  const now = await orgNow(tx, organizationId);
  if (result.ok) return (await recordGivenBack(tx, organizationId, orderId, asked.payment, now)) ?? "none";
  if (!result.next && !processorErrorOf(result)) {
    const failed = refusedCode ? result : { ok: false as const, code: PAYMENT_CANCELED_CODE, message: TRANSFER_CANCELED_MESSAGE };
    await payments.settlePendingCharge(tx, organizationId, orderId, intentId, failed, now);
    return "canceled";
  }
  // still awaiting after a cancel it took is not an answer the processor gives: asked again by the next pass
  if (!refusedCode) return "unanswered";
  await payments.noteCancelRefused(tx, organizationId, intentId, `${CANCEL_REFUSED_MESSAGE} (${refusedCode}).`, now);
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
 * organization) gets a job, recorded in the fan-out's transaction; the job asks the processor after its commit.
 */
export function transferCancelSubscriber(): OutboxSubscriber<OutboxRowView> {
  return {
    name: "bank-transfers",
    async receive(tx, rows) {
      let recorded = 0;
      for (const [org, ids] of paidOrders(rows)) {
        const awaiting = await payments.ordersAwaitingTransfer(tx, org, [...ids]);
        recorded += await recordProcessorJobs(tx, awaiting.map((orderId) => ({ organizationId: org, kind: "transfer_cancel" as const, subject: orderId, cause: orderId })));
      }
      return recorded;
    },
  };
}

/**
 * The job's side: the order's transfer canceled; the job ends whatever the answer (one the processor could not give
 * is the schedule's pass's to ask again, under the same key).
 */
export async function runTransferCancelJob(env: ProcessorJobEnv, job: ProcessorJobRow, token: string): Promise<void> {
  const outcome = await cancelOpenTransfer(env.db, env.processor, job.organizationId, job.subject);
  await finishProcessorJob(env.db, job.id, token, outcome);
}

export interface TransferCancelRun extends ScheduledPass {
  processor: PaymentProcessor;
}

/**
 * The schedule's pass: every order no longer owed whose transfer still awaits the money has it canceled, each on its
 * own (the cancel is keyed: two replicas, or the pass and a job, asking at once cancel once). One the processor
 * could not be asked for is left for the next pass. Returns how many were canceled.
 */
export async function runTransferCancels(run: TransferCancelRun): Promise<number> {
  const db: Db = run.db;
  const due = await payments.settledOrdersAwaitingTransfer(db, run.organizationId, run.batch ?? 100);
  let canceled = 0;
  for (const { organizationId, orderId } of due) {
    try {
      if ((await cancelOpenTransfer(db, run.processor, organizationId, orderId)) === "canceled") canceled += 1;
    } catch (err) {
      run.log?.error(err, `bank transfers: the transfer of order ${orderId} could not be canceled`);
    }
  }
  return canceled;
}
