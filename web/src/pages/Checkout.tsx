// The hosted checkout at /checkout/{client_secret} (and its confirmation page, /checkout/{secret}/confirmation).
// This file holds the page's states — loading, unavailable, expired, the form, paying, succeeded — and composes
// the sections under web/src/checkout/: what the customer buys (Summary) beside how they pay (CustomerFields,
// CardFields), every problem at once (ErrorSummary), and the success view. Embedded (embed=true&embed_origin=…,
// through /embed.js) it tells the seller's page `loaded`, `close`, `confirmed` and `success` — to the
// checkout's embed origin only. `?theme=light|dark` picks the colours.
import { lazy, Suspense, useCallback, useEffect, useMemo, useReducer, useRef, useState, type FormEvent, type ReactNode } from "react";
import { formatMoney } from "../../../shared/money.js";
import { checkoutApi, waitForOutcome, type Checkout, type CheckoutError } from "../checkout-api.js";
import { CardFields } from "../checkout/CardFields.js";
import { CustomerFields } from "../checkout/CustomerFields.js";
import { ErrorSummary } from "../checkout/ErrorSummary.js";
import { emptyForm, formReducer } from "../checkout/form.js";
import { cardFieldsOf, confirmBody, customAmount, fieldId, fieldLabel, formChanges, formIssues, parseExpiry, taxChanges } from "../checkout/model.js";
import { Summary } from "../checkout/Summary.js";
import { useCheckout } from "../checkout/useCheckout.js";
import { Status } from "../ui.js";
import "./checkout.css";

const MESSAGE_TYPE = "POLAR_CHECKOUT";
/** Needed only after the payment: loaded then (with the portal's calls it reads the purchase with). */
const Success = lazy(() => import("../checkout/Success.js").then((m) => ({ default: m.Success })));

function routeOf(pathname: string): { secret: string; confirmation: boolean } {
  const parts = pathname.split("/").filter(Boolean); // ["checkout", secret, "confirmation"?]
  return { secret: decodeURIComponent(parts[1] ?? ""), confirmation: parts[2] === "confirmation" };
}

function embedOf(search: string): { embedded: boolean; queryOrigin: string | null } {
  const q = new URLSearchParams(search);
  let origin: string | null = null;
  try {
    const raw = q.get("embed_origin");
    if (raw) {
      const u = new URL(raw);
      if (u.protocol === "http:" || u.protocol === "https:") origin = u.origin;
    }
  } catch {
    origin = null;
  }
  return { embedded: q.get("embed") === "true" && window.parent !== window, queryOrigin: origin };
}

/** Applies ?theme= (light is the default when embedded, the system's setting otherwise). */
function applyTheme(search: string, embedded: boolean): void {
  const theme = new URLSearchParams(search).get("theme");
  const root = document.documentElement;
  if (theme === "dark" || theme === "light") root.dataset.theme = theme;
  else if (embedded) root.dataset.theme = "light";
  if (embedded) root.dataset.embed = "true";
}

function Shell(props: { title: string; wide?: boolean; embedded: boolean; onClose: () => void; closeDisabled: boolean; children: ReactNode }) {
  useEffect(() => {
    document.title = `${props.title} · till`;
  }, [props.title]);
  return (
    <main className={props.wide ? "checkout wide" : "checkout"}>
      {props.embedded && (
        <button type="button" className="close" onClick={props.onClose} disabled={props.closeDisabled} aria-label="Close checkout">
          ×
        </button>
      )}
      <h1 tabIndex={-1}>{props.title}</h1>
      {props.children}
    </main>
  );
}

