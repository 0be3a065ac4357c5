// Stripe's events read as till's processor-neutral facts (accounts.ts): an event only says which object changed, so
// each is read again from Stripe as it is now (events may come late, twice or out of order) — the PaymentIntent or
// SetupIntent a payment event names, the refunds of a charge or the one refund, the dispute. What till does with
// them is billing's (billing/processor-events).
import type { Queryable } from "../../db/client.js";
import type { PaymentEvent, ProcessorEvent, ProcessorEventRef, ProcessorRefund } from "../accounts.js";
import { paymentIntentResult, setupIntentResult } from "./adapter.js";
import { withoutCallSite, type Stripe } from "./client.js";
import { stripeOf, type StripeContext } from "./connection.js";
import { currentDispute } from "./disputes.js";

/** The payment and setup events that end an intent till's request left unfinished. */
const PAYMENT_EVENT_TYPES: ReadonlySet<string> = new Set([
  "payment_intent.succeeded",
  "payment_intent.payment_failed",
  "payment_intent.canceled",
  "setup_intent.succeeded",
  "setup_intent.setup_failed",
]);
/** charge.refund.updated is the older name of refund.updated: an endpoint made by hand may take either. */
const REFUND_EVENT_TYPES: ReadonlySet<string> = new Set(["charge.refunded", "charge.refund.updated", "refund.created", "refund.updated", "refund.failed"]);
const DISPUTE_EVENT_TYPES: ReadonlySet<string> = new Set(["charge.dispute.created", "charge.dispute.updated", "charge.dispute.closed"]);

/** Refunds of one charge read per event at most (a charge has a handful). */
const MAX_REFUNDS_PER_CHARGE = 1000;

const idOf = (ref: string | { id: string } | null | undefined): string | null => (ref == null ? null : typeof ref === "string" ? ref : ref.id);

/** The kind of facts an event type carries; null: a type till does not follow. */
function kindOf(type: string): ProcessorEvent["kind"] | null {
  if (PAYMENT_EVENT_TYPES.has(type)) return "payment";
  if (REFUND_EVENT_TYPES.has(type)) return "refunds";
  if (DISPUTE_EVENT_TYPES.has(type)) return "dispute";
  return null;
}

/**
 * The intent as Stripe holds it now (with its payment method, for the card's brand and last four), as the seam says it.
 */
async function paymentEvent(connected: { stripe: Stripe; processor: PaymentEvent["processor"] }, type: string, id: string): Promise<PaymentEvent> {
  const { stripe, processor } = connected;
  if (type.startsWith("setup_intent.")) {
    const si = await withoutCallSite(() => stripe.setupIntents.retrieve(id, { expand: ["payment_method"] }));
    const method = typeof si.payment_method === "object" && si.payment_method ? si.payment_method.type : "card";
    return { processor, intent: { id: si.id, kind: "setup", amount: 0, currency: "usd", method }, metadata: si.metadata ?? {}, result: setupIntentResult(si) };
  }
  const pi = await withoutCallSite(() => stripe.paymentIntents.retrieve(id, { expand: ["payment_method"] }));
  const method = typeof pi.payment_method === "object" && pi.payment_method ? pi.payment_method.type : "card";
  return { processor, intent: { id: pi.id, kind: "payment", amount: pi.amount, currency: pi.currency, method }, metadata: pi.metadata ?? {}, result: paymentIntentResult(pi) };
}

function refundOf(refund: Stripe.Refund): ProcessorRefund {
  const status = refund.status === "succeeded" || refund.status === "failed" || refund.status === "canceled" ? refund.status : "pending";
  return {
    id: refund.id,
    paymentIds: [idOf(refund.charge), idOf(refund.payment_intent)].filter((v): v is string => v !== null),
    amount: refund.amount,
    reason: refund.reason ?? null,
    status,
    failureReason: refund.failure_reason ?? null,
    tillRefundId: refund.metadata?.refund_id || null,
  };
}

/** A charge's refunds (charge.refunded), else the one refund the event names. */
async function currentRefunds(stripe: Stripe, type: string, id: string): Promise<ProcessorRefund[]> {
  if (type === "charge.refunded") {
    const refunds = await withoutCallSite(() => stripe.refunds.list({ charge: id, limit: 100 })).autoPagingToArray({ limit: MAX_REFUNDS_PER_CHARGE });
    return refunds.map(refundOf);
  }
  return [refundOf(await withoutCallSite(() => stripe.refunds.retrieve(id)))];
}

/** A recorded event of the organization's account, ready to be read (ProcessorAccounts.openEvent). */
export async function openEvent(ctx: StripeContext, db: Queryable, organizationId: string, event: ProcessorEventRef): Promise<ProcessorEvent | { ignored: string | null }> {
  const kind = kindOf(event.type);
  if (!kind) return { ignored: null };
  const connected = await stripeOf(db, ctx, organizationId);
  if (!connected) return { ignored: "Stripe is no longer connected to this organization." };
  const id = event.objectId;
  if (!id) return { ignored: null };
  if (kind === "payment") return { kind, read: () => paymentEvent(connected, event.type, id) };
  if (kind === "refunds") return { kind, read: () => currentRefunds(connected.stripe, event.type, id) };
  return { kind, read: () => currentDispute(connected.stripe, id) };
}
