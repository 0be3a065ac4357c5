// The hosted checkout at /checkout/{client_secret} (and its confirmation page, /checkout/{secret}/confirmation).
// This file holds the page's states — loading, unavailable, expired, the form, paying, succeeded — and composes
// the sections under web/src/checkout/: the frame (page-shell.tsx), the form (CheckoutForm.tsx: what the customer
// buys beside how they pay — Stripe's Payment Element or the test processor's card form), paying (pay.ts, payer.ts)
// and the success view. Embedded (embed=true&embed_origin=…, through /embed.js) it tells the seller's page
// `loaded`, `close`, `confirmed` and `success` — to the checkout's embed origin only. `?theme=light|dark` picks the colours.
import { lazy, Suspense, useCallback, useEffect, useMemo, useReducer, useRef, useState, type ReactNode } from "react";
import type { Checkout, CheckoutError, ConfirmedCheckout } from "../checkout-api.js";
import { CheckoutForm } from "../checkout/CheckoutForm.js";
import { emptyForm, formReducer } from "../checkout/form.js";
import { applyTheme, embedOf, routeOf, Shell } from "../checkout/page-shell.js";
import { usePay, type Phase } from "../checkout/pay.js";
import type { Payer } from "../checkout/payer.js";
import { useCheckout } from "../checkout/useCheckout.js";
import { Status } from "../ui.js";
import "./checkout.css";

const MESSAGE_TYPE = "POLAR_CHECKOUT";
/** Needed only after the payment: loaded then (with the portal's calls it reads the purchase with). */
const Success = lazy(() => import("../checkout/Success.js").then((m) => ({ default: m.Success })));

export function CheckoutPage() {
  const route = useMemo(() => routeOf(window.location.pathname), []);
  const embed = useMemo(() => embedOf(window.location.search), []);
  const [phase, setPhase] = useState<Phase>("form");
  const [form, dispatch] = useReducer(formReducer, undefined, emptyForm);
  /** A problem that belongs to no field (a network error, an expired checkout). */
  const [message, setMessage] = useState<string | null>(null);
  const [confirmed, setConfirmed] = useState<{ token: string | null; receiptEmail: string | null }>({ token: null, receiptEmail: null });
  const formRef = useRef<HTMLFormElement>(null);

  useEffect(() => applyTheme(window.location.search, embed.embedded), [embed.embedded]);

  /** Where messages go: the checkout's own embed origin when the seller set one, else the frame's parent's. */
  const post = useCallback(
    (event: string, current: Checkout | null, extra: Record<string, unknown> = {}) => {
      if (!embed.embedded) return;
      const target = current?.embed_origin ? new URL(current.embed_origin).origin : embed.queryOrigin;
      if (target) window.parent.postMessage({ ...extra, event, type: MESSAGE_TYPE }, target);
    },
    [embed],
  );

  const onLoaded = useCallback(
    (c: Checkout | null) => {
      if (c) {
        dispatch({ type: "loaded", checkout: c });
        if (c.status === "succeeded" || c.status === "confirmed") setPhase("success");
      }
      post("loaded", c);
    },
    [post],
  );
  const data = useCheckout(route.secret, onLoaded);
  const { checkout } = data;

  const close = useCallback(() => post("close", checkout), [post, checkout]);
  useEffect(() => {
    if (!embed.embedded) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && phase !== "paying") close();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [embed.embedded, phase, close]);

  // after a failed submit, the first field with a problem (in the page's order) gets the focus
  useEffect(() => {
    if (form.attempt === 0) return;
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [form.attempt]);

  /** A server answer's problems, on their fields (field-less ones in the banner). */
  const showError = useCallback((err: CheckoutError | null, focus = false) => {
    if (!err) return;
    const fields = { ...err.fields };
    if (Object.keys(fields).length === 0) setMessage(err.message);
    dispatch({ type: "issues", issues: fields, focus });
  }, []);

  const [stripePayer, setStripePayer] = useState<Payer | null>(null);
  const onConfirmed = useCallback(
    (c: ConfirmedCheckout) => {
      setConfirmed({ token: c.customer_session_token ?? null, receiptEmail: c.receipt_email ?? null });
      post("confirmed", c);
    },
    [post],
  );
  const onDone = useCallback(
    (c: ConfirmedCheckout) => {
      const successURL = c.success_url;
      const internal = successURL.startsWith(`${window.location.origin}/checkout/`);
      setPhase("success");
      post("success", c, { successURL, redirect: !internal });
      if (!embed.embedded && !internal) window.location.href = successURL;
    },
    [post, embed.embedded],
  );
  const onSubmit = usePay({ secret: route.secret, checkout, form, phase, data, dispatch, setPhase, setMessage, showError, onConfirmed, onDone, stripe: stripePayer });

  const shell = (title: string, children: ReactNode, wide = false) => (
    <Shell title={title} wide={wide} embedded={embed.embedded} onClose={close} closeDisabled={phase === "paying"}>
      {children}
    </Shell>
  );

  if (data.loadError) return shell("Checkout unavailable", <Status tone="error">{data.loadError}</Status>);
  if (!checkout) return shell("Checkout", <Status>Loading the checkout…</Status>);
  if (checkout.status === "expired" && phase === "form") {
    return shell("This checkout has expired", <p className="lead">Please go back to the store and start again.</p>);
  }
  if (phase === "success" || route.confirmation) {
    const done = checkout.status === "succeeded" || phase === "success";
    return shell(
      done ? "Thank you for your purchase" : "Your order is being processed",
      done ? (
        <>
          <Status tone="success">
            Your purchase of {checkout.product?.name ?? "the product"} from {checkout.organization.name} was successful.
          </Status>
          <Suspense fallback={null}>
            <Success checkout={checkout} token={confirmed.token} receiptEmail={confirmed.receiptEmail} embedded={embed.embedded} />
          </Suspense>
        </>
      ) : (
        <Status>We are confirming your payment.</Status>
      ),
    );
  }

  return shell(
    checkout.product?.name ?? "Checkout",
    <CheckoutForm
      checkout={checkout}
      form={form}
      dispatch={dispatch}
      data={data}
      phase={phase}
      message={message}
      showError={showError}
      onSubmit={onSubmit}
      formRef={formRef}
      onStripePayer={setStripePayer}
    />,
    true,
  );
}
