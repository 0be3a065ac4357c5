// /pay/<token>: an unpaid order's hosted page (the link of a failed renewal's email, the portal, the API and the
// CLI). Anyone holding the link pays that one order by card without signing in: the test processor's card form or
// Stripe's Payment Element (the portal's), then the portal's retry on the server — or by bank transfer where the
// seller's Stripe account offers it (PayTransfer.tsx). An order already paid says so.
import { useEffect, useState, type FormEvent } from "react";
import type { Stripe } from "@stripe/stripe-js";
import { RawIntlProvider, type IntlShape } from "react-intl";
import { portalCatalogs } from "../i18n/portal/index.js";
import { applyLocale, longDate, money as formatMoney, pageLocale, rich, t } from "../i18n/intl.js";
import { serverMessage } from "../i18n/server-errors.js";
import { payApi, type PayAnswer, type PayPageData, type PayResult } from "../pay/api.js";
import { Field, Page, Status, useFocusHeading, type Tone } from "../ui.js";
import { authenticateIntent, StripeCardForm, stripeFor } from "./PortalStripe.js";
import { BankTransfer } from "./PayTransfer.js";

type State = { kind: "loading" } | { kind: "gone"; message: string } | { kind: "ready"; data: PayPageData } | { kind: "error"; message: string };

const tokenOfPath = () => decodeURIComponent(window.location.pathname.replace(/^\/pay\/?/, "").replace(/\/+$/, ""));

/** How long the page waits for Stripe's word that an authenticated payment went through. */
const SETTLE_WAIT_MS = 20_000;

/** After 3-D Secure of the charge, the order's payment status until Stripe's event settles it. */
async function settled(token: string): Promise<PayResult<PayAnswer>> {
  const end = Date.now() + SETTLE_WAIT_MS;
  for (;;) {
    const r = await payApi.status(token);
    if (!r.ok || r.data.status === "succeeded" || r.data.status === "failed" || Date.now() > end) return r;
    await new Promise((done) => setTimeout(done, 400));
  }
}

/** The page in the buyer's language (their browser's, as the portal's), once its catalog is loaded. */
export function PayPage() {
  const [messages, setMessages] = useState<IntlShape | null>(null);
  useEffect(() => {
    void applyLocale(portalCatalogs, pageLocale({})).then(setMessages);
  }, []);
  return messages ? (
    <RawIntlProvider value={messages}>
      <PayStates />
    </RawIntlProvider>
  ) : null;
}

function PayStates() {
  const token = tokenOfPath();
  const [state, setState] = useState<State>({ kind: "loading" });
  useFocusHeading(state.kind);
  const load = async () => {
    const r = await payApi.page(token);
    if (r.ok) return setState({ kind: "ready", data: r.data });
    setState(r.error.status === 404 ? { kind: "gone", message: t("pay.gone") } : { kind: "error", message: r.error.message });
  };
  // the token (the path) is the page's only input: read once per load
  useEffect(() => {
    void load();
  }, [token]);

  const brand = state.kind === "ready" ? state.data.organization.name : null;
  const title = state.kind === "ready"
    ? state.data.order.paid ? t("pay.titlePaid") : t("pay.form", { number: state.data.order.invoice_number })
    : state.kind === "loading" ? t("pay.titleLoading") : t("pay.titleGone");
  return (
    <Page title={title} brand={brand}>
      {state.kind === "loading" ? <Status>{t("pay.loading")}</Status> : null}
      {state.kind === "gone" || state.kind === "error" ? <Status tone="error">{state.message}</Status> : null}
      {state.kind === "ready" ? <PayOrder token={token} data={state.data} onPaid={() => void load()} /> : null}
    </Page>
  );
}

function PayOrder({ token, data, onPaid }: { token: string; data: PayPageData; onPaid: () => void }) {
  const { order, organization } = data;
  const amount = formatMoney(order.status === "pending" ? order.due_amount : order.total_amount, order.currency);
  const facts = (
    <dl className="facts">
      <dt>{t("pay.factSeller")}</dt>
      <dd>{organization.name}</dd>
      <dt>{t("pay.factInvoice")}</dt>
      <dd>{order.invoice_number}</dd>
      <dt>{t("pay.factAmount")}</dt>
      <dd>{amount}</dd>
    </dl>
  );
  if (order.paid) {
    return (
      <>
        {facts}
        <Status tone="success">{t("pay.alreadyPaid")}</Status>
      </>
    );
  }
  if (order.status !== "pending") {
    return (
      <>
        {facts}
        <Status tone="info">{t("pay.notOwed")}</Status>
      </>
    );
  }
  if (data.debit_processing) {
    // the bank answers a debit within days and it cannot be stopped: another payment now would pay the order twice
    return (
      <>
        {facts}
        <Status tone="info">{t("server.debitProcessing")}</Status>
      </>
    );
  }
  return (
    <>
      <p className="lead">
        {order.due_at ? (
          rich("pay.invoiceLead", { seller: organization.name, number: order.invoice_number, amount, date: longDate(order.due_at), b: (c) => <strong>{c}</strong> })
        ) : (
          <>
            <strong>{organization.name}</strong> could not charge {amount} for {order.invoice_number}. Pay it now by card:
          </>
        )}
      </p>
      {facts}
      <PayForm token={token} data={data} amount={amount} onPaid={onPaid} />
      {data.bank_transfer.offered ? <BankTransfer token={token} started={data.bank_transfer.started} onPaid={onPaid} /> : null}
    </>
  );
}

