// Payments in the customer portal: the saved cards (the default first; make another the default; remove one;
// add one, which becomes the default), and on a past-due renewal order a form to pay it at once — with a new
// card (saved as the default and charged in one step) or the saved default card. A seller connected to Stripe
// takes the card in Stripe's Payment Element and the customer authenticates with Stripe.js when their bank
// asks (PortalStripe.tsx); a seller on the test processor takes it in the test processor's card form. A US bank
// account entered by hand waits for its microdeposits: the customer verifies them here (PortalBankVerify.tsx).
import { useEffect, useState, type FormEvent } from "react";
import type { Stripe } from "@stripe/stripe-js";
import { money as formatMoney, rich, t } from "../i18n/intl.js";
import { serverMessage } from "../i18n/server-errors.js";
import { portalApi, type AddedPaymentMethod, type CardInput, type SetupWait, type PaymentConfirmation, type PaymentMethod, type PortalError, type PortalOrder, type Result } from "../portal-api.js";
import { Field, Status, type Tone } from "../ui.js";
import type { OnError } from "./PortalCommon.js";
import { BankVerify } from "./PortalBankVerify.js";
import { authenticateIntent, StripeCardForm, usePortalProcessor } from "./PortalStripe.js";
import { cardBrand } from "../card-brand.js";

/** The card form's values (the server checks them: its 422 names the field). */
function cardOf(form: HTMLFormElement): CardInput {
  const data = new FormData(form);
  const [month = "", year = ""] = String(data.get("exp") ?? "").split("/").map((p) => p.trim());
  const y = Number(year);
  return {
    number: String(data.get("number") ?? ""),
    exp_month: Number(month),
    exp_year: y < 100 ? 2000 + y : y,
    cvc: String(data.get("cvc") ?? "").trim(),
  };
}

function CardFields({ prefix, errors }: { prefix: string; errors: Record<string, string> }) {
  return (
    <>
      <Field label={t("card.number")} name="number" id={`${prefix}-number`} inputMode="numeric" autoComplete="cc-number" required error={errors.number} />
      <Field label={t("card.expiry")} name="exp" id={`${prefix}-exp`} placeholder={t("card.expiryPlaceholder")} autoComplete="cc-exp" required error={errors.exp_month ?? errors.exp_year} />
      <Field label={t("card.cvc")} name="cvc" id={`${prefix}-cvc`} inputMode="numeric" autoComplete="cc-csc" required error={errors.cvc} />
    </>
  );
}

const BANK_BRANDS = new Set(["us_bank_account", "sepa_debit"]);

const describe = (m: PaymentMethod) => {
  const card = m.method_metadata;
  if (card && BANK_BRANDS.has(card.brand)) return t("payments.bank", { last4: card.last4 });
  // month and year as the card prints them (a number format would write 2,030)
  return card ? t("payments.card", { brand: cardBrand(card.brand), last4: card.last4, month: String(card.exp_month), year: String(card.exp_year) }) : m.type;
};

/**
 * Saves a Stripe card: its confirmation token, and the customer's authentication when their bank asks for it. A setup
 * waiting for the bank (`next_action`: microdeposits, processing) is answered as it is: the page says what happens
 * next.
 */
async function saveStripeCard(token: string, stripe: Promise<Stripe | null>, confirmationTokenId: string): Promise<Result<AddedPaymentMethod>> {
  const added = await portalApi.addPaymentMethod(token, confirmationTokenId);
  if (!added.ok || added.data.status !== "requires_action" || added.data.next_action) return added;
  const done = await authenticateIntent(stripe, added.data.client_secret);
  if (!done.ok) return { ok: false, error: { status: 400, message: done.message, fields: {} } };
  return portalApi.confirmPaymentMethod(token, done.id);
}

const failure = (message: string): { ok: false; error: PortalError } => ({ ok: false, error: { status: 400, message, fields: {} } });

