// A checkout the page finds `confirmed` when it loads (reloaded, or opened again, before the payment finished) is
// not done: only a `succeeded` one shows the success view. When the payment still requires the customer (Stripe's
// 3-D Secure: `intent_status` "requires_action"), the challenge runs again with Stripe.js's handleNextAction and the
// intent's client secret the checkout carries; otherwise (a bank debit processing, a confirm still in flight) the
// page waits. Either way it then waits for the checkout's outcome: succeeded, open again (a failed challenge: the
// form, with Stripe's message), failed (the bank refused a debit: the form, to pay with another method), expired —
// or, after a while, still confirmed (the page keeps saying a debit is processing, or that it confirms the payment).
import { useEffect, useRef } from "react";
import { waitForStatus, type Checkout, type ConfirmedCheckout } from "../checkout-api.js";
import type { FormAction } from "./form.js";
import { paymentIssueKey, stripeKeyOf } from "./model.js";
import type { Phase } from "./pay.js";
import type { CheckoutData } from "./useCheckout.js";
import { t } from "../i18n/intl.js";

export interface Resumed {
  /** The checkout once it left `confirmed`; null when it had not yet. */
  checkout: Checkout | null;
  /** Stripe's message when the challenge failed. */
  problem: string | null;
}

/** The intent's client secret when the payment waits for the customer's authentication (and Stripe.js can run it). */
export function pendingAction(checkout: Checkout): { publishableKey: string; clientSecret: string } | null {
  const meta = checkout.payment_processor_metadata ?? {};
  const publishableKey = stripeKeyOf(checkout);
  if (checkout.status !== "confirmed" || !publishableKey || meta.intent_status !== "requires_action" || !meta.intent_client_secret) return null;
  return { publishableKey, clientSecret: meta.intent_client_secret };
}

/** A bank debit the processor still collects (Stripe's `processing`): the checkout waits for the bank's answer. */
export const isProcessing = (checkout: Checkout): boolean => checkout.status === "confirmed" && checkout.payment_processor_metadata?.intent_status === "processing";

/** How long a payment the processor still collects is waited for before the page just says it is being confirmed. */
const WAIT_MS = 60_000;

export async function resumeConfirmed(secret: string, checkout: Checkout): Promise<Resumed> {
  const action = pendingAction(checkout);
  let problem: string | null = null;
  if (action) {
    // the same lazy chunk as the Payment Element (Stripe.js loaded once, with the checkout's publishable key)
    const { resumeNextAction } = await import("./StripePayment.js");
    problem = await resumeNextAction(action.publishableKey, action.clientSecret);
  }
  const settled = await waitForStatus(secret, ["succeeded", "open", "failed", "expired"], WAIT_MS);
  return { checkout: settled, problem };
}

export interface ResumeContext {
  phase: Phase;
  checkout: Checkout | null;
  secret: string;
  data: CheckoutData;
  dispatch: (a: FormAction) => void;
  setPhase: (p: Phase) => void;
  setMessage: (m: string | null) => void;
  onDone: (c: ConfirmedCheckout) => void;
}

/** In the `waiting` phase: the challenge again (or the wait), then the success view or the form with the problem. */
export function useResume({ phase, checkout, secret, data, dispatch, setPhase, setMessage, onDone }: ResumeContext): void {
  const resuming = useRef(false);
  useEffect(() => {
    if (phase !== "waiting" || !checkout || resuming.current) return;
    resuming.current = true;
    void resumeConfirmed(secret, checkout).then(({ checkout: settled, problem }) => {
      // still confirmed after the wait (a debit clearing): the page keeps saying so
      if (!settled) return;
      resuming.current = false;
      data.setCheckout(settled);
      if (settled.status === "succeeded") return onDone(settled);
      if (problem) dispatch({ type: "issues", issues: { [paymentIssueKey(settled)]: problem }, focus: true });
      else if (settled.status === "failed") setMessage(t("pay.debitFailed"));
      else if (settled.status !== "expired") setMessage(t("pay.notCompleted"));
      setPhase("form");
    });
  }, [phase, checkout, secret, data, dispatch, setPhase, setMessage, onDone]);
}
