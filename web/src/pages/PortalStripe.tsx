// Stripe in the customer portal, for a seller whose organization is connected to Stripe: Stripe.js
// loaded with the seller's publishable key (only then: a seller on the test processor loads nothing from Stripe),
// the Payment Element in deferred 'setup' mode turning the card typed into it into a confirmation token, and
// Stripe.js's handleNextAction for a card whose bank asks the customer to authenticate (3-D Secure): a card
// being saved (a SetupIntent) or a past-due order paid now (a PaymentIntent). The server creates and confirms
// the intents; the page never sees a card number.
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import type { Stripe } from "@stripe/stripe-js";
// the "pure" entry: Stripe.js is fetched when loadStripe is called, not as soon as the module is imported
import { loadStripe } from "@stripe/stripe-js/dist/pure.mjs";
import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { stripeMethodTypes, type StripeMethodType } from "../../../shared/stripe.js";
import { t } from "../i18n/intl.js";
import { portalApi, type PortalProcessor } from "../portal-api.js";

const stripes = new Map<string, Promise<Stripe | null>>();
/** Stripe.js for a publishable key, loaded once. */
export function stripeFor(publishableKey: string): Promise<Stripe | null> {
  const found = stripes.get(publishableKey);
  if (found) return found;
  const loading: Promise<Stripe | null> = loadStripe(publishableKey);
  stripes.set(publishableKey, loading);
  return loading;
}

const processors = new Map<string, Promise<PortalProcessor>>();
/**
 * How this session's seller takes cards, asked once per session: Stripe (with its Stripe.js) or the test
 * processor's form. Null while it is being asked; the test form when the question fails (its own calls say why).
 */
export function usePortalProcessor(token: string): { processor: PortalProcessor; stripe: Promise<Stripe | null> | null } | null {
  const [state, setState] = useState<{ processor: PortalProcessor; stripe: Promise<Stripe | null> | null } | null>(null);
  useEffect(() => {
    let found = processors.get(token);
    if (!found) {
      found = portalApi.paymentProcessor(token).then((r): PortalProcessor => (r.ok ? r.data : { processor: "test", publishable_key: null }));
      processors.set(token, found);
    }
    let live = true;
    void found.then((processor) => {
      if (!live) return;
      const key = processor.processor === "stripe" ? processor.publishable_key : null;
      setState({ processor, stripe: key ? stripeFor(key) : null });
    });
    return () => {
      live = false;
    };
  }, [token]);
  return state;
}

/**
 * Runs the next action Stripe asks of the customer (3-D Secure) for an intent's client secret. Answers the
 * intent's id and status once the customer is done, or Stripe's message when they could not authenticate.
 */
export async function authenticateIntent(stripe: Promise<Stripe | null>, clientSecret: string): Promise<{ ok: true; id: string; status: string } | { ok: false; message: string }> {
  const s = await stripe;
  if (!s) return { ok: false, message: t("stripe.notLoaded") };
  const result = await s.handleNextAction({ clientSecret });
  if (result.error) return { ok: false, message: result.error.message ?? t("stripe.bankFailed") };
  const intent = result.paymentIntent ?? result.setupIntent;
  if (!intent) return { ok: false, message: t("stripe.bankFailed") };
  if (intent.status === "requires_payment_method") {
    const error = "last_payment_error" in intent ? intent.last_payment_error : intent.last_setup_error;
    return { ok: false, message: error?.message ?? t("stripe.bankFailed") };
  }
  return { ok: true, id: intent.id, status: intent.status };
}

/**
 * The microdeposits' amounts (in cents) or descriptor code, sent to Stripe through Stripe.js for a setup waiting for
 * them. Answers the SetupIntent's id once verified, or Stripe's message (a mismatch says how many attempts are left).
 */
export async function verifyMicrodeposits(
  stripe: Promise<Stripe | null>,
  clientSecret: string,
  data: { amounts: [number, number] } | { descriptor_code: string },
): Promise<{ ok: true; id: string } | { ok: false; message: string }> {
  const s = await stripe;
  if (!s) return { ok: false, message: t("stripe.notLoaded") };
  const result = await s.verifyMicrodepositsForSetup(clientSecret, data);
  if (result.error) return { ok: false, message: result.error.message ?? t("bank.notVerified") };
  if (result.setupIntent.status !== "succeeded") return { ok: false, message: result.setupIntent.last_setup_error?.message ?? t("bank.notVerified") };
  return { ok: true, id: result.setupIntent.id };
}

export interface StripeCardFormProps {
  stripe: Promise<Stripe | null>;
  /** The form's accessible name ("Add a card", "Pay INV-…"). */
  label: string;
  submitLabel: string;
  /** The currency of what the card pays (an order's), else the Payment Element's default. */
  currency?: string;
  busy: boolean;
  /** The card's confirmation token: the caller saves or pays with it. */
  onToken: (confirmationTokenId: string) => Promise<void>;
  /** Stripe's message about what was typed (an incomplete or refused card). */
  onInvalid: (message: string) => void;
  /** Stripe.js is loaded and the Payment Element ready. */
  children?: ReactNode;
}

/**
 * What the portal's form offers: a method saved here is set up by the server as a dollar one (the portal's setup has
 * no currency of its own: server/billing/payments/methods.ts), so the element offers what that setup allows
 * (shared/stripe.ts: never a method that redirects) — and, paying an order, only those of them its currency takes.
 */
export function portalMethodTypes(currency: string | undefined): StripeMethodType[] {
  const saved = stripeMethodTypes("usd");
  return currency ? stripeMethodTypes(currency).filter((type) => saved.includes(type)) : saved;
}

/** A card typed into Stripe's Payment Element (deferred 'setup' mode), handed over as a confirmation token. */
export function StripeCardForm(props: StripeCardFormProps) {
  const currency = props.currency?.toLowerCase();
  const allowedPaymentMethodTypes = portalMethodTypes(currency);
  return (
    <Elements stripe={props.stripe} options={{ mode: "setup", ...(currency ? { currency } : {}), allowedPaymentMethodTypes }}>
      <CardFormInner {...props} />
    </Elements>
  );
}

function CardFormInner({ label, submitLabel, busy, onToken, onInvalid, children }: StripeCardFormProps) {
  const stripe = useStripe();
  const elements = useElements();
  const [ready, setReady] = useState(false);
  const [working, setWorking] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!stripe || !elements) return;
    setWorking(true);
    try {
      const submitted = await elements.submit();
      if (submitted.error) return onInvalid(submitted.error.message ?? t("stripe.checkCard"));
      const made = await stripe.createConfirmationToken({ elements });
      if (made.error) return onInvalid(made.error.message ?? t("stripe.cardUnusable"));
      await onToken(made.confirmationToken.id);
      elements.getElement("payment")?.clear();
    } finally {
      setWorking(false);
    }
  }

  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label={label} noValidate>
      <PaymentElement onReady={() => setReady(true)} options={{ layout: "tabs" }} />
      <button type="submit" disabled={busy || working || !ready}>
        {submitLabel}
      </button>
      {children}
    </form>
  );
}
