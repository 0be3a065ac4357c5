// An order page's sections: its payments (the card charged, or why it was declined), its invoice and credit notes
// (PDF links; the invoice generated on request) and the refund form (all or part of what is left, asked once more in
// a dialog naming the amount: money that leaves cannot come back).
import { useState, type FormEvent } from "react";
import { Field, SelectField, Status, type Tone } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { day, Loading, money } from "../parts.js";
import { toMinor } from "../price-drafts.js";
import { useToast } from "../Toasts.js";
import type { Order } from "../wire.js";
import { cardBrand, paymentStatus, refundReason } from "../words.js";

type Said = { tone: Tone; text: string } | undefined;
const words = (s: string | null | undefined) => (s ? s.replace(/_/g, " ") : "—");
const REASONS = ["customer_request", "duplicate", "fraudulent", "service_disruption", "satisfaction_guarantee", "other"];

interface Payment {
  id: string;
  created_at: string;
  status: string;
  amount: number;
  currency: string;
  method: string;
  decline_message: string | null;
  method_metadata?: { brand: string; last4: string };
}

export interface DocumentLink {
  id: string;
  number: string;
  url: string;
  refund_id: string | null;
}

export interface InvoiceAnswer {
  url: string;
  number: string;
  credit_notes: DocumentLink[];
}

const PAYMENT_COLUMNS: Array<DataColumn<Payment>> = [
  { id: "date", label: "Date", cell: (p) => day(p.created_at) },
  { id: "method", label: "Method", cell: (p) => (p.method_metadata ? `${cardBrand(p.method_metadata.brand)} •••• ${p.method_metadata.last4}` : words(p.method)) },
  { id: "status", label: "Status", cell: (p) => `${paymentStatus(p.status)}${p.decline_message ? `: ${p.decline_message}` : ""}` },
  { id: "amount", label: "Amount", cell: (p) => money(p.amount, p.currency), numeric: true },
];

export function Payments({ order }: { order: Order }) {
  const { scope } = useSeller();
  const list = useLoad(() => v1<ListPage<Payment>>(scope, "GET", "/payments/", { query: { order_id: order.id, limit: 20 } }), order.id);
  return (
    <section aria-labelledby="payments-h">
      <h2 id="payments-h">Payment</h2>
      <Loading loading={list.loading} error={list.error} />
      {list.data && list.data.items.length === 0 && <p className="hint">{order.total_amount === 0 ? "Nothing to pay: the order is free." : "No payment attempt yet."}</p>}
      {list.data && list.data.items.length > 0 && <DataTable caption="The order's payments" rows={list.data.items} columns={PAYMENT_COLUMNS} />}
    </section>
  );
}

/** The invoice's PDF once generated (then its credit notes), else the button that generates it. */
export function Invoice({ order, invoice, onMade }: { order: Order; invoice: InvoiceAnswer | undefined; onMade: () => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<Said>(undefined);
  async function generate() {
    setSaid({ tone: "info", text: "Preparing the invoice…" });
    const made = await v1<unknown>(scope, "POST", `/orders/${order.id}/invoice`);
    if (!made.ok) return setSaid({ tone: "error", text: made.error.message });
    // the worker renders it: ask again for a little while
    for (let i = 0; i < 40; i++) {
      const r = await v1<InvoiceAnswer>(scope, "GET", `/orders/${order.id}/invoice`);
      if (r.ok) {
        setSaid({ tone: "success", text: `Invoice ${r.data.number} is ready.` });
        return onMade();
      }
      await new Promise((done) => setTimeout(done, 500));
    }
    setSaid({ tone: "error", text: "The invoice is still being made: reload the page in a moment." });
  }
  return (
    <section aria-labelledby="invoice-h">
      <h2 id="invoice-h">Invoice</h2>
      {invoice ? (
        <ul>
          <li>
            <a href={invoice.url}>Invoice {invoice.number} (PDF)</a>
          </li>
          {invoice.credit_notes.map((c) => (
            <li key={c.id}>
              <a href={c.url}>Credit note {c.number} (PDF)</a>
            </li>
          ))}
        </ul>
      ) : order.paid ? (
        <button type="button" onClick={() => void generate()}>
          Generate the invoice
        </button>
      ) : (
        <p className="hint">The invoice is made once the order is paid.</p>
      )}
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

export function RefundForm({ order, onDone }: { order: Order; onDone: () => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [error, setError] = useState<string | undefined>(undefined);
  const [asking, setAsking] = useState<RefundAsk | null>(null);
  const left = order.refundable_amount ?? order.net_amount - order.refunded_amount;
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = String(form.get("amount") ?? "").trim();
    const amount = text ? toMinor(text, order.currency) : left;
    if (amount === null || amount <= 0) return setError("Write the amount to refund as a number, e.g. 5.00.");
    if (amount > left) return setError(`At most ${money(left, order.currency)} is left to refund.`);
    setError(undefined);
    setAsking({ amount, reason: String(form.get("reason") || "customer_request"), revoke: form.get("revoke") === "on" });
  }
  async function refund(ask: RefundAsk) {
    const r = await v1<unknown>(scope, "POST", "/refunds/", { body: { order_id: order.id, amount: ask.amount, reason: ask.reason, revoke_benefits: ask.revoke } });
    if (!r.ok) return setError(r.error.message);
    toast(`Refunded ${money(ask.amount, order.currency)}.`);
    onDone();
  }
  if (left <= 0) return <p className="hint">Nothing left to refund.</p>;
  return (
    <form onSubmit={onSubmit} aria-label="Refund" className="stack">
      <Field label="Amount to refund" name="amount" inputMode="decimal" optional hint={`Up to ${money(left, order.currency)} before tax; empty refunds all of it.`} />
      <SelectField label="Reason" name="reason" placeholder={refundReason(REASONS[0]!)} options={REASONS.slice(1).map((r) => ({ value: r, label: refundReason(r) }))} />
      <div className="field checkbox">
        <input id="revoke" name="revoke" type="checkbox" />
        <label htmlFor="revoke">Also revoke the benefits it granted</label>
      </div>
      <div className="actions">
        <button type="submit" className="danger">
          Refund…
        </button>
      </div>
      <Status tone="error">{error}</Status>
      {asking && (
        <Confirm
          trigger={null}
          open
          onOpenChange={(o) => !o && setAsking(null)}
          title={`Refund ${money(asking.amount, order.currency)}?`}
          body={
            `${money(asking.amount, order.currency)} (and its tax) goes back to ${order.customer.email ?? "the customer"}` +
            `${asking.revoke ? " and the benefits are revoked" : ""}; a credit note is made. A refund cannot be taken back.`
          }
          confirm={`Yes, refund ${money(asking.amount, order.currency)}`}
          cancel="Don't refund"
          onConfirm={() => refund(asking)}
        />
      )}
    </form>
  );
}
