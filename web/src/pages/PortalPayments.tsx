// Payments in the customer portal: the saved cards (the default first; remove one; add one, which becomes the
// default), and on a past-due renewal order a form to pay it at once — with a new card (tokenized by the
// test processor, saved as the default and charged in one step) or the saved default card.
import { useEffect, useState, type FormEvent } from "react";
import { formatMoney } from "../checkout-api.js";
import { portalApi, type CardInput, type PaymentMethod, type PortalOrder } from "../portal-api.js";
import { Field, Status, type Tone } from "../ui.js";
import type { OnError } from "./PortalCommon.js";

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
      <Field label="Card number" name="number" id={`${prefix}-number`} inputMode="numeric" autoComplete="cc-number" required error={errors.number} />
      <Field label="Expiry (MM/YY)" name="exp" id={`${prefix}-exp`} placeholder="12/30" autoComplete="cc-exp" required error={errors.exp_month ?? errors.exp_year} />
      <Field label="CVC" name="cvc" id={`${prefix}-cvc`} inputMode="numeric" autoComplete="cc-csc" required error={errors.cvc} />
    </>
  );
}

const describe = (m: PaymentMethod) =>
  m.method_metadata ? `${m.method_metadata.brand} ending in ${m.method_metadata.last4}, expires ${m.method_metadata.exp_month}/${m.method_metadata.exp_year}` : m.type;

export function PaymentMethods({ token, onError, version }: { token: string; onError: OnError; version: number }) {
  const [methods, setMethods] = useState<PaymentMethod[] | null>(null);
  const [message, say] = useState<{ tone: Tone; text: string } | undefined>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  async function refresh() {
    const r = await portalApi.paymentMethods(token);
    if (r.ok) setMethods(r.data);
    else say({ tone: "error", text: onError(r.error) });
  }
  useEffect(() => {
    // a background read: its error is shown here only (an expired session is told when the customer acts)
    void portalApi.paymentMethods(token).then((r) => (r.ok ? setMethods(r.data) : say({ tone: "error", text: r.error.message })));
  }, [token, version]);

  async function onAdd(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    setBusy(true);
    setErrors({});
    say({ tone: "info", text: "Saving your card…" });
    const tok = await portalApi.tokenizeCard(token, cardOf(form));
    const added = tok.ok ? await portalApi.addPaymentMethod(token, tok.data.confirmation_token_id) : tok;
    setBusy(false);
    if (!added.ok) {
      setErrors(added.error.fields);
      return say({ tone: "error", text: onError(added.error) });
    }
    form.reset();
    await refresh();
    say({ tone: "success", text: `Your ${describe(added.data.payment_method)} is saved: it pays your next renewals.` });
  }

  async function onRemove(m: PaymentMethod) {
    setBusy(true);
    const r = await portalApi.deletePaymentMethod(token, m.id);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    await refresh();
    say({ tone: "success", text: "The card is removed." });
  }

  return (
    <section aria-labelledby="payment-methods-heading">
      <h2 id="payment-methods-heading">Payment methods</h2>
      {methods === null ? (
        <p className="empty">Loading…</p>
      ) : methods.length === 0 ? (
        <p className="empty">You have no saved card.</p>
      ) : (
        <ul className="items">
          {methods.map((m) => (
            <li key={m.id} className="item">
              <p>
                {describe(m)}
                {m.is_default ? " (default)" : ""}
              </p>
              <button type="button" className="secondary" disabled={busy} onClick={() => void onRemove(m)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void onAdd(e)} aria-label="Add a card" noValidate>
        <CardFields prefix="new-card" errors={errors} />
        <button type="submit" disabled={busy}>
          Add card
        </button>
      </form>
      <Status tone={message?.tone}>{message?.text}</Status>
    </section>
  );
}

/** A past-due renewal order: pay it now with a new card or the saved default. */
export function PayNow({ order, token, onError, onPaid }: { order: PortalOrder; token: string; onError: OnError; onPaid: () => void }) {
  const [message, say] = useState<{ tone: Tone; text: string } | undefined>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const amount = formatMoney(order.total_amount, order.currency);

  async function pay(confirmationTokenId: string | null) {
    const r = await portalApi.retryPayment(token, order.id, confirmationTokenId);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    if (r.data.status !== "succeeded") return say({ tone: "error", text: r.data.error ?? "The payment failed." });
    say({ tone: "success", text: `Paid ${amount}. Your subscription is active again.` });
    onPaid();
  }

  async function onNewCard(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    say({ tone: "info", text: `Paying ${amount}…` });
    const tok = await portalApi.tokenizeCard(token, cardOf(e.currentTarget));
    if (!tok.ok) {
      setBusy(false);
      setErrors(tok.error.fields);
      return say({ tone: "error", text: onError(tok.error) });
    }
    await pay(tok.data.confirmation_token_id);
  }

  return (
    <div className="pay-now">
      <p>
        <strong>Payment failed.</strong> Pay {amount} now with another card:
      </p>
      <form onSubmit={(e) => void onNewCard(e)} aria-label={`Pay ${order.invoice_number}`} noValidate>
        <CardFields prefix={`pay-${order.id}`} errors={errors} />
        <button type="submit" disabled={busy}>
          Pay {amount}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            say({ tone: "info", text: `Paying ${amount}…` });
            void pay(null);
          }}
        >
          Try my saved card again
        </button>
      </form>
      <Status tone={message?.tone}>{message?.text}</Status>
    </div>
  );
}
