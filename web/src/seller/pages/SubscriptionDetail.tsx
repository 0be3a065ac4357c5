// /subscriptions/<id>: one subscription, cancelling it at the period's end (or taking that back), ending it now,
// and moving it to another recurring product (with the proration the seller picks); cancelling and ending
// are each asked once more in a dialog, and each result shows in a toast.
import { useState, type FormEvent } from "react";
import { CANCELLATION_REASONS } from "../../../../shared/cancellation-reasons.js";
import { SelectField, Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Chooser } from "../Chooser.js";
import { Confirm } from "../kit/Confirm.js";
import { useToast } from "../Toasts.js";
import { day, Facts, Loading, money, ReadOnly } from "../parts.js";
import { href } from "../url.js";
import { priceLabel, type Product, type Subscription } from "../wire.js";

type Said = { tone: Tone; text: string } | undefined;
const words = (s: string) => s.replace(/_/g, " ");

/** Cancelling at the period's end (or taking it back) and ending now, each of the first two asked once more. */
function Cancel({ sub, onSaved }: { sub: Subscription; onSaved: (s: Subscription) => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [error, setError] = useState<string | undefined>(undefined);
  const [reason, setReason] = useState("");
  async function patch(body: Record<string, unknown>, done: (s: Subscription) => string) {
    const r = await v1<Subscription>(scope, "PATCH", `/subscriptions/${sub.id}`, {
      body: { ...body, ...(reason && body.cancel_at_period_end !== false ? { customer_cancellation_reason: reason } : {}) },
    });
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    toast(done(r.data));
    onSaved(r.data);
  }
  if (sub.ended_at) return <p className="hint">This subscription ended on {day(sub.ended_at)}.</p>;
  const who = sub.customer.email ?? "The customer";
  return (
    <div className="stack">
      {!sub.cancel_at_period_end && (
        <SelectField
          label="Reason" optional value={reason} onChange={(e) => setReason(e.target.value)}
          options={CANCELLATION_REASONS.map((r) => ({ value: r, label: words(r) }))} placeholder="None given"
        />
      )}
      <div className="actions">
        {sub.cancel_at_period_end ? (
          <button type="button" onClick={() => void patch({ cancel_at_period_end: false }, () => "It renews again.")}>
            Keep it renewing (uncancel)
          </button>
        ) : (
          <Confirm
            trigger="Cancel at the period's end…"
            danger={false}
            title={`Cancel ${sub.product.name} at the period's end?`}
            body={`${who} keeps access until ${day(sub.current_period_end)}; it then ends and is not billed again. You can take this back until then.`}
            confirm="Yes, cancel at period end"
            cancel="Keep it renewing"
            onConfirm={() => patch({ cancel_at_period_end: true }, (s) => `It ends on ${day(s.current_period_end)}.`)}
          />
        )}
        <Confirm
          trigger="End it now"
          title="End this subscription now?"
          body="It stops at once, not at the period's end, and its benefits are revoked. This cannot be taken back."
          confirm="Yes, end it now"
          cancel="Keep it"
          onConfirm={() => patch({ revoke: true }, () => "Ended now.")}
        />
      </div>
      <Status tone="error">{error}</Status>
    </div>
  );
}

function ChangeProduct({ sub, onSaved }: { sub: Subscription; onSaved: (s: Subscription) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<Said>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const product = String(form.get("product_id") ?? "");
    if (!product) return setSaid({ tone: "error", text: "Choose the product to move to." });
    const r = await v1<Subscription>(scope, "PATCH", `/subscriptions/${sub.id}`, { body: { product_id: product, proration_behavior: String(form.get("proration") || "prorate") } });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: `Moved to ${r.data.product.name}.` });
    onSaved(r.data);
  }
  if (sub.ended_at) return null;
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label="Change product" className="stack">
      <Chooser<Product>
        label="New product"
        name="product_id"
        path="/products/"
        filters={{ is_recurring: true, is_archived: false }}
        exclude={[sub.product_id]}
        describe={(p) => `${p.name} (${priceLabel(p.prices.find((x) => !x.is_archived), p.recurring_interval, money)})`}
      />
      <SelectField
        label="Proration"
        name="proration"
        placeholder="Prorate on the next invoice"
        options={[
          { value: "invoice", label: "Invoice the difference now" },
          { value: "next_period", label: "From the next period" },
        ]}
      />
      <button type="submit">Change product</button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

export function SubscriptionDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("subscriptions");
  const loaded = useLoad(() => v1<Subscription>(scope, "GET", `/subscriptions/${id}`), id);
  const [saved, setSaved] = useState<Subscription | null>(null);
  const s = saved ?? loaded.data;
  return (
    <Layout title={s ? `${s.product.name} · ${s.customer.email ?? ""}` : "Subscription"} back={{ href: href("/subscriptions"), label: "All subscriptions" }}>
      <Loading loading={loaded.loading} error={loaded.error} />
      {s && (
        <>
          <Facts
            items={[
              ["Status", `${words(s.status)}${s.cancel_at_period_end ? ", ends at the period's end" : ""}`],
              ["Customer", <a key="c" href={href(`/customers/${s.customer_id}`)}>{s.customer.email ?? s.customer_id}</a>],
              ["Product", <a key="p" href={href(`/products/${s.product_id}`)}>{s.product.name}</a>],
              ["Amount", `${money(s.amount, s.currency)} / ${s.recurring_interval}`],
              ["Started", day(s.created_at)],
              ["Current period ends", day(s.current_period_end)],
              ["Orders", <a key="o" href={href("/orders", { customer_id: s.customer_id })}>the customer's orders</a>],
            ]}
          />
          <section aria-labelledby="cancel-h">
            <h2 id="cancel-h">Cancel</h2>
            {mayWrite ? <Cancel sub={s} onSaved={setSaved} /> : <ReadOnly what="change subscriptions" />}
          </section>
          {mayWrite && !s.ended_at && (
            <section aria-labelledby="change-h">
              <h2 id="change-h">Change product</h2>
              <ChangeProduct sub={s} onSaved={setSaved} />
            </section>
          )}
        </>
      )}
    </Layout>
  );
}
