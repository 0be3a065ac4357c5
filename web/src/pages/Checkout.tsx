// The hosted checkout at /checkout/{client_secret} (and its confirmation page, /checkout/{secret}/confirmation).
// This file holds the page's states — loading, unavailable, expired, the form, paying, waiting (loaded while the
// payment was unfinished: checkout/resume.ts; a bank debit processing says so), failed (a refused debit: the form
// again, to pay with another method), succeeded — and composes
// the sections under web/src/checkout/: the frame (page-shell.tsx), the form (CheckoutForm.tsx: what the customer
// buys beside how they pay — Stripe's Payment Element or the test processor's card form), paying (pay.ts, payer.ts)
// and the success view. Embedded (embed=true&embed_origin=…, through /embed.js: checkout/embed.ts) it tells the
// seller's page `loaded`, `close`, `confirmed` and `success` — to the checkout's embed origin only. `?theme=dark` picks
// the dark colours; light is the default. It speaks the buyer's language (web/src/i18n): the checkout's `locale`, else
// the customer's, the browser's, the organization's default, English — resolved once the checkout is read, and sent
// with the confirm when the checkout named none, so the emails and invoice that follow speak it too.
import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState, type ReactNode } from "react";
import { RawIntlProvider, type IntlShape } from "react-intl";
import type { Checkout, CheckoutError, ConfirmedCheckout } from "../checkout-api.js";
import { CheckoutForm } from "../checkout/CheckoutForm.js";
import { useCloseOnEscape, useEmbedMessages } from "../checkout/embed.js";
import { emptyForm, formReducer } from "../checkout/form.js";
import { applyTheme, embedOf, routeOf, Shell } from "../checkout/page-shell.js";
import { usePay, type Phase } from "../checkout/pay.js";
import type { Payer } from "../checkout/payer.js";
import { isProcessing, pendingAction, useResume } from "../checkout/resume.js";
import { useCheckout } from "../checkout/useCheckout.js";
import { checkoutCatalogs } from "../i18n/checkout/index.js";
import { applyLocale, intl, pageLocale, t } from "../i18n/intl.js";
import { Status } from "../ui.js";
import "./checkout.css";

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

  // before the first paint, so a dark system never flashes its colours on a light checkout
  useLayoutEffect(() => applyTheme(window.location.search, embed.embedded), [embed.embedded]);

  const post = useEmbedMessages(embed);

  /** The page's messages once its locale is known (English until then). */
  const [messages, setMessages] = useState<IntlShape | null>(null);
  const onLoaded = useCallback(
    (c: Checkout | null) => {
      const wanted = pageLocale({ checkout: c?.locale, customer: c?.customer_locale, organization: c?.organization.default_locale });
      void applyLocale(checkoutCatalogs, wanted).then(setMessages);
      if (c) {
        dispatch({ type: "loaded", checkout: c });
        // only a succeeded checkout is done; a confirmed one waits for its payment (3-D Secure resumed)
        if (c.status === "succeeded") setPhase("success");
        else if (c.status === "confirmed") setPhase("waiting");
      }
      post("loaded", c);
    },
    [post],
  );
  const data = useCheckout(route.secret, onLoaded);
  const { checkout } = data;

  const close = useCallback(() => post("close", checkout), [post, checkout]);
  useCloseOnEscape(embed.embedded, phase !== "paying", close);

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
  useResume({ phase, checkout, secret: route.secret, data, dispatch, setPhase, setMessage, onDone });
  const onSubmit = usePay({ secret: route.secret, checkout, form, phase, data, dispatch, setPhase, setMessage, showError, onConfirmed, onDone, stripe: stripePayer });

  const shell = (title: string, children: ReactNode, wide = false) => (
    <Shell title={title} wide={wide} embedded={embed.embedded} onClose={close} closeDisabled={phase === "paying"}>
      {children}
    </Shell>
  );

  const translated = (page: ReactNode) => <RawIntlProvider value={messages ?? intl()}>{page}</RawIntlProvider>;
  if (data.loadError?.status === 404) return translated(shell(t("page.notFound"), <NextStep lead={t("page.notFoundLead")} embedded={embed.embedded} />));
  if (data.loadError) return translated(shell(t("page.unavailable"), <Status tone="error">{data.loadError.message}</Status>));
  if (!checkout || !messages) return shell(t("page.checkout"), <Status>{t("page.loading")}</Status>);
  return translated(page(checkout));

  function page(checkout: Checkout) {
    if (checkout.status === "expired" && phase === "form") {
      return shell(t("page.expired"), <NextStep lead={t("page.expiredLead")} embedded={embed.embedded} />);
    }
    if (phase === "waiting") {
      if (isProcessing(checkout)) return shell(t("page.paymentProcessing"), <Status>{t("page.debitProcessing")}</Status>);
      const action = pendingAction(checkout) !== null;
      return shell(action ? t("page.completePayment") : t("page.processing"), <Status>{action ? t("page.bankConfirms") : t("page.confirming")}</Status>);
    }
    if (phase === "success" || route.confirmation) {
      const done = checkout.status === "succeeded" || phase === "success";
      return shell(
        done ? t("page.thanks") : t("page.processing"),
        done ? <Thanks checkout={checkout} confirmed={confirmed} embedded={embed.embedded} /> : <Status>{t("page.confirming")}</Status>,
      );
    }

    return shell(
      checkout.product?.name ?? t("page.checkout"),
      <CheckoutForm
        checkout={checkout}
        form={form}
        dispatch={dispatch}
        data={data}
        phase={phase}
        message={message ?? (checkout.status === "failed" ? t("pay.debitFailed") : null)}
        showError={showError}
        onSubmit={onSubmit}
        formRef={formRef}
        onStripePayer={setStripePayer}
      />,
      true,
    );
  }
}

/** The succeeded checkout: thanks, then what was bought and where to find it (loaded now). */
function Thanks(props: { checkout: Checkout; confirmed: { token: string | null; receiptEmail: string | null }; embedded: boolean }) {
  const { checkout, confirmed } = props;
  return (
    <>
      <Status tone="success">{t("page.success", { product: checkout.product?.name ?? t("page.theProduct"), seller: checkout.organization.name })}</Status>
      <Suspense fallback={null}>
        <Success checkout={checkout} token={confirmed.token} receiptEmail={confirmed.receiptEmail} embedded={props.embedded} />
      </Suspense>
    </>
  );
}

/**
 * What a buyer does when the checkout cannot be paid (expired, or no checkout at this address): the next step in
 * words, and a way back to the store they came from. Embedded, the overlay's close button is that way back.
 */
function NextStep({ lead, embedded }: { lead: string; embedded: boolean }) {
  return (
    <>
      <p className="lead">{lead}</p>
      {!embedded && window.history.length > 1 && (
        <button type="button" onClick={() => window.history.back()}>
          {t("page.goBack")}
        </button>
      )}
    </>
  );
}
