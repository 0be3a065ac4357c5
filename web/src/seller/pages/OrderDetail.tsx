// /orders/<id>: one order's amounts and lines, its invoice (generated on request, then downloaded), and a refund
// (all or part of what is left; the API says how much may still be refunded).
import { useState, type FormEvent, type ReactNode } from "react";
import { Field, SelectField, Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Facts, Loading, money, ReadOnly } from "../parts.js";
import { href } from "../url.js";
import type { Order } from "../wire.js";
import { toMinor } from "../price-drafts.js";

type Said = { tone: Tone; text: string } | undefined;

const REASONS = ["customer_request", "duplicate", "fraudulent", "service_disruption", "satisfaction_guarantee", "other"];

function Invoice({ order }: { order: Order }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<Said>(undefined);
  async function download() {
    setSaid({ tone: "info", text: "Preparing the invoice…" });
    let r = await v1<{ url: string }>(scope, "GET", `/orders/${order.id}/invoice`);
    if (!r.ok && r.error.status === 404) {
      const made = await v1<unknown>(scope, "POST", `/orders/${order.id}/invoice`);
      if (!made.ok) return setSaid({ tone: "error", text: made.error.message });
      // the worker renders it: ask again for a little while
      for (let i = 0; i < 20 && !(r.ok); i++) {
        await new Promise((done) => setTimeout(done, 500));
        r = await v1<{ url: string }>(scope, "GET", `/orders/${order.id}/invoice`);
      }
    }
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: "The invoice is ready." });
    window.location.assign(r.data.url);
  }
  return (
    <section aria-labelledby="invoice-h">
      <h2 id="invoice-h">Invoice</h2>
      <button type="button" onClick={() => void download()}>
        Download the invoice{order.invoice_number ? ` ${order.invoice_number}` : ""}
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </section>
  );
}

/** What a refund form asks for, read and checked before the seller is asked to confirm it. */
interface RefundAsk {
  amount: number;
  reason: string;
  revoke: boolean;
}

function Refund({ order, onDone }: { order: Order; onDone: (text: string) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<Said>(undefined);
  // money leaves the seller's account and cannot come back: the form asks once more, naming the amount
  const [asking, setAsking] = useState<RefundAsk | null>(null);
  const [busy, setBusy] = useState(false);
  const left = order.refundable_amount ?? order.net_amount - order.refunded_amount;
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = String(form.get("amount") ?? "").trim();
    const amount = text ? toMinor(text, order.currency) : left;
    if (amount === null || amount <= 0) return setSaid({ tone: "error", text: "Write the amount to refund as a number, e.g. 5.00." });
    if (amount > left) return setSaid({ tone: "error", text: `At most ${money(left, order.currency)} is left to refund.` });
    setSaid(undefined);
    setAsking({ amount, reason: String(form.get("reason") || "customer_request"), revoke: form.get("revoke") === "on" });
  }
  async function refund(ask: RefundAsk) {
    setBusy(true);
    const r = await v1<unknown>(scope, "POST", "/refunds/", { body: { order_id: order.id, amount: ask.amount, reason: ask.reason, revoke_benefits: ask.revoke } });
    setBusy(false);
    setAsking(null);
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid(undefined);
    // the order is read again: its form may give way to "nothing left", so the page keeps the result
    onDone(`Refunded ${money(ask.amount, order.currency)}.`);
  }
  if (left <= 0) return <p className="hint">Nothing left to refund.</p>;
  return (
    <form onSubmit={onSubmit} aria-label="Refund" className="stack">
      <Field label="Amount to refund" name="amount" inputMode="decimal" optional disabled={asking !== null} hint={`Up to ${money(left, order.currency)}; empty refunds all of it.`} />
      <SelectField label="Reason" name="reason" placeholder="Customer request" disabled={asking !== null} options={REASONS.slice(1).map((r) => ({ value: r, label: r.replace(/_/g, " ") }))} />
      <div className="field checkbox">
        <input id="revoke" name="revoke" type="checkbox" disabled={asking !== null} />
        <label htmlFor="revoke">Also revoke the benefits it granted</label>
      </div>
      {asking ? (
        <>
          <p className="hint" role="status">
            {`${money(asking.amount, order.currency)} goes back to the customer${asking.revoke ? " and the benefits are revoked" : ""}. A refund cannot be taken back.`}
          </p>
          <div className="actions">
            <button type="button" className="danger" disabled={busy} onClick={() => void refund(asking)}>
              {`Yes, refund ${money(asking.amount, order.currency)}`}
            </button>
            <button type="button" disabled={busy} onClick={() => setAsking(null)}>
              Don't refund
            </button>
          </div>
        </>
      ) : (
        <button type="submit" className="danger">
          Refund
        </button>
      )}
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

export function OrderDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const mayRefund = useMayWrite("refunds");
  const loaded = useLoad(() => v1<Order>(scope, "GET", `/orders/${id}`), id);
  const [refunded, setRefunded] = useState<string | undefined>(undefined);
  const o = loaded.data;
  return (
    <Layout title={o ? `Order of ${day(o.created_at)}` : "Order"}>
      <p>
        <a href={href("/orders")}>All orders</a>
      </p>
      <Loading loading={loaded.loading} error={loaded.error} />
      {o && (
        <>
          <Facts
            items={[
              ["Status", o.status.replace(/_/g, " ")],
              ["Customer", <a key="c" href={href(`/customers/${o.customer.id}`)}>{o.customer.email ?? o.customer.id}</a>],
              ["Product", o.product?.name ?? "—"],
              ["Billing reason", o.billing_reason.replace(/_/g, " ")],
              ["Subtotal", money(o.subtotal_amount, o.currency)],
              ["Discount", money(o.discount_amount, o.currency)],
              ["Tax", money(o.tax_amount, o.currency)],
              ["Total", money(o.total_amount, o.currency)],
              ["Refunded", money(o.refunded_amount, o.currency)],
              ...(o.subscription_id
                ? ([[
                    "Subscription",
                    <a key="s" href={href(`/subscriptions/${o.subscription_id}`)}>{o.product ? `to ${o.product.name}` : o.subscription_id}</a>,
                  ]] as Array<[string, ReactNode]>)
                : []),
            ]}
          />
          <h2>Lines</h2>
          <ul>
            {o.items.map((item, i) => (
              <li key={i}>
                {item.label} <span className="amount">{money(item.amount, o.currency)}</span>
              </li>
            ))}
          </ul>
          {o.paid && <Invoice order={o} />}
          <section aria-labelledby="refund-h">
            <h2 id="refund-h">Refund</h2>
            {!o.paid ? <p className="hint">An unpaid order has nothing to refund.</p> : mayRefund ? (
              <Refund
                order={o}
                onDone={(text) => {
                  setRefunded(text);
                  loaded.reload();
                }}
              />
            ) : (
              <ReadOnly what="refund orders" />
            )}
            <Status tone="success">{refunded}</Status>
          </section>
        </>
      )}
    </Layout>
  );
}