type Phase = "form" | "paying" | "success";

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

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!checkout || phase !== "form") return;
    setMessage(null);
    const issues = formIssues(checkout, form.values);
    if (Object.keys(issues).length > 0) {
      dispatch({ type: "issues", issues, focus: true });
      return;
    }
    dispatch({ type: "issues", issues: {}, focus: false });
    data.cancelPending();
    setPhase("paying");
    const body = confirmBody(checkout, form.values);
    if (checkout.is_payment_form_required) {
      const { card } = form.values;
      const expiry = parseExpiry(card.expiry) ?? { month: 0, year: 0 };
      const token = await checkoutApi.testCard(route.secret, { number: card.number, exp_month: expiry.month, exp_year: expiry.year, cvc: card.cvc.trim() });
      if (!token.ok) {
        const fields = cardFieldsOf(token.error.fields);
        dispatch({ type: "issues", issues: Object.keys(fields).length > 0 ? fields : { "card.number": token.error.message }, focus: true });
        setPhase("form");
        return;
      }
      body.confirmation_token_id = token.data.confirmation_token_id;
    }
    const res = await checkoutApi.confirm(route.secret, body);
    if (!res.ok && res.error.status === 409) {
      // the server would charge another total than the page shows (nothing was charged): show the new one
      const err = await data.update(formChanges(checkout, form.values));
      setMessage(res.error.message);
      showError(err);
      setPhase("form");
      return;
    }
    if (!res.ok) {
      // a declined card's message goes by the card; a 422's by each field
      if (res.error.status === 400 && Object.keys(res.error.fields).length === 0) dispatch({ type: "issues", issues: { "card.number": res.error.message }, focus: true });
      else showError(res.error, true);
      setPhase("form");
      return;
    }
    data.setCheckout(res.data);
    setConfirmed({ token: res.data.customer_session_token ?? null, receiptEmail: res.data.receipt_email ?? null });
    post("confirmed", res.data);
    await waitForOutcome(route.secret);
    const successURL = res.data.success_url;
    const internal = successURL.startsWith(`${window.location.origin}/checkout/`);
    setPhase("success");
    post("success", res.data, { successURL, redirect: !internal });
    if (!embed.embedded && !internal) window.location.href = successURL;
  };

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

  const price = checkout.product_price;
  const v = form.values;
  const amountIssue = price?.amount_type === "custom" ? customAmount(price, v.amount, checkout.currency).issue : null;
  const payLabel = checkout.active_trial_interval
    ? "Start trial"
    : checkout.is_payment_required
      ? `Pay ${formatMoney(checkout.total_amount, checkout.currency)}`
      : checkout.is_free_product_price || checkout.total_amount === 0
        ? checkout.product?.is_recurring
          ? "Subscribe"
          : "Get for free"
        : "Subscribe";
  const problems = Object.entries(form.issues).map(([key, msg]) => ({ key, id: fieldId(key), label: fieldLabel(key, checkout), message: msg }));

  return shell(
    checkout.product?.name ?? "Checkout",
    <form ref={formRef} className="panes" onSubmit={(e) => void onSubmit(e)} noValidate aria-busy={phase === "paying"}>
      <Summary
        checkout={checkout}
        amount={v.amount}
        seats={v.seats}
        discountCode={v.discountCode}
        issues={form.issues}
        updating={data.updating}
        onChoose={(productId, pr) =>
          void data.update({ product_id: productId, product_price_id: pr.id }).then((err) => {
            showError(err);
            if (!err) dispatch({ type: "clear", keys: ["amount", "seats"] });
          })
        }
        onAmount={(typed) => {
          dispatch({ type: "set", patch: { amount: typed } });
          if (!price) return;
          const { minor, issue } = customAmount(price, typed, checkout.currency);
          if (issue) {
            data.cancelPending();
            dispatch({ type: "issues", issues: { ...form.issues, amount: issue }, focus: false });
          } else if (minor !== null) data.updateSoon({ amount: minor }, (err) => showError(err));
        }}
        onSeats={(seats) => {
          dispatch({ type: "set", patch: { seats } });
          data.updateSoon({ seats }, (err) => showError(err));
        }}
        onDiscountCode={(code) => dispatch({ type: "set", patch: { discountCode: code } })}
        onApplyDiscount={() =>
          void data.update({ discount_code: v.discountCode.trim() }).then((err) => {
            if (err) dispatch({ type: "issues", issues: { ...form.issues, discount_code: err.fields.discount_code ?? err.message }, focus: false });
          })
        }
      />
      <section className="payment" aria-labelledby="payment-heading">
        <h2 id="payment-heading">{checkout.is_payment_form_required ? "Payment details" : "Your details"}</h2>
        <CustomerFields
          checkout={checkout}
          values={v}
          issues={form.issues}
          dispatch={dispatch}
          onTaxChange={(values) => data.updateSoon(taxChanges(checkout, values), (err) => showError(err))}
          onBusiness={(values) => {
            // debounced too, so it merges with a typed change still waiting instead of racing it; not a business: the
            // tax id typed under the box no longer applies (the field keeps it if the box is checked again)
            const body = values.business ? taxChanges(checkout, values) : { ...taxChanges(checkout, values), customer_tax_id: null };
            data.updateSoon(body, (err) => showError(err));
          }}
        />
        {checkout.is_payment_form_required && <CardFields card={v.card} issues={form.issues} dispatch={dispatch} />}
        <ErrorSummary problems={problems} message={message} />
        <Status>{phase === "paying" ? "Processing your payment…" : data.updating ? "Updating the total…" : null}</Status>
        <button type="submit" className="primary pay" disabled={phase !== "form" || data.updating || amountIssue !== null}>
          {phase === "paying" ? "Processing…" : payLabel}
        </button>
      </section>
    </form>,
    true,
  );
}
