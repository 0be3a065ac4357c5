// The stand-in's microdeposit verification (never shipped), from Stripe's API reference
// (POST /v1/setup_intents/{id}/verify_microdeposits, and the PaymentIntent's alike) and its ACH testing docs: an
// intent confirmed with a US account entered by hand `requires_action` with next_action `verify_with_microdeposits`
// (the deposits' expected arrival, Stripe's hosted verification page, the type of deposit); the customer sends the
// two amounts (32 and 45 cents) or the descriptor code (SM11AA) — with the secret key, or Stripe.js's publishable
// key and the intent's client secret. A match confirms the intent as its account now allows (a setup succeeds, a
// debit goes processing); a mismatch is Stripe's 400 naming the attempts left, and the tenth failed attempt fails
// the intent (requires_payment_method, setup_failed / payment_failed).
import { randomBytes } from "node:crypto";
import { StripeFailure, type Params, type PeerRoute } from "./stripe-peer.js";
import { MICRODEPOSITS } from "./stripe-peer-instruments.js";
import type { Ctx, Intent } from "./stripe-peer-payments.js";
import type { Machine } from "./stripe-peer-intents.js";

const DAY = 24 * 3600;

/** The next action of an intent whose account is verified by microdeposits (Stripe's shape; they land in two days). */
export function microdepositAction() {
  return {
    type: "verify_with_microdeposits",
    verify_with_microdeposits: {
      arrival_date: Math.floor(Date.now() / 1000) + 2 * DAY,
      hosted_verification_url: `https://payments.stripe.com/microdeposit/sacs_test_${randomBytes(16).toString("hex")}`,
      microdeposit_type: "amounts",
    },
  };
}

const refusal = (code: string, message: string, intent?: { key: string; object: unknown }) =>
  new StripeFailure(400, { type: "invalid_request_error", code, message, ...(intent ? { [intent.key]: intent.object } : {}) });

/** Whether the customer's values are the deposits' (Stripe refuses a malformed request before counting an attempt). */
function matches(p: Params): boolean {
  const amounts = p.amounts;
  const code = typeof p.descriptor_code === "string" ? p.descriptor_code : undefined;
  if (amounts !== undefined && code !== undefined) throw refusal("parameter_invalid", "You may only specify one of these parameters: amounts, descriptor_code.");
  if (code !== undefined) return code.trim().toUpperCase() === MICRODEPOSITS.descriptorCode;
  if (amounts === undefined) throw new StripeFailure(400, {
    type: "invalid_request_error", code: "parameter_missing", param: "amounts",
    message: "You must provide either amounts or descriptor_code.",
  });
  const values = Array.isArray(amounts) ? amounts.map((a) => (typeof a === "string" && /^\d+$/.test(a) ? Number(a) : NaN)) : [];
  if (values.length !== 2 || values.some((v) => !(v > 0))) {
    throw refusal("payment_method_microdeposit_verification_amounts_invalid", "Please provide two amounts, in cents, of the microdeposits sent to the bank account.");
  }
  return [...values].sort((a, b) => a - b).join() === [...MICRODEPOSITS.amounts].sort((a, b) => a - b).join();
}

export function registerMicrodeposits({ o, params, own, idOf }: Ctx, { visible, confirm, emitIntent }: Machine, route: PeerRoute): void {
  const failed = new Map<string, number>();
  for (const [object, path] of [["payment_intent", "/v1/payment_intents"], ["setup_intent", "/v1/setup_intents"]] as const) {
    const name = object === "payment_intent" ? "PaymentIntent" : "SetupIntent";
    route(
      "POST",
      `${path}/:id/verify_microdeposits`,
      `${object}_write`,
      (auth, req) => {
        const p = params(req);
        const intent: Intent = own(o.intents, auth, idOf(req), object);
        if (auth.key.secret.startsWith("pk_") && p.client_secret !== intent.client_secret) throw new StripeFailure(404, {
          type: "invalid_request_error", code: "resource_missing", param: "id",
          message: `No such ${object}: '${intent.id}'`,
        });
        const next = intent.next_action as { type?: string } | null | undefined;
        if (intent.status !== "requires_action" || next?.type !== "verify_with_microdeposits") {
          throw refusal(`${object}_unexpected_state`, `This ${name} does not need to be verified with microdeposits: its status is ${intent.status}.`);
        }
        const pm = o.paymentMethods.get(intent.payment_method ?? "");
        if (!pm) throw refusal(`${object}_unexpected_state`, `This ${name} has no payment method.`);
        if (matches(p)) {
          pm.unverified = false;
          failed.delete(intent.id);
          confirm(auth, intent, false);
          return visible(intent, p);
        }
        const attempts = (failed.get(intent.id) ?? 0) + 1;
        failed.set(intent.id, attempts);
        const byCode = p.descriptor_code !== undefined;
        if (attempts >= MICRODEPOSITS.attempts) {
          const error = {
            type: "invalid_request_error", code: "payment_method_microdeposit_verification_attempts_exceeded",
            message: "You have exceeded the number of allowed verification attempts.",
          };
          intent.status = "requires_payment_method";
          intent.next_action = null;
          intent[object === "payment_intent" ? "last_payment_error" : "last_setup_error"] = error;
          emitIntent(auth, intent, object === "payment_intent" ? "payment_failed" : "setup_failed");
          throw refusal(error.code, error.message, { key: object, object: visible(intent, {}) });
        }
        const left = MICRODEPOSITS.attempts - attempts;
        throw refusal(
          byCode ? "payment_method_microdeposit_verification_descriptor_code_mismatch" : "payment_method_microdeposit_verification_amounts_mismatch",
          `${byCode ? "The verification code provided does not match the code sent to the bank account" : "The amounts provided do not match the amounts that were sent to the bank account"}. ` +
            `You have ${left} verification attempt${left === 1 ? "" : "s"} remaining.`,
          { key: object, object: visible(intent, {}) },
        );
      },
      { publishable: true },
    );
  }
}