export function PaymentMethods({ token, onError, version }: { token: string; onError: OnError; version: number }) {
  const [methods, setMethods] = useState<PaymentMethod[] | null>(null);
  const [message, say] = useState<{ tone: Tone; text: string } | undefined>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [waiting, setWaiting] = useState<{ clientSecret: string; deposits: Extract<SetupWait, { type: "verify_with_microdeposits" }>["verify_with_microdeposits"] } | null>(null);
  const processor = usePortalProcessor(token);

  async function refresh() {
    const r = await portalApi.paymentMethods(token);
    if (r.ok) setMethods(r.data);
    else say({ tone: "error", text: onError(r.error) });
  }
  useEffect(() => {
    // a background read: its error is shown here only (an expired session is told when the customer acts)
    void portalApi.paymentMethods(token).then((r) => (r.ok ? setMethods(r.data) : say({ tone: "error", text: r.error.message })));
  }, [token, version]);

  async function saved(added: Result<AddedPaymentMethod>): Promise<boolean> {
    setBusy(false);
    if (added.ok && added.data.status === "requires_action" && added.data.next_action) {
      // the bank's turn: microdeposits to verify when they arrive, or a check still running
      const wait = added.data.next_action;
      if (wait.type === "verify_with_microdeposits") setWaiting({ clientSecret: added.data.client_secret, deposits: wait.verify_with_microdeposits });
      say({ tone: "info", text: wait.type === "verify_with_microdeposits" ? t("bank.waiting") : t("bank.processing") });
      return true;
    }
    if (!added.ok || added.data.status !== "succeeded") {
      const error = added.ok ? failure(t("payments.notSaved")).error : added.error;
      setErrors(error.fields);
      say({ tone: "error", text: onError(error) });
      return false;
    }
    await refresh();
    say({ tone: "success", text: t("payments.saved", { card: describe(added.data.payment_method) }) });
    return true;
  }

  async function onAdd(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    setBusy(true);
    setErrors({});
    say({ tone: "info", text: t("payments.saving") });
    const tok = await portalApi.tokenizeCard(token, cardOf(form));
    if (await saved(tok.ok ? await portalApi.addPaymentMethod(token, tok.data.confirmation_token_id) : tok)) form.reset();
  }

  async function onStripeToken(stripe: Promise<Stripe | null>, confirmationTokenId: string) {
    setBusy(true);
    say({ tone: "info", text: t("payments.saving") });
    await saved(await saveStripeCard(token, stripe, confirmationTokenId));
  }

  async function onBankVerified(setupIntentId: string) {
    setBusy(true);
    if (await saved(await portalApi.confirmPaymentMethod(token, setupIntentId))) setWaiting(null);
  }

  async function act(m: PaymentMethod, what: "default" | "remove") {
    setBusy(true);
    const r = what === "remove" ? await portalApi.deletePaymentMethod(token, m.id) : await portalApi.setDefaultPaymentMethod(token, m.id);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    await refresh();
    say({ tone: "success", text: what === "remove" ? t("payments.removed") : t("payments.isDefault", { card: describe(m) }) });
  }

  return (
    <section aria-labelledby="payment-methods-heading">
      <h2 id="payment-methods-heading">{t("payments.title")}</h2>
      {methods === null ? (
        <p className="empty">{t("payments.loading")}</p>
      ) : methods.length === 0 ? (
        <p className="empty">{t("payments.none")}</p>
      ) : (
        <ul className="items">
          {methods.map((m) => (
            <li key={m.id} className="item">
              <p>
                {describe(m)}
                {m.is_default ? ` ${t("payments.default")}` : ""}
              </p>
              {!m.is_default && (
                <button type="button" className="secondary" disabled={busy} onClick={() => void act(m, "default")} aria-label={t("payments.makeDefaultLabel", { card: describe(m) })}>
                  {t("payments.makeDefault")}
                </button>
              )}
              <button type="button" className="secondary" disabled={busy} onClick={() => void act(m, "remove")}>
                {t("payments.remove")}
              </button>
            </li>
          ))}
        </ul>
      )}
      {waiting && processor?.stripe && <BankVerify stripe={processor.stripe} clientSecret={waiting.clientSecret} deposits={waiting.deposits} onVerified={onBankVerified} />}
      {processor === null ? null : processor.stripe ? (
        <StripeCardForm
          stripe={processor.stripe}
          label={t("payments.addForm")}
          submitLabel={t("payments.add")}
          busy={busy}
          onToken={(id) => onStripeToken(processor.stripe ?? Promise.resolve(null), id)}
          onInvalid={(text) => say({ tone: "error", text })}
        />
      ) : (
        <form onSubmit={(e) => void onAdd(e)} aria-label={t("payments.addForm")} noValidate>
          <CardFields prefix="new-card" errors={errors} />
          <button type="submit" disabled={busy}>
            {t("payments.add")}
          </button>
        </form>
      )}
      <Status tone={message?.tone}>{message?.text}</Status>
    </section>
  );
}

