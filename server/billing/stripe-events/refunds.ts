// Refunds made in Stripe (its dashboard, or its API by another program): `charge.refunded` and `refund.*`
// become refunds of the order the charge paid, once per Stripe refund id. Each event reads the refunds as they
// are now (a `refund.created` of a refund that has succeeded since is recorded; a pending one waits for its
// `refund.updated`). A refund till made through Stripe is already recorded under its Stripe id: a no-op here.
import { withoutCallSite, type Stripe } from "../../payments/stripe-client.js";
import { findPaymentByProcessorIds } from "../payments/service.js";
import { recordProcessorRefund } from "../refunds/service.js";
import type { StripeEventContext, StripeEventHandler, StripeEventOutcome } from "./registry.js";

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

export const refundEvents: StripeEventHandler = {
  name: "refunds",
  types: ["charge.refunded", "refund.created", "refund.updated"],
  async handle(ctx): Promise<StripeEventOutcome> {
    let handled = false;
    for (const refund of await currentRefunds(ctx)) {
      if (refund.status === "succeeded" && (await record(ctx, refund))) handled = true;
    }
    return handled ? "handled" : "ignored";
  },
};
