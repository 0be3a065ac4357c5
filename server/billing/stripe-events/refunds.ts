// Refunds in Stripe and how they end. A refund made in Stripe (its dashboard, or its API by another program):
// `charge.refunded` and `refund.*` become refunds of the order the charge paid, once per Stripe refund id. A
// refund till made (or recorded) that Stripe left pending moves to succeeded, and one Stripe fails or cancels —
// even after answering it succeeded — is undone (billing/refunds settleProcessorRefund). Each event reads the
// refunds as they are now (a `refund.created` of a refund that has succeeded since is recorded; a pending one
// waits for its `refund.updated`), so events late, twice or out of order end in the same state.
import { withoutCallSite, type Stripe } from "../../payments/stripe-client.js";
import { findPaymentByProcessorIds } from "../payments/service.js";
import { hasProcessorRefund, recordProcessorRefund, settleProcessorRefund } from "../refunds/service.js";
import { StripeEventNotReady, type StripeEventContext, type StripeEventHandler, type StripeEventOutcome } from "./registry.js";

/** Refunds of one charge read per event at most (a charge has a handful). */
const MAX_REFUNDS_PER_CHARGE = 1000;

const idOf = (ref: string | { id: string } | null | undefined): string | null => (ref == null ? null : typeof ref === "string" ? ref : ref.id);

async function currentRefunds(ctx: StripeEventContext): Promise<Stripe.Refund[]> {
  const id = ctx.event.objectId;
  if (!id) return [];
  if (ctx.event.type === "charge.refunded") {
    return withoutCallSite(() => ctx.stripe.refunds.list({ charge: id, limit: 100 })).autoPagingToArray({ limit: MAX_REFUNDS_PER_CHARGE });
  }
  return [await withoutCallSite(() => ctx.stripe.refunds.retrieve(id))];
}

async function record(ctx: StripeEventContext, refund: Stripe.Refund): Promise<boolean> {
  const processorIds = [idOf(refund.charge), idOf(refund.payment_intent)].filter((v): v is string => v !== null);
  const payment = await findPaymentByProcessorIds(ctx.db, ctx.organizationId, processorIds);
  // a charge till did not make (another program on the same account), or a payment without an order
  if (!payment?.orderId) return false;
  const recorded = await recordProcessorRefund(ctx.db, ctx.organizationId, {
    orderId: payment.orderId,
    processorRefundId: refund.id,
    grossAmount: refund.amount,
    reason: refund.reason ?? null,
  });
  return recorded !== null;
}

/**
 * How a refund ended, once it has: a refund till knows (made by till, or recorded from an earlier event) moves to
 * it (settleProcessorRefund: once, so a replayed or late event changes nothing); a succeeded one till does not
 * know was made in Stripe and is recorded. `pending` and `requires_action` wait for the event that ends them.
 */
async function follow(ctx: StripeEventContext, refund: Stripe.Refund): Promise<boolean> {
  const status = refund.status;
  if (status !== "succeeded" && status !== "failed" && status !== "canceled") return false;
  const settled = await settleProcessorRefund(ctx.db, ctx.organizationId, { processorRefundId: refund.id, status, failureReason: refund.failure_reason ?? null });
  if (settled) return true;
  if (status === "succeeded") return record(ctx, refund);
  // till's own refund (its id in the metadata) whose transaction has not committed yet: this event is early
  const tillRefundId = refund.metadata?.refund_id;
  if (tillRefundId && !(await hasProcessorRefund(ctx.db, ctx.organizationId, refund.id))) throw new StripeEventNotReady(`refund ${refund.id} is not recorded yet`);
  return false;
}

export const refundEvents: StripeEventHandler = {
  name: "refunds",
  // charge.refund.updated is the older name of refund.updated: an endpoint made by hand may take either
  types: ["charge.refunded", "charge.refund.updated", "refund.created", "refund.updated", "refund.failed"],
  async handle(ctx): Promise<StripeEventOutcome> {
    let handled = false;
    for (const refund of await currentRefunds(ctx)) {
      if (await follow(ctx, refund)) handled = true;
    }
    return handled ? "handled" : "ignored";
  },
};
