// Paying: the form checked, the payment details tokenized by the processor (payer.ts), the confirm sent with the
// total the page shows, and what follows — a changed total shown again (409, nothing charged), a decline's
// message by the payment form, 3-D Secure run by Stripe.js when the confirm answers `requires_action` (its
// failure shown there too, once the checkout is open again), then the wait for the checkout's outcome and the
// success view (or the seller's success URL). A confirm that got no answer (the network dropped it) is sent
// again with the same token, so the server answers the first confirm's outcome and nothing is charged twice.
import { useRef, type FormEvent } from "react";
import { checkoutApi, waitForOutcome, waitForStatus, type Checkout, type CheckoutError, type ConfirmedCheckout } from "../checkout-api.js";
import { locale, t } from "../i18n/intl.js";
import type { FormAction, FormModel } from "./form.js";
import { confirmBody, formChanges, formIssues, paymentIssueKey, stripeKeyOf } from "./model.js";
import { billingOf, testPayer, type Payer } from "./payer.js";
import type { CheckoutData } from "./useCheckout.js";

/** `waiting`: the page was loaded while the payment was not finished (resume.ts). */
export type Phase = "form" | "paying" | "waiting" | "success";

export interface PayContext {
  secret: string;
  checkout: Checkout | null;
  form: FormModel;
  phase: Phase;
  data: CheckoutData;
  dispatch: (a: FormAction) => void;
  setPhase: (p: Phase) => void;
  setMessage: (m: string | null) => void;
  showError: (err: CheckoutError | null, focus?: boolean) => void;
  /** The confirm's answer (the portal token and receipt address of the success view; the embed's `confirmed`). */
  onConfirmed: (c: ConfirmedCheckout) => void;
  /** The checkout succeeded (or the wait for it ended): the success view, or the seller's success URL. */
  onDone: (c: ConfirmedCheckout) => void;
  /** Stripe's payer, once the Payment Element is ready (null for the test processor or while loading). */
  stripe: Payer | null;
}

/** The form's submit handler. */
export function usePay(ctx: PayContext): (e: FormEvent) => Promise<void> {
  /** The token of a confirm that got no answer: sent again as is. */
  const unanswered = useRef<string | null>(null);

  return async (e: FormEvent) => {
    e.preventDefault();
    const { checkout, form, dispatch, data, setPhase } = ctx;
    if (!checkout || ctx.phase !== "form") return;
    ctx.setMessage(null);
    const issues = formIssues(checkout, form.values);
    if (Object.keys(issues).length > 0) {
      dispatch({ type: "issues", issues, focus: true });
      return;
    }
    dispatch({ type: "issues", issues: {}, focus: false });
    data.cancelPending();
    const paymentKey = paymentIssueKey(checkout);
    const payer = stripeKeyOf(checkout) ? ctx.stripe : testPayer(ctx.secret, form.values.card);
    const fail = (issuesShown: Record<string, string>) => {
      dispatch({ type: "issues", issues: issuesShown, focus: true });
      setPhase("form");
    };
    if (checkout.is_payment_form_required && !payer) return fail({ [paymentKey]: t("pay.stillLoading") });
    setPhase("paying");
    const body = confirmBody(checkout, form.values);
    // the language the page spoke, recorded on a checkout that named none (the emails and invoice speak it)
    if (!checkout.locale) body.locale = locale();
    if (checkout.is_payment_form_required && payer) {
      let token = unanswered.current;
      if (!token) {
        const made = await payer.token(billingOf(checkout, form.values));
        if (!made.ok) return fail(made.issues);
        token = made.id;
      }
      body.confirmation_token_id = token;
    }
    const res = await checkoutApi.confirm(ctx.secret, body);
    unanswered.current = !res.ok && res.error.status === 0 && typeof body.confirmation_token_id === "string" ? body.confirmation_token_id : null;
    if (!res.ok && res.error.status === 409) {
      // the server would charge another total than the page shows (nothing was charged): show the new one
      const err = await data.update(formChanges(checkout, form.values));
      ctx.setMessage(res.error.message);
      ctx.showError(err);
      setPhase("form");
      return;
    }
    if (!res.ok) {
      // a declined card's message goes by the payment form; a 422's by each field
      if (res.error.status === 400 && Object.keys(res.error.fields).length === 0) return fail({ [paymentKey]: res.error.message });
      ctx.showError(res.error, true);
      setPhase("form");
      return;
    }
    data.setCheckout(res.data);
    ctx.onConfirmed(res.data);
    const meta = res.data.payment_processor_metadata ?? {};
    // a bank debit on its way (`processing`): the page says so and waits for how it ends (resume.ts)
    if (res.data.status === "confirmed" && meta.intent_status === "processing") return setPhase("waiting");
    if (res.data.status === "confirmed" && meta.intent_status === "requires_action" && meta.intent_client_secret && payer) {
      const problem = await payer.nextAction(meta.intent_client_secret);
      if (problem) {
        // Stripe tells till the intent failed: the checkout opens again for another card
        const reopened = await waitForStatus(ctx.secret, ["open", "failed", "expired"]);
        if (reopened) data.setCheckout(reopened);
        return fail({ [paymentKey]: problem });
      }
    }
    await waitForOutcome(ctx.secret);
    ctx.onDone(res.data);
  };
}
