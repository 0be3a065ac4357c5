// Stripe's disputes (chargebacks) as till's processor-neutral ProcessorDispute, and conceding one: Stripe's dispute
// statuses in Polar's words, its withdrawal and fee read from its balance transactions.
import type { DisputeClose, DisputeStatus, ProcessorDispute } from "../accounts.js";
import { Stripe } from "./client.js";

const idOf = (ref: string | { id: string } | null | undefined): string | null => (ref == null ? null : typeof ref === "string" ? ref : ref.id);

/** Stripe's dispute status in Polar's words (as Polar's own DisputeStatus.from_stripe maps it). */
export function disputeStatusOf(status: string): DisputeStatus {
  switch (status) {
    case "lost":
      return "lost";
    case "won":
      return "won";
    case "under_review":
    case "warning_under_review":
      return "under_review";
    case "warning_closed":
    case "prevented":
      return "prevented";
    default:
      return "needs_response";
  }
}

export function disputeOf(d: Stripe.Dispute): ProcessorDispute {
  const withdrawal = (d.balance_transactions ?? []).find((bt) => bt.amount < 0) ?? d.balance_transactions?.[0];
  return {
    processor: "stripe",
    processorDisputeId: d.id,
    chargeId: idOf(d.charge) ?? "",
    paymentIntentId: idOf(d.payment_intent),
    status: disputeStatusOf(d.status),
    grossAmount: d.amount,
    currency: d.currency,
    reason: d.reason ?? null,
    evidenceDueBy: d.evidence_details?.due_by ? new Date(d.evidence_details.due_by * 1000) : null,
    balanceTransactionId: withdrawal?.id ?? null,
    fee: withdrawal?.fee ?? 0,
  };
}

/** The dispute as Stripe holds it now. */
export async function currentDispute(stripe: Stripe, id: string): Promise<ProcessorDispute> {
  return disputeOf(await stripe.disputes.retrieve(id));
}

/** Concedes the dispute in Stripe (it is lost); a refusal of Stripe's is said as Stripe says it. */
export async function closeDispute(stripe: Stripe, id: string): Promise<DisputeClose> {
  try {
    return { ok: true, dispute: disputeOf(await stripe.disputes.close(id)) };
  } catch (err) {
    if (err instanceof Stripe.errors.StripeError) return { ok: false, refused: true, detail: `Stripe refused to close the dispute: ${err.message}` };
    return { ok: false, refused: false, detail: "Stripe could not be reached." };
  }
}
