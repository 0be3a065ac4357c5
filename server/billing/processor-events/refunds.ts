// Refunds at the processor and how they end. A refund made there (its dashboard, or its API by another program)
// becomes a refund of the order the charge paid, once per processor refund id. A refund till made (or recorded)
// that the processor left pending moves to succeeded, and one the processor fails or cancels — even after
// answering it succeeded — is undone (billing/refunds settleProcessorRefund). Each event's refunds are read as they
// are now (a `created` of a refund that has succeeded since is recorded; a pending one waits for the event that
// ends it), so events late, twice or out of order end in the same state.
import type { ProcessorRefund } from "../../payments/accounts.js";
import { findPaymentByProcessorIds } from "../payments/service.js";
import { hasProcessorRefund, recordProcessorRefund, settleProcessorRefund } from "../refunds/service.js";
import { ProcessorEventNotReady, type ProcessorEventContext, type ProcessorEventHandler, type ProcessorEventOutcome } from "./registry.js";

async function record(ctx: ProcessorEventContext, refund: ProcessorRefund): Promise<boolean> {
  const payment = await findPaymentByProcessorIds(ctx.db, ctx.organizationId, refund.paymentIds);
  // a charge till did not make (another program on the same account), or a payment without an order; or one that did
  // not pay its order (a bank transfer that arrived after the order was paid, given back: dunning/transfer-cancel.ts)
  if (!payment?.orderId || payment.status !== "succeeded") return false;
  const recorded = await recordProcessorRefund(ctx.db, ctx.organizationId, {
    orderId: payment.orderId,
    processorRefundId: refund.id,
    grossAmount: refund.amount,
    reason: refund.reason,
  });
  return recorded !== null;
}

/**
 * How a refund ended, once it has: a refund till knows (made by till, or recorded from an earlier event) moves to
 * it (settleProcessorRefund: once, so a replayed or late event changes nothing); a succeeded one till does not
 * know was made at the processor and is recorded. A pending one waits for the event that ends it.
 */
async function follow(ctx: ProcessorEventContext, refund: ProcessorRefund): Promise<boolean> {
  const status = refund.status;
  if (status === "pending") return false;
  const settled = await settleProcessorRefund(ctx.db, ctx.organizationId, { processorRefundId: refund.id, status, failureReason: refund.failureReason });
  if (settled) return true;
  if (status === "succeeded") return record(ctx, refund);
  // till's own refund (its id in the metadata) whose transaction has not committed yet: this event is early
  if (refund.tillRefundId && !(await hasProcessorRefund(ctx.db, ctx.organizationId, refund.id))) throw new ProcessorEventNotReady(`refund ${refund.id} is not recorded yet`);
  return false;
}

export const refundEvents: ProcessorEventHandler<"refunds"> = {
  name: "refunds",
  async handle(ctx, refunds): Promise<ProcessorEventOutcome> {
    let handled = false;
    for (const refund of refunds) {
      if (await follow(ctx, refund)) handled = true;
    }
    return handled ? "handled" : "ignored";
  },
};
