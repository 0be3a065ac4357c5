// The customer's orders in the portal: date, amount, status and invoice number, the invoice and its credit notes
// to download, and on a past-due renewal order the form to pay it (PayNow, in PortalPayments). A document's link
// is a bare `download`: the server's Content-Disposition names the file in the document's language ("Rechnung-…").
import { money as formatMoney, t } from "../i18n/intl.js";
import type { OrderInvoice, PortalOrder } from "../portal-api.js";
import { PayNow } from "./PortalPayments.js";
import { formatDate, ListSection, statusText, type OnError } from "./PortalCommon.js";

/**
 * An order's heading: its product's name; a wallet top-up (no product) by its kind in the page's language, never
 * its line's English label; else the order's description as the API gives it.
 */
function orderHeading(o: PortalOrder): string {
  if (o.product) return o.product.name;
  const kind = o.items.length === 1 ? o.items[0]?.wallet_credit : null;
  if (kind === "top_up" || kind === "auto_recharge") return t(`orders.wallet.${kind}`);
  return o.description || t("orders.order");
}

export function Orders({
  orders,
  invoices,
  token,
  onError,
  onPaid,
  onCardsChanged,
}: {
  orders: PortalOrder[];
  invoices: Map<string, OrderInvoice>;
  token: string;
  onError: OnError;
  onPaid: (id: string) => void;
  /** A new card was saved (the default now) by a payment that did not go through: the card list reads it. */
  onCardsChanged: () => void;
}) {
  return (
    <ListSection
      id="orders"
      title={t("orders.title")}
      empty={t("orders.empty")}
      items={orders}
      item={(o) => (
        <li key={o.id} className="item">
          <h3>{orderHeading(o)}</h3>
          <dl className="facts">
            <dt>{t("facts.date")}</dt>
            <dd>{formatDate(o.created_at)}</dd>
            <dt>{t("facts.amount")}</dt>
            <dd>{formatMoney(o.total_amount, o.currency)}</dd>
            <dt>{t("facts.status")}</dt>
            <dd>{statusText("orders.status", o.status)}</dd>
            <dt>{t("orders.invoiceNumber")}</dt>
            <dd>{o.invoice_number}</dd>
          </dl>
          <InvoiceLinks invoice={invoices.get(o.id)} />
          {o.pay_url ? (
            <p className="hint">
              <a href={o.pay_url} data-testid="pay-link">
                {t("orders.payLink")}
              </a>
            </p>
          ) : null}
          {o.status === "pending" && o.billing_reason === "subscription_cycle" && <PayNow order={o} token={token} onError={onError} onPaid={() => onPaid(o.id)} onCardsChanged={onCardsChanged} />}
        </li>
      )}
    />
  );
}

function InvoiceLinks({ invoice }: { invoice: OrderInvoice | undefined }) {
  if (!invoice) return null;
  return (
    <ul className="downloads" aria-label={t("orders.invoices")}>
      <li>
        <a href={invoice.url} download data-testid="invoice-download">
          {t("orders.downloadInvoice", { number: invoice.number })}
        </a>
      </li>
      {invoice.credit_notes.map((n) => (
        <li key={n.id}>
          <a href={n.url} download data-testid="credit-note-download">
            {t("orders.downloadCreditNote", { number: n.number })}
          </a>
        </li>
      ))}
    </ul>
  );
}
