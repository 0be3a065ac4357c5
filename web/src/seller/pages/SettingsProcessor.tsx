// The settings' payment processor: the Stripe account connected on this side (its mode, key's kind and last four,
// the last event received), connecting one with its keys (PUT /v1/stripe/connection, as `till stripe connect`:
// test keys on the sandbox side, live keys on live; the secret goes in once and is never shown again) and
// disconnecting it; once connected, the way to import the account's Stripe Billing business (StripeImport.tsx).
import { useState, type FormEvent } from "react";
import { Field, Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { day, Facts, Loading, ReadOnly } from "../parts.js";
import { href } from "../url.js";

interface StripeStatus {
  connected: boolean;
  /** Without Stripe: whether the built-in test processor takes the payments meanwhile. */
  test_processor?: boolean;
  account_id?: string | null;
  livemode?: boolean;
  secret_key?: string;
  publishable_key?: string;
  last_event?: { type: string; received_at: string } | null;
  connected_at?: string;
  webhook_endpoint?: { id: string | null; url: string };
}

/** `onDone`: connected — the section says so (this form goes away with the connection's facts shown instead). */
function ConnectStripe({ onDone }: { onDone: () => void }) {
  const { scope, mode } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  const kind = mode === "sandbox" ? "test" : "live";
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const webhook = String(f.get("webhook_secret") ?? "").trim();
    const body = { publishable_key: String(f.get("publishable_key") ?? "").trim(), secret_key: String(f.get("secret_key") ?? "").trim(), ...(webhook ? { webhook_secret: webhook } : {}) };
    setSaid({ tone: "info", text: "Connecting…" });
    const r = await v1<StripeStatus>(scope, "PUT", "/stripe/connection", { body });
    // the secret never stays in the page, whatever the answer
    form.reset();
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid(undefined);
    onDone();
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label="Connect Stripe" className="stack">
      <Field label="Publishable key" name="publishable_key" required autoComplete="off" placeholder={`pk_${kind}_…`} />
      <Field
        label="Secret key" name="secret_key" type="password" required autoComplete="off" placeholder={`sk_${kind}_… or rk_${kind}_…`}
        hint="Stored encrypted; only its kind and last four are shown again."
      />
      <Field
        label="Webhook signing secret" name="webhook_secret" type="password" optional autoComplete="off"
        hint="Only when Stripe's CLI forwards the events (stripe listen); otherwise till makes the webhook endpoint."
      />
      <button type="submit" className="primary">
        Connect Stripe
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

export function PaymentProcessor({ mayWrite }: { mayWrite: boolean }) {
  const { scope, mode } = useSeller();
  const status = useLoad(() => v1<StripeStatus>(scope, "GET", "/stripe/connection"), "stripe");
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  const s = status.data;
  async function disconnect() {
    const r = await v1<unknown>(scope, "DELETE", "/stripe/connection");
    setSaid(r.ok ? { tone: "success", text: "Stripe is disconnected." } : { tone: "error", text: r.error.message });
    status.reload();
  }
  return (
    <section className="form-section" aria-labelledby="processor-h">
      <h2 id="processor-h">Payment processor</h2>
      <Loading loading={status.loading} error={status.error} />
      {s?.connected && (
        <Facts
          items={[
            ["Stripe account", s.account_id ?? "—"],
            ["Mode", s.livemode ? "live" : "test"],
            ["Secret key", s.secret_key ?? "—"],
            ["Connected", day(s.connected_at)],
            ["Last event", s.last_event ? `${s.last_event.type}, ${day(s.last_event.received_at)}` : "none yet"],
          ]}
        />
      )}
      {s?.connected && (
        <p>
          Billing with Stripe already? <a href={href("/settings/import-stripe")}>Import from Stripe</a>: products, discounts, customers, meters and
          subscriptions.
        </p>
      )}
      {s && !s.connected && s.test_processor && <p>No Stripe account is connected on this side: checkouts use till&apos;s built-in test processor (test cards).</p>}
      {s && !s.connected && !s.test_processor && (
        <p className="warning" role="note">
          No Stripe account is connected: this organization cannot take payments, and its checkouts of paid products are refused until one is.
        </p>
      )}
      {s && mayWrite && (s.connected ? (
        <Confirm
          trigger="Disconnect Stripe"
          title="Disconnect Stripe?"
          body={
            mode === "sandbox"
              ? "The sandbox's checkouts go back to till's built-in test processor (test cards) until an account is connected again."
              : "This organization cannot take payments until an account is connected again: its checkouts of paid products are refused."
          }
          confirm="Yes, disconnect"
          cancel="Keep it connected"
          onConfirm={disconnect}
        />
      ) : (
        <ConnectStripe
          onDone={() => {
            setSaid({ tone: "success", text: "Stripe is connected." });
            status.reload();
          }}
        />
      ))}
      {s && !mayWrite && <ReadOnly what="change the payment processor" />}
      <Status tone={said?.tone}>{said?.text}</Status>
    </section>
  );
}
