// /orders/<id>: one order — its facts, its lines and amounts (discount, tax, total, refunded), the link that pays
// it while it is owed, its payments (the card charged), its invoice and credit notes (PDF), its refunds (and the
// form that refunds what is left), its disputes (said at the top while there are any), and its timeline.
import { useState } from "react";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { copyText } from "../kit/copy.js";
import { DataTable } from "../kit/DataTable.js";
import { Timeline } from "../kit/Timeline.js";
import { Layout } from "../Layout.js";
import { day, Facts, Loading, money, ReadOnly } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href } from "../url.js";
import type { Order } from "../wire.js";
import { billingReason, disputeReason, disputeStatus, orderStatus } from "../words.js";
import { AcceptDispute, DISPUTE_COLUMNS, REFUND_COLUMNS, type Dispute, type Refund } from "./OrderLists.js";
import { Invoice, Payments, RefundForm, type InvoiceAnswer } from "./OrderParts.js";
import "../sales.css";

type PayableOrder = Order & { pay_url?: string | null; discount?: { name?: string } | null };

function Amounts({ o }: { o: PayableOrder }) {
  const rows: Array<[string, number, string?]> = [
    ...o.items.map((i): [string, number] => [i.label, i.amount]),
    ["Subtotal", o.subtotal_amount],
    ...(o.discount_amount ? [[`Discount${o.discount?.name ? ` (${o.discount.name})` : ""}`, -o.discount_amount] as [string, number]] : []),
    ["Tax", o.tax_amount],
    ["Total", o.total_amount, "total"],
    ...(o.refunded_amount ? [["Refunded", -o.refunded_amount] as [string, number]] : []),
  ];
  return (
    <section aria-labelledby="lines-h">
      <h2 id="lines-h">Lines and amounts</h2>
      <dl className="ledger">
        {rows.map(([label, amount, cls], i) => (
          <div key={i} style={{ display: "contents" }}>
            <dt className={cls}>{label}</dt>
            <dd className={cls}>{money(amount, o.currency)}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function PayLink({ url }: { url: string }) {
  const toast = useToast();
  return (
    <section aria-labelledby="pay-h">
      <h2 id="pay-h">Pay link</h2>
      <p>
        The order is owed: the customer pays it on <a href={url}>its pay page</a>.
      </p>
      <button type="button" onClick={() => void copyText(url).then((ok) => toast(ok ? "Copied the pay link." : `The pay link: ${url}`))}>
        Copy the pay link
      </button>
    </section>
  );
}

/** The order's disputes in the disputes view (the same rows, beside every other order's). */
const disputesOf = (orderId: string) => href("/orders", { view: "disputes", order_id: orderId });

/** Said at the top of a disputed order: the customer's bank contests the payment, and where to read the dispute. */
function Disputed({ o, disputes }: { o: PayableOrder; disputes: Dispute[] }) {
  const latest = disputes[0];
  if (!latest) return null;
  const due = latest.evidence_due_by && !latest.closed ? `, evidence due ${day(latest.evidence_due_by)}` : "";
  return (
    <p className="warning" role="note">
      {`The customer's bank disputes ${money(latest.amount, latest.currency)} of this order (${disputeReason(latest.reason)}): `}
      {`${disputeStatus(latest.status)}${due}. `}
      <a href={disputesOf(o.id)}>{disputes.length > 1 ? `See its ${disputes.length} disputes` : "See the dispute"}</a>
    </p>
  );
}

function RefundsAndDisputes({ o, invoice, disputes, onChange }: { o: PayableOrder; invoice: InvoiceAnswer | undefined; disputes: Dispute[]; onChange: () => void }) {
  const { scope } = useSeller();
  const mayRefund = useMayWrite("refunds");
  const mayWrite = useMayWrite("orders");
  const refunds = useLoad(() => v1<ListPage<Refund>>(scope, "GET", "/refunds/", { query: { order_id: o.id, limit: 100 } }), `${o.id}|${o.refunded_amount}`);
  const [accepting, setAccepting] = useState<Dispute | null>(null);
  const notes = new Map((invoice?.credit_notes ?? []).map((c) => [c.refund_id, c]));
  const columns = [
    ...REFUND_COLUMNS.filter((c) => c.id !== "order"),
    {
      id: "note",
      label: "Credit note",
      cell: (r: Refund) => {
        const note = notes.get(r.id);
        return note ? <a href={note.url}>{note.number} (PDF)</a> : "—";
      },
    },
  ];
  return (
    <>
      <section aria-labelledby="refund-h">
        <h2 id="refund-h">Refunds</h2>
        <Loading loading={refunds.loading} error={refunds.error} />
        {refunds.data && refunds.data.items.length > 0 && <DataTable caption="The order's refunds" rows={refunds.data.items} columns={columns} />}
        {!o.paid ? <p className="hint">An unpaid order has nothing to refund.</p> : mayRefund ? <RefundForm order={o} onDone={onChange} /> : <ReadOnly what="refund orders" />}
      </section>
      {disputes.length > 0 && (
        <section aria-labelledby="disputes-h">
          <h2 id="disputes-h">Disputes</h2>
          <DataTable
            caption="The order's disputes"
            rows={disputes}
            columns={DISPUTE_COLUMNS.filter((c) => c.id !== "order")}
            actions={(d) =>
              mayWrite && !d.closed ? (
                <button type="button" className="danger" onClick={() => setAccepting(d)}>
                  Accept…
                </button>
              ) : null
            }
          />
          {accepting && <AcceptDispute dispute={accepting} open onClose={() => setAccepting(null)} onDone={onChange} />}
        </section>
      )}
    </>
  );
}

export function OrderDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const toast = useToast();
  const loaded = useLoad(() => v1<PayableOrder>(scope, "GET", `/orders/${id}`), id);
  const invoice = useLoad<InvoiceAnswer | null>(async () => {
    const r = await v1<InvoiceAnswer>(scope, "GET", `/orders/${id}/invoice`);
    // not generated yet is an answer, not an error
    return !r.ok && r.error.status === 404 ? { ok: true, data: null } : r;
  }, id);
  const o = loaded.data;
  const disputes = useLoad(() => v1<ListPage<Dispute>>(scope, "GET", "/disputes/", { query: { order_id: id, limit: 100 } }), `${id}|${o?.status ?? ""}`);
  const reload = () => {
    loaded.reload();
    invoice.reload();
    disputes.reload();
  };
  const copy = (
    <button type="button" onClick={() => void copyText(id).then((ok) => toast(ok ? "Copied the order's id." : `The order's id: ${id}`))}>
      Copy id
    </button>
  );
  return (
    <Layout title={o ? `Order of ${day(o.created_at)}` : "Order"} back={{ href: href("/orders"), label: "All orders" }} action={copy}>
      <Loading loading={loaded.loading} error={loaded.error} />
      {o && (
        <>
          <Disputed o={o} disputes={disputes.data?.items ?? []} />
          <Facts
            items={[
              ["Status", orderStatus(o.status)],
              ["Customer", <a key="c" href={href(`/customers/${o.customer.id}`)}>{o.customer.email ?? o.customer.id}</a>],
              ["Product", o.product ? <a key="p" href={href(`/products/${o.product.id}`)}>{o.product.name}</a> : "—"],
              ["Billing reason", billingReason(o.billing_reason)],
              ["Total", money(o.total_amount, o.currency)],
              ["Subscription", o.subscription_id ? <a key="s" href={href(`/subscriptions/${o.subscription_id}`)}>Open the subscription</a> : "—"],
            ]}
          />
          <div className="detail-sections">
            <Amounts o={o} />
            {o.pay_url && <PayLink url={o.pay_url} />}
            <Payments order={o} />
            {invoice.data !== undefined && <Invoice order={o} invoice={invoice.data ?? undefined} onMade={invoice.reload} />}
            <RefundsAndDisputes o={o} invoice={invoice.data ?? undefined} disputes={disputes.data?.items ?? []} onChange={reload} />
            <Timeline path={`/orders/${id}`} label="order" />
          </div>
        </>
      )}
    </Layout>
  );
}
