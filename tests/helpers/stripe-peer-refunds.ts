// The Stripe stand-in's refunds: made through the API, final at once or later as Stripe's asynchronous refund
// test cards do (settleRefund), with Stripe's refund events.
import { StripeFailure, type PeerRoute } from "./stripe-peer.js";
import { str } from "./stripe-peer-instruments.js";
import type { Ctx, Obj, PaymentObjects } from "./stripe-peer-payments.js";
import { newId, noSuch, now } from "./stripe-peer-util.js";

export function refundRoutes({ peer, o, params, own, idOf }: Ctx, route: PeerRoute): PaymentObjects["settleRefund"] {
  // ---- refunds ---------------------------------------------------------------------------------------
  /** What a refund not final at once becomes later (its card's test number), by refund id. */
  const later = new Map<string, "succeeded" | "failed">();
  route("POST", "/v1/refunds", "refund_write", (auth, req) => {
    const p = params(req);
    const intent = [...o.intents.values()].find(
      (i) => i.account === auth.account.id && ((p.payment_intent !== undefined && i.id === p.payment_intent) || (p.charge !== undefined && i.latest_charge === p.charge)),
    );
    if (!intent || intent.object !== "payment_intent") throw noSuch(p.charge ? "charge" : "payment_intent", String(p.charge ?? p.payment_intent), p.charge ? "charge" : "payment_intent");
    if (intent.status !== "succeeded") throw new StripeFailure(400, {
      type: "invalid_request_error", code: "charge_not_refundable",
      message: "This PaymentIntent does not have a successful charge to refund.",
    });
    // Stripe's asynchronous refund test cards: 4000000000007726 starts pending (later succeeded), 4000000000005126
    // starts succeeded (later failed, expired_or_canceled_card); every other card's refund succeeds at once
    const behaviour = o.paymentMethods.get(intent.payment_method ?? "")?.behaviour.refund;
    const status = behaviour === "pending" ? "pending" : "succeeded";
    const refund: Obj = {
      id: newId("re"), object: "refund", amount: p.amount !== undefined ? Number(p.amount) : intent.amount,
      currency: intent.currency, payment_intent: intent.id, charge: intent.latest_charge, reason: str(p.reason) ?? null,
      status, failure_reason: null, metadata: p.metadata ?? {}, created: now(), account: auth.account.id,
      livemode: auth.livemode,
    };
    if (behaviour) later.set(refund.id, behaviour === "pending" ? "succeeded" : "failed");
    o.refunds.set(refund.id, refund);
    for (const refunded of o.hooks.refunded) refunded(auth, refund);
    peer.emit(auth, "refund.created", refund);
    return refund;
  });

  const settleRefund = (refundId: string, to?: "succeeded" | "failed" | "canceled"): Obj => {
    const refund = o.refunds.get(refundId);
    if (!refund) throw noSuch("refund", refundId);
    const status = to ?? later.get(refundId);
    if (!status) throw new StripeFailure(400, { type: "invalid_request_error", message: `Refund ${refundId} is final (status: ${String(refund.status)}).` });
    if (refund.status === "failed" || refund.status === "canceled") throw new StripeFailure(400, { type: "invalid_request_error", message: `Refund ${refundId} is already ${String(refund.status)}.` });
    later.delete(refundId);
    refund.status = status;
    if (status === "failed") refund.failure_reason = "expired_or_canceled_card";
    if (status === "canceled") refund.failure_reason = "merchant_request";
    const auth = peer.authOf(refund.account, refund.livemode);
    for (const updated of o.hooks.refundUpdated) updated(auth, refund);
    // what Stripe sends as a refund moves on: the charge's refund and the refund updated, and refund.failed
    peer.emit(auth, "charge.refund.updated", refund);
    peer.emit(auth, "refund.updated", refund);
    if (status === "failed") peer.emit(auth, "refund.failed", refund);
    return refund;
  };
  // the test's control over HTTP (any secret key of the account): the refund's later answer, or the status given
  route("POST", "/test-control/refunds/:id/settle", "refund_write", (auth, req) => {
    const p = peer.allow(req, ["status"]);
    const refund = own(o.refunds, auth, idOf(req), "refund");
    if (p.status !== undefined && p.status !== "succeeded" && p.status !== "failed" && p.status !== "canceled") {
      throw new StripeFailure(400, { type: "invalid_request_error", param: "status", message: "Invalid status: must be one of succeeded, failed, canceled" });
    }
    return settleRefund(refund.id, p.status);
  });
  return settleRefund;
}

/** A customer deleted in the dashboard, as Stripe still answers its retrieve (`deleted: true`); undefined otherwise. */