/** How long the page waits for Stripe's word that an authenticated payment went through (till hears it as an event). */
const SETTLE_WAIT_MS = 20_000;

/**
 * Pays a past-due order through Stripe after a confirm that needs the customer: a new card whose setup asks for
 * 3-D Secure (saved once authenticated, then charged), or a payment to authenticate (till learns it went through
 * from Stripe's event: the order's payment status is read until it says so).
 */
async function finishStripePayment(
  token: string,
  stripe: Promise<Stripe | null>,
  orderId: string,
  answer: PaymentConfirmation,
  onWait: () => void,
): Promise<Result<PaymentConfirmation>> {
  let current = answer;
  for (let step = 0; step < 3 && current.status === "requires_action" && current.client_secret; step++) {
    const done = await authenticateIntent(stripe, current.client_secret);
    if (!done.ok) return failure(done.message);
    if (done.id.startsWith("seti_")) {
      const card = await portalApi.confirmPaymentMethod(token, done.id);
      if (!card.ok) return card;
      if (card.data.status !== "succeeded") return failure(t("payments.notSaved"));
      const methodId = card.data.payment_method.id;
      const paid = await confirmWhenFree(token, orderId, () => portalApi.retryPayment(token, orderId, null, methodId), onWait);
      if (!paid.ok) return paid;
      current = paid.data;
      continue;
    }
    const end = Date.now() + SETTLE_WAIT_MS;
    for (;;) {
      const status = await portalApi.paymentStatus(token, orderId);
      if (!status.ok) return status;
      if (status.data.status === "succeeded" || status.data.status === "failed") return { ok: true, data: status.data };
      if (Date.now() > end) return { ok: true, data: { status: "pending", error: t("pay.bankConfirmed") } };
      await new Promise((r) => setTimeout(r, 400));
    }
  }
  return { ok: true, data: current };
}

/** How long the page waits in all for another attempt at the order (the schedule's retry charging the card) to end. */
const OTHER_ATTEMPT_WAIT_MS = 30_000;

/**
 * Asks till to pay the order now (`send`; `again`: a new card's token is spent by the first ask, and the card is the
 * default by then, so it is asked again without it). While another attempt holds the order (409 once till has waited
 * 5 s for it), the page waits and asks again. An order the other attempt paid answers 422 (no payment owed): its
 * status says it is paid. A bank debit on its way (a pending payment: days) is not waited for.
 */
async function confirmWhenFree(
  token: string,
  orderId: string,
  send: (again: boolean) => Promise<Result<PaymentConfirmation>>,
  onWait: () => void,
): Promise<Result<PaymentConfirmation>> {
  const end = Date.now() + OTHER_ATTEMPT_WAIT_MS;
  let r = await send(false);
  while (!r.ok && r.error.status === 409 && Date.now() < end) {
    const status = await portalApi.paymentStatus(token, orderId);
    if (status.ok && status.data.status === "succeeded") return status;
    if (status.ok && status.data.status === "pending") break;
    onWait();
    await new Promise((done) => setTimeout(done, 1_000));
    r = await send(true);
  }
  if (!r.ok && r.error.status === 422 && Object.keys(r.error.fields).length === 0) {
    const status = await portalApi.paymentStatus(token, orderId);
    if (status.ok && status.data.status === "succeeded") return status;
  }
  return r;
}