function PayForm({ token, data, amount, onPaid }: { token: string; data: PayPageData; amount: string; onPaid: () => void }) {
  const [message, say] = useState<{ tone: Tone; text: string } | undefined>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const key = data.processor.processor === "stripe" ? data.processor.publishable_key : null;
  const [stripe] = useState<Promise<Stripe | null> | null>(() => (key ? stripeFor(key) : null));

  async function pay(confirmationTokenId: string) {
    setBusy(true);
    say({ tone: "info", text: t("pay.paying", { amount }) });
    let r = await payApi.confirm(token, confirmationTokenId);
    if (r.ok && r.data.status === "requires_action" && r.data.client_secret && stripe) {
      say({ tone: "info", text: t("pay.confirmWithBank") });
      const done = await authenticateIntent(stripe, r.data.client_secret);
      if (!done.ok) r = { ok: true, data: { status: "failed", error: done.message } };
      // a card whose saving asks for 3-D Secure is saved from the portal, which knows the customer
      else if (done.id.startsWith("seti_")) r = { ok: true, data: { status: "failed", error: t("pay.bankAsks") } };
      else r = await settled(token);
    }
    setBusy(false);
    if (!r.ok) {
      setErrors(r.error.fields);
      // a debit started meanwhile (a renewal, a retry): the buyer is told in their words, not as a failure
      if (r.error.code === "debit_processing") return say({ tone: "info", text: t("server.debitProcessing") });
      return say({ tone: "error", text: r.error.message });
    }
    if (r.data.status === "pending") return say({ tone: "info", text: t("pay.bankConfirmed") });
    if (r.data.status !== "succeeded") return say({ tone: "error", text: r.data.error ? serverMessage(r.data.error, r.data.decline_reason ?? null) : t("pay.failed") });
    say({ tone: "success", text: t("pay.paid", { amount }) });
    onPaid();
  }

  async function onTestCard(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const [month = "", year = ""] = String(form.get("exp") ?? "").split("/").map((p) => p.trim());
    const y = Number(year);
    setBusy(true);
    setErrors({});
    const card = { number: String(form.get("number") ?? ""), exp_month: Number(month), exp_year: y < 100 ? 2000 + y : y, cvc: String(form.get("cvc") ?? "").trim() };
    const tok = await payApi.testCard(token, card);
    if (!tok.ok) {
      setBusy(false);
      setErrors(tok.error.fields);
      return say({ tone: "error", text: tok.error.message });
    }
    await pay(tok.data.confirmation_token_id);
  }

  const label = t("pay.form", { number: data.order.invoice_number });
  return (
    <div className="pay-now">
      {stripe ? (
        <StripeCardForm
          stripe={stripe} label={label} submitLabel={t("pay.submit", { amount })} currency={data.order.currency}
          busy={busy} onToken={pay} onInvalid={(text) => say({ tone: "error", text })}
        />
      ) : (
        <form onSubmit={(e) => void onTestCard(e)} aria-label={label} noValidate>
          <Field label={t("card.number")} name="number" id="pay-number" inputMode="numeric" autoComplete="cc-number" required error={errors.number} />
          <Field label={t("card.expiry")} name="exp" id="pay-exp" placeholder={t("card.expiryPlaceholder")} autoComplete="cc-exp" required error={errors.exp_month ?? errors.exp_year} />
          <Field label={t("card.cvc")} name="cvc" id="pay-cvc" inputMode="numeric" autoComplete="cc-csc" required error={errors.cvc} />
          <button type="submit" disabled={busy}>
            {t("pay.submit", { amount })}
          </button>
        </form>
      )}
      <Status tone={message?.tone}>{message?.text}</Status>
    </div>
  );
}
