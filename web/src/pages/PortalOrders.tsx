// The customer's orders in the portal: date, amount, status and invoice number, the invoice and its credit notes
// to download, and on a past-due renewal order the form to pay it (PayNow, in PortalPayments).
import { money as formatMoney } from "../i18n/intl.js";
import type { OrderInvoice, PortalOrder } from "../portal-api.js";
import { PayNow } from "./PortalPayments.js";
import { formatDate, ListSection, type OnError } from "./PortalCommon.js";

const ORDER_STATUS: Record<string, string> = {
  pending: "Pending",
  paid: "Paid",
  refunded: "Refunded",
  partially_refunded: "Partially refunded",
  void: "Void",
};

export function Orders({ orders, invoices, token, onError, onPaid }: { orders: PortalOrder[]; invoices: Map<string, OrderInvoice>; token: string; onError: OnError; onPaid: (id: string) => void }) {
  return (
    <ListSection
      id="orders"
      title="Orders"
      empty="You have no orders."
      items={orders}
      item={(o) => (
        <li key={o.id} className="item">
          <h3>{o.description || o.product?.name || "Order"}</h3>
          <dl className="facts">
            <dt>Date</dt>
            <dd>{formatDate(o.created_at)}</dd>
            <dt>Amount</dt>
            <dd>{formatMoney(o.total_amount, o.currency)}</dd>
            <dt>Status</dt>
            <dd>{ORDER_STATUS[o.status] ?? o.status}</dd>
            <dt>Invoice number</dt>
            <dd>{o.invoice_number}</dd>
          </dl>
          <InvoiceLinks invoice={invoices.get(o.id)} />
          {o.status === "pending" && o.billing_reason === "subscription_cycle" && <PayNow order={o} token={token} onError={onError} onPaid={() => onPaid(o.id)} />}
        </li>
      )}
    />
  );
}

function InvoiceLinks({ invoice }: { invoice: OrderInvoice | undefined }) {
  if (!invoice) return null;
  return (
    <ul className="downloads" aria-label="Invoices">
      <li>
        <a href={invoice.url} download={`invoice-${invoice.number}.pdf`}>
          Download invoice {invoice.number} (PDF)
        </a>
      </li>
      {invoice.credit_notes.map((n) => (
        <li key={n.id}>
          <a href={n.url} download={`credit-note-${n.number}.pdf`}>
            Download credit note {n.number} (PDF)
          </a>
        </li>
      ))}
    </ul>
  );
}