/** A past-due renewal order: pay it now with a new card or the saved default (authenticating it when the bank asks). */
export function PayNow({
  order,
  token,
  onError,
  onPaid,
  onCardsChanged,
}: {
  order: PortalOrder;
  token: string;
  onError: OnError;
  onPaid: () => void;
  /** A new card was saved as the default, and the payment did not go through (a refused charge, another attempt). */
  onCardsChanged: () => void;
}) {
  const [message, say] = useState<{ tone: Tone; text: string } | undefined>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [needsAuth, setNeedsAuth] = useState(false);
  const processor = usePortalProcessor(token);
  const stripe = processor?.stripe ?? null;
  const amount = formatMoney(order.total_amount, order.currency);

  useEffect(() => {
    // an off-session renewal the bank refused without the customer: they authenticate it here
    void portalApi.paymentStatus(token, order.id).then((r) => setNeedsAuth(r.ok && r.data.decline_reason === "authentication_required"));
  }, [token, order.id]);

  async function pay(confirmationTokenId: string | null) {
    setBusy(true);
    say({ tone: "info", text: t("pay.paying", { amount }) });
    const onWait = () => say({ tone: "info", text: t("pay.otherAttempt") });
    let r = await confirmWhenFree(token, order.id, (again) => portalApi.retryPayment(token, order.id, again ? null : confirmationTokenId), onWait);
    if (r.ok && r.data.status === "requires_action") {
      say({ tone: "info", text: t("pay.confirmWithBank") });
      r = stripe ? await finishStripePayment(token, stripe, order.id, r.data, onWait) : failure(t("pay.bankAsks"));
    }
    setBusy(false);
    // a new card is saved as the default before it is charged: the list shows it whatever the charge's answer
    if (confirmationTokenId && !(r.ok && r.data.status === "succeeded")) onCardsChanged();
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    if (r.data.status !== "succeeded") return say({ tone: "error", text: r.data.error ? serverMessage(r.data.error, r.data.decline_reason) : t("pay.failed") });
    say({ tone: "success", text: t("pay.paid", { amount }) });
    onPaid();
  }

  async function onNewCard(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    say({ tone: "info", text: t("pay.paying", { amount }) });
    const tok = await portalApi.tokenizeCard(token, cardOf(e.currentTarget));
    if (!tok.ok) {
      setBusy(false);
      setErrors(tok.error.fields);
      return say({ tone: "error", text: onError(tok.error) });
    }
    await pay(tok.data.confirmation_token_id);
  }

  const savedCard = (
    <button type="button" className={needsAuth ? undefined : "secondary"} disabled={busy} onClick={() => void pay(null)}>
      {needsAuth ? t("pay.confirm", { amount }) : t("pay.savedCardAgain")}
    </button>
  );
  return (
    <div className="pay-now">
      {needsAuth ? (
        <p>{rich("pay.authLead", { amount, b: (chunks) => <strong>{chunks}</strong> })}</p>
      ) : (
        <p>{rich("pay.failedLead", { amount, b: (chunks) => <strong>{chunks}</strong> })}</p>
      )}
      {processor === null ? null : stripe ? (
        <StripeCardForm
          stripe={stripe}
          label={t("pay.form", { number: order.invoice_number })}
          submitLabel={t("pay.submit", { amount })}
          currency={order.currency}
          busy={busy}
          onToken={(id) => pay(id)}
          onInvalid={(text) => say({ tone: "error", text })}
        >
          {savedCard}
        </StripeCardForm>
      ) : (
        <form onSubmit={(e) => void onNewCard(e)} aria-label={t("pay.form", { number: order.invoice_number })} noValidate>
          <CardFields prefix={`pay-${order.id}`} errors={errors} />
          <button type="submit" disabled={busy}>
            {t("pay.submit", { amount })}
          </button>
          {savedCard}
        </form>
      )}
      <Status tone={message?.tone}>{message?.text}</Status>
    </div>
  );
}
