// How the customer pays when the organization's Stripe account takes the payment: Stripe.js (loaded with
// @stripe/stripe-js from js.stripe.com, the checkout's publishable key) and its Payment Element in deferred-intent
// mode — the checkout's amount and currency, `setupFutureUsage: off_session` for a subscription (its renewals are
// charged off-session), mode "setup" when nothing is due now (a trial, a $0 first period), and only the methods the
// server's confirm completes (`allowedPaymentMethodTypes`, shared/stripe.ts: no redirect method). Paying makes a
// ConfirmationToken (`stripe.createConfirmationToken`) that the page sends as the confirm's `confirmation_token_id`;
// a confirm answered `requires_action` runs `stripe.handleNextAction` (3-D Secure). Loaded with the page only
// when needed (a lazy chunk): a test-processor checkout never loads Stripe.js.
import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { loadStripe, type Stripe, type StripeElements, type StripeElementsOptions } from "@stripe/stripe-js";
import { useEffect, useMemo, useState } from "react";
import { stripeMethodTypes } from "../../../shared/stripe.js";
import type { Checkout } from "../checkout-api.js";
import { formatLocale, t } from "../i18n/intl.js";
import { fieldId } from "./model.js";
import type { Payer } from "./payer.js";

/** One Stripe.js instance per publishable key (loadStripe loads the script once). */
const instances = new Map<string, Promise<Stripe | null>>();
function stripeFor(publishableKey: string): Promise<Stripe | null> {
  let found = instances.get(publishableKey);
  if (!found) {
    found = loadStripe(publishableKey).catch(() => null);
    instances.set(publishableKey, found);
  }
  return found;
}

/** Nothing is charged now: the Payment Element saves the card (a SetupIntent on the server). */
export const savesOnly = (c: Pick<Checkout, "total_amount" | "active_trial_interval">) => c.total_amount === 0 || c.active_trial_interval !== null;

export function elementsOptions(c: Pick<Checkout, "total_amount" | "active_trial_interval" | "currency" | "product">, dark: boolean): StripeElementsOptions {
  const future = c.product?.is_recurring ? { setupFutureUsage: "off_session" as const } : {};
  const appearance = { theme: dark ? ("night" as const) : ("stripe" as const) };
  // the Payment Element speaks the page's language (Stripe has each of till's locales)
  const locale = formatLocale() as NonNullable<StripeElementsOptions["locale"]>;
  // without it the element offers every method the seller turned on in Stripe's dashboard, redirects included,
  // which the confirm's intent then refuses; the same list as the intent's allowed_payment_method_types
  const allowedPaymentMethodTypes = stripeMethodTypes(c.currency);
  return savesOnly(c)
    ? { mode: "setup", currency: c.currency, ...future, allowedPaymentMethodTypes, appearance, locale }
    : { mode: "payment", amount: c.total_amount, currency: c.currency, ...future, allowedPaymentMethodTypes, appearance, locale };
}

function stripePayer(stripe: Stripe, elements: StripeElements): Payer {
  return {
    async token(billing) {
      const submitted = await elements.submit();
      if (submitted.error) return { ok: false, issues: { payment: submitted.error.message ?? t("pay.checkDetails") } };
      const { error, confirmationToken } = await stripe.createConfirmationToken({
        elements,
        params: { payment_method_data: { billing_details: { name: billing.name, email: billing.email, ...(billing.address ? { address: billing.address } : {}) } } },
      });
      if (error || !confirmationToken) return { ok: false, issues: { payment: error?.message ?? t("pay.notChecked") } };
      return { ok: true, id: confirmationToken.id };
    },
    nextAction: (clientSecret) => runNextAction(stripe, clientSecret),
  };
}

async function runNextAction(stripe: Stripe, clientSecret: string): Promise<string | null> {
  const { error } = await stripe.handleNextAction({ clientSecret });
  return error ? (error.message ?? t("pay.notAuthenticated")) : null;
}

/**
 * The next action (3-D Secure) of a payment the page finds pending when it loads (reloaded during the challenge):
 * Stripe.js's handleNextAction with the intent's client secret; resolves with Stripe's message when it failed.
 */
export async function resumeNextAction(publishableKey: string, clientSecret: string): Promise<string | null> {
  const stripe = await stripeFor(publishableKey);
  if (!stripe) return "The payment form could not be loaded. Check your connection and reload the page.";
  return runNextAction(stripe, clientSecret);
}

/** Hands the page its payer once Stripe.js and the Elements group are ready. */
function PayerBridge({ onPayer }: { onPayer: (p: Payer | null) => void }) {
  const stripe = useStripe();
  const elements = useElements();
  useEffect(() => {
    onPayer(stripe && elements ? stripePayer(stripe, elements) : null);
    return () => onPayer(null);
  }, [stripe, elements, onPayer]);
  return null;
}

export function StripePayment({ checkout, publishableKey, issue, onPayer }: { checkout: Checkout; publishableKey: string; issue: string | undefined; onPayer: (p: Payer | null) => void }) {
  const stripe = useMemo(() => stripeFor(publishableKey), [publishableKey]);
  const [unavailable, setUnavailable] = useState(false);
  useEffect(() => {
    let live = true;
    void stripe.then((s) => live && setUnavailable(s === null));
    return () => {
      live = false;
    };
  }, [stripe]);
  const dark = document.documentElement.dataset.theme === "dark" || (!document.documentElement.dataset.theme && window.matchMedia?.("(prefers-color-scheme: dark)").matches);
  const { total_amount, active_trial_interval, currency, product } = checkout;
  const options = useMemo(() => elementsOptions({ total_amount, active_trial_interval, currency, product }, dark), [total_amount, active_trial_interval, currency, product, dark]);
  const id = fieldId("payment");
  return (
    <fieldset className="card stripe-payment" id={id} tabIndex={-1} aria-invalid={issue ? true : undefined} aria-describedby={issue ? `${id}-error` : undefined}>
      <legend>Card</legend>
      {unavailable ? (
        <p className="field-error">The payment form could not be loaded. Check your connection and reload the page.</p>
      ) : (
        <Elements stripe={stripe} options={options}>
          <PayerBridge onPayer={onPayer} />
          <PaymentElement />
        </Elements>
      )}
      {issue && (
        <p className="field-error" id={`${id}-error`}>
          {issue}
        </p>
      )}
    </fieldset>
  );
}
