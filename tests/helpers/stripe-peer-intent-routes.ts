// The Stripe stand-in's PaymentIntent and SetupIntent routes (create, confirm, retrieve, cancel) and what Stripe.js
// does in its 3-D Secure frame; the intents' state machine is stripe-peer-intents.ts's.
import { formatMoney } from "../../shared/money.js";
import { MAXIMUM_CHARGE_AMOUNT, minimumChargeAmount } from "../../server/payments/minimum-charge.js";
import { StripeFailure, type PeerRoute } from "./stripe-peer.js";
import { str } from "./stripe-peer-instruments.js";
import type { Ctx } from "./stripe-peer-payments.js";
import type { Machine } from "./stripe-peer-intents.js";
import { noSuch } from "./stripe-peer-util.js";

/**
 * Stripe's minimum and maximum charge amounts (its published table,
 * https://docs.stripe.com/currencies#minimum-and-maximum-charge-amounts, as till's server module holds it): a
 * PaymentIntent outside them is refused with Stripe's 400.
 */
export function chargeableAmount(amount: number, currency: string): void {
  const min = minimumChargeAmount(currency);
  if (amount > 0 && amount < min) {
    throw new StripeFailure(400, {
      type: "invalid_request_error", code: "amount_too_small", param: "amount",
      message: `Amount must be at least ${formatMoney(min, currency, "en")} ${currency.toLowerCase()}`,
    });
  }
  if (amount > MAXIMUM_CHARGE_AMOUNT) {
    throw new StripeFailure(400, {
      type: "invalid_request_error", code: "amount_too_large", param: "amount",
      message: `Amount must be no more than ${formatMoney(MAXIMUM_CHARGE_AMOUNT, currency, "en")}`,
    });
  }
}

/** Stripe's refusal of an intent in a state the request cannot move it from (a succeeded or canceled one). */
const unexpectedState = (what: string, verb: string, status: string) => new StripeFailure(400, {
  type: "invalid_request_error", code: `${what}_unexpected_state`,
  message: `You cannot ${verb} this ${what === "payment_intent" ? "PaymentIntent" : "SetupIntent"} because it has a status of ${status}.`,
});

export function intentRoutes({ o, params, own, idOf, methodOfToken, paymentMethodParam }: Ctx, { visible, confirm, createIntent, emitIntent, transfers }: Machine, route: PeerRoute): void {
  for (const [object, path] of [["payment_intent", "/v1/payment_intents"], ["setup_intent", "/v1/setup_intents"]] as const) {
    const what = object === "payment_intent" ? "payment_intent" : "setup_intent";
    route("POST", path, `${what}_write`, (auth, req) => createIntent(auth, req, object));
    // Stripe.js retrieves with the publishable key and the client secret
    route(
      "GET",
      `${path}/:id`,
      `${what}_read`,
      (auth, req) => {
        const p = params(req);
        const intent = own(o.intents, auth, idOf(req), what);
        if (auth.key.secret.startsWith("pk_") && p.client_secret !== intent.client_secret) throw noSuch(what, intent.id);
        return visible(intent, p);
      },
      { publishable: true },
    );
    route(
      "POST",
      `${path}/:id/confirm`,
      `${what}_write`,
      (auth, req) => {
        const p = params(req);
        const intent = own(o.intents, auth, idOf(req), what);
        if (auth.key.secret.startsWith("pk_") && p.client_secret !== intent.client_secret) throw noSuch(what, intent.id);
        if (intent.status === "succeeded") throw new StripeFailure(400, {
          type: "invalid_request_error", code: `${what}_unexpected_state`,
          message: `You cannot confirm this ${object === "payment_intent" ? "PaymentIntent" : "SetupIntent"} because it has already succeeded.`,
        });
        if (intent.status === "canceled") throw unexpectedState(what, "confirm", "canceled");
        const tokenId = str(p.confirmation_token);
        if (tokenId) intent.payment_method = methodOfToken(auth, tokenId, intent).id;
        else if (str(p.payment_method)) intent.payment_method = paymentMethodParam(auth, String(p.payment_method)).id;
        confirm(auth, intent, p.off_session === "true");
        return visible(intent, p);
      },
      { publishable: true },
    );
    route("POST", `${path}/:id/cancel`, `${what}_write`, (auth, req) => {
      const p = params(req);
      const intent = own(o.intents, auth, idOf(req), what);
      // Stripe cancels an intent awaiting the customer or their money; a succeeded or canceled one stays as it is, and
      // so does a bank debit processing (SEPA, ACH: the bank has it; only "rare cases" of processing cancel)
      if (intent.status === "succeeded" || intent.status === "canceled" || intent.status === "processing") throw unexpectedState(what, "cancel", intent.status);
      intent.status = "canceled";
      Object.assign(intent, { canceled_at: Math.floor(Date.now() / 1000), cancellation_reason: str(p.cancellation_reason) ?? null });
      transfers.canceled(intent);
      emitIntent(auth, intent, "canceled");
      return visible(intent, p);
    });
  }
}

export function threeDSecureRoute({ peer, o, own }: Ctx, { visible, succeed, emitIntent }: Machine, route: PeerRoute): void {
  // the stand-in's 3-D Secure frame: the customer completes (or fails) the challenge of an intent requiring action
  route(
    "POST",
    "/v1/3ds2/authenticate",
    "payment_intent_write",
    (auth, req) => {
      const p = peer.allow(req, ["intent", "client_secret", "outcome"]);
      const intent = own(o.intents, auth, str(p.intent) ?? "", "intent");
      if (p.client_secret !== intent.client_secret || intent.status !== "requires_action") throw noSuch("intent", intent.id);
      const pm = o.paymentMethods.get(intent.payment_method ?? "");
      if (!pm) throw noSuch("PaymentMethod", String(intent.payment_method));
      if (p.outcome === "fail") {
        intent.status = "requires_payment_method";
        const message = "We are unable to authenticate your payment method. Please choose a different payment method and try again.";
        intent.last_payment_error = { type: "invalid_request_error", code: "payment_intent_authentication_failure", message };
        emitIntent(auth, intent, intent.object === "payment_intent" ? "payment_failed" : "setup_failed");
      } else succeed(auth, intent, pm);
      return visible(intent, {});
    },
    { publishable: true },
  );

}
