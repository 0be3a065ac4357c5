// /subscriptions/<id>: one subscription — its facts, its items (the plan and its add-ons), its upcoming renewal, a
// change of plan, seats or add-ons in a dialog that shows what it bills before confirming (SubscriptionChange.tsx),
// a change scheduled for the period's end (dropped after asking), cancelling at the period's end (or resuming),
// ending it now, its orders and its timeline; each destructive step is asked once more in a dialog, and each result
// shows in a toast.
import { useState } from "react";
import { CANCELLATION_REASONS } from "../../../../shared/cancellation-reasons.js";
import { SelectField, Status } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Confirm } from "../kit/Confirm.js";
import { Timeline } from "../kit/Timeline.js";
import { ChangeDialog, UpcomingRenewal } from "./SubscriptionChange.js";
import { describeAddOns, SubscriptionItems } from "./SubscriptionItems.js";
import { useProductsById } from "../products-by-id.js";
import { useToast } from "../Toasts.js";
import { day, Facts, Loading, money, ReadOnly } from "../parts.js";
import { href } from "../url.js";
import type { Subscription } from "../wire.js";
import { subscriptionStatus } from "../words.js";

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

/** A change set for the period's end (a next_period change): what it does, and dropping it after asking. */
function Pending({ sub, onSaved }: { sub: Subscription; onSaved: (s: Subscription) => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [error, setError] = useState<string | undefined>(undefined);
  const pending = sub.pending_update;
  const product = useLoad(
    async () => (pending?.product_id ? v1<{ name: string }>(scope, "GET", `/products/${pending.product_id}`) : { ok: true as const, data: { name: "" } }),
    pending?.product_id ?? "",
  );
  const addOns = useProductsById(pending?.items?.map((i) => i.product_id) ?? []);
  if (!pending) return null;
  const what = [
    pending.product_id ? `moves to ${product.data?.name || "another plan"}` : "",
    pending.seats ? `${pending.seats} seats` : "",
    pending.items ? `bills add-ons: ${describeAddOns(pending.items, addOns.data)}` : "",
  ].filter(Boolean).join(", ");
  const drop = async () => {
    const r = await v1<Subscription>(scope, "PATCH", `/subscriptions/${sub.id}`, { body: { pending_update: null } });
    if (!r.ok) return setError(r.error.message);
    toast("Dropped the scheduled change.");
    onSaved(r.data);
  };
  return (
    <section aria-labelledby="pending-h">
      <h2 id="pending-h">Scheduled change</h2>
      <p>On {day(pending.applies_at)} it {what}.</p>
      <Confirm
        trigger="Drop the scheduled change…" title="Drop the scheduled change?"
        body={`It stays as it is on ${day(pending.applies_at)} instead of the change (${what}).`}
        confirm="Yes, drop it" cancel="Keep the change" onConfirm={drop}
      />
      <Status tone="error">{error}</Status>
    </section>
  );
}

export function SubscriptionDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("subscriptions");
  const loaded = useLoad(() => v1<Subscription>(scope, "GET", `/subscriptions/${id}`), id);
  const [saved, setSaved] = useState<Subscription | null>(null);
  const s = saved ?? loaded.data;
  return (
    <Layout
      title={s ? `${s.product.name} · ${s.customer.email ?? ""}` : "Subscription"}
      back={{ href: href("/subscriptions"), label: "All subscriptions" }}
      action={s && mayWrite && !s.ended_at ? <ChangeDialog sub={s} onSaved={setSaved} /> : undefined}
    >
      <Loading loading={loaded.loading} error={loaded.error} />
      {s && (
        <>
          <Facts
            items={[
              ["Status", `${subscriptionStatus(s.status)}${s.cancel_at_period_end ? ", ends at the period's end" : ""}`],
              ["Customer", <a key="c" href={href(`/customers/${s.customer_id}`)}>{s.customer.email ?? s.customer_id}</a>],
              ["Product", <a key="p" href={href(`/products/${s.product_id}`)}>{s.product.name}</a>],
              ["Amount", `${money(s.amount, s.currency)} / ${s.recurring_interval}`],
              ...(s.seats ? ([["Seats", String(s.seats)]] as Array<[string, string]>) : []),
              ["Started", day(s.created_at)],
              ["Current period ends", day(s.current_period_end)],
              ["Orders", <a key="o" href={href("/orders", { customer_id: s.customer_id })}>the customer's orders</a>],
              ...(s.ended_at ? ([["Ended", day(s.ended_at)]] as Array<[string, string]>) : []),
            ]}
          />
          <div className="detail-sections">
            <SubscriptionItems sub={s} />
            <UpcomingRenewal sub={s} />
            <Pending sub={s} onSaved={setSaved} />
            <section aria-labelledby="cancel-h">
              <h2 id="cancel-h">Cancel</h2>
              {mayWrite ? <Cancel sub={s} onSaved={setSaved} /> : <ReadOnly what="change subscriptions" />}
            </section>
            <Timeline path={`/subscriptions/${s.id}`} label="subscription" />
          </div>
        </>
      )}
    </Layout>
  );
}
