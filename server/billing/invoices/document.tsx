// The invoice and credit note PDFs (@react-pdf/renderer): one React component per document, fed the figures
// the order already holds. Nothing here computes money: every amount printed is a stored minor-unit amount of
// the order, its items or the refund, formatted once (shared/money.ts), so the PDF's totals are the order's.
import { Document, Page, StyleSheet, Text, View, renderToBuffer } from "@react-pdf/renderer";
import { formatMoney, formatUnitAmount } from "../../../shared/money.js";

export interface InvoiceParty {
  name: string;
  /** Address lines as printed (street, postal code and city, state, country). */
  address: string[];
  /** "FR40303265045" with its kind, or null. */
  taxId: string | null;
  email?: string | null;
}

export interface InvoiceLine {
  description: string;
  quantity: number;
  /**
   * Minor units; the line amount is quantity × unit amount (a metered line's may differ by its rounding or cap).
   * A string is a metered price's own unit amount, fractional ("1.5" cents), printed with all its digits.
   */
  unitAmount: number | string;
  amount: number;
  /** The service period of a subscription's line (the date of supply): the period paid ahead, or the usage's. */
  period?: { start: Date; end: Date } | null;
}

export interface TaxTotal {
  /** "VAT FR 20%" */
  label: string;
  amount: number;
}

export interface InvoiceDocumentData {
  kind: "invoice" | "credit_note";
  number: string;
  date: Date;
  /** A credit note's invoice. */
  invoiceRef: { number: string; date: Date } | null;
  seller: InvoiceParty;
  buyer: InvoiceParty;
  currency: string;
  lines: InvoiceLine[];
  subtotal: number;
  discount: number;
  discountName: string | null;
  net: number;
  taxes: TaxTotal[];
  tax: number;
  total: number;
  /**
   * What the customer's wallet paid of the total (the order's −applied_balance_amount, ≥ 0): printed as "Paid
   * from wallet" and the rest as "Amount charged" (the card's part; 0 when the wallet paid it all).
   */
  walletApplied: number;
  /** "Paid", "Paid — partially refunded", … */
  status: string;
  /** How the order was paid ("Visa ending in 4242"), when a charge paid it. */
  paymentMethod: string | null;
  /** The tax note of the sale (a reverse charge's legal note), printed as is. */
  taxNote: string | null;
  pricesIncludeTax: boolean;
  /** A credit note's refund (its amounts are the document's totals: net = refunded before tax, tax = tax refunded). */
  credit: { reason: string } | null;
}

const LOCALE = "en-US";
const dateText = (d: Date) => new Intl.DateTimeFormat(LOCALE, { dateStyle: "long", timeZone: "UTC" }).format(d);

const styles = StyleSheet.create({
  page: { padding: 40, fontSize: 10, fontFamily: "Helvetica", color: "#111" },
  title: { fontSize: 20, fontFamily: "Helvetica-Bold", marginBottom: 4 },
  muted: { color: "#555" },
  row: { flexDirection: "row", justifyContent: "space-between" },
  parties: { flexDirection: "row", justifyContent: "space-between", marginTop: 24, marginBottom: 24 },
  party: { width: "48%" },
  label: { fontFamily: "Helvetica-Bold", marginBottom: 4 },
  tableHead: { flexDirection: "row", borderBottomWidth: 1, borderBottomColor: "#999", paddingBottom: 4, fontFamily: "Helvetica-Bold" },
  tableRow: { flexDirection: "row", borderBottomWidth: 0.5, borderBottomColor: "#ddd", paddingVertical: 4 },
  colDesc: { width: "52%" },
  colQty: { width: "12%", textAlign: "right" },
  colUnit: { width: "18%", textAlign: "right" },
  colAmount: { width: "18%", textAlign: "right" },
  totals: { marginTop: 12, marginLeft: "50%" },
  totalRow: { flexDirection: "row", justifyContent: "space-between", paddingVertical: 2 },
  grand: { fontFamily: "Helvetica-Bold", borderTopWidth: 1, borderTopColor: "#999", paddingTop: 4, marginTop: 2 },
  note: { marginTop: 20, padding: 8, borderWidth: 0.5, borderColor: "#999" },
  status: { marginTop: 16, fontFamily: "Helvetica-Bold" },
});

function Party({ title, party }: { title: string; party: InvoiceParty }) {
  return (
    <View style={styles.party}>
      <Text style={styles.label}>{title}</Text>
      <Text>{party.name}</Text>
      {party.address.map((line, i) => (
        <Text key={i}>{line}</Text>
      ))}
      {party.email ? <Text>{party.email}</Text> : null}
      {party.taxId ? <Text>Tax ID: {party.taxId}</Text> : null}
    </View>
  );
}

function Total({ label, amount, currency, grand }: { label: string; amount: number; currency: string; grand?: boolean }) {
  return (
    <View style={grand ? [styles.totalRow, styles.grand] : styles.totalRow}>
      <Text>{label}</Text>
      <Text>{formatMoney(amount, currency, LOCALE)}</Text>
    </View>
  );
}

export function InvoiceDocument({ d }: { d: InvoiceDocumentData }) {
  const money = (n: number) => formatMoney(n, d.currency, LOCALE);
  const credit = d.kind === "credit_note";
  const title = credit ? "Credit note" : "Invoice";
  return (
    <Document title={`${title} ${d.number}`} author={d.seller.name} creator="till" producer="till">
      <Page size="A4" style={styles.page}>
        <View style={styles.row}>
          <View>
            <Text style={styles.title}>{title}</Text>
            <Text>
              {credit ? "Credit note number" : "Invoice number"}: {d.number}
            </Text>
            <Text>
              {credit ? "Date of issue" : "Invoice date"}: {dateText(d.date)}
            </Text>
            {d.invoiceRef ? (
              <Text>
                Credits invoice {d.invoiceRef.number} of {dateText(d.invoiceRef.date)}
              </Text>
            ) : null}
            <Text>Currency: {d.currency.toUpperCase()}</Text>
          </View>
        </View>

        <View style={styles.parties}>
          <Party title="From" party={d.seller} />
          <Party title="Bill to" party={d.buyer} />
        </View>

        <View style={styles.tableHead}>
          <Text style={styles.colDesc}>Description</Text>
          <Text style={styles.colQty}>Qty</Text>
          <Text style={styles.colUnit}>Unit price</Text>
          <Text style={styles.colAmount}>Amount</Text>
        </View>
        {d.lines.map((l, i) => (
          <View key={i} style={styles.tableRow} wrap={false}>
            <View style={styles.colDesc}>
              <Text>{l.description}</Text>
              {l.period ? (
                <Text style={styles.muted}>
                  Service period: {dateText(l.period.start)} – {dateText(l.period.end)}
                </Text>
              ) : null}
            </View>
            <Text style={styles.colQty}>{String(l.quantity)}</Text>
            <Text style={styles.colUnit}>{typeof l.unitAmount === "string" ? formatUnitAmount(l.unitAmount, d.currency, LOCALE) : money(l.unitAmount)}</Text>
            <Text style={styles.colAmount}>{money(l.amount)}</Text>
          </View>
        ))}

        <View style={styles.totals} wrap={false}>
          <Total label="Subtotal" amount={d.subtotal} currency={d.currency} />
          {d.discount > 0 ? <Total label={`Discount${d.discountName ? ` (${d.discountName})` : ""}`} amount={-d.discount} currency={d.currency} /> : null}
          <Total label="Total excluding tax" amount={d.net} currency={d.currency} />
          {d.taxes.map((t, i) => (
            <Total key={i} label={t.label} amount={t.amount} currency={d.currency} />
          ))}
          {d.taxes.length === 0 ? <Total label="Tax" amount={d.tax} currency={d.currency} /> : null}
          <Total label={credit ? "Total credited" : "Total"} amount={d.total} currency={d.currency} grand />
          {d.walletApplied > 0 ? <Total label="Paid from wallet" amount={-d.walletApplied} currency={d.currency} /> : null}
          {d.walletApplied > 0 ? <Total label="Amount charged" amount={d.total - d.walletApplied} currency={d.currency} /> : null}
        </View>

        <Text style={styles.status}>{credit ? `Refunded: ${money(d.total)} (reason: ${d.credit?.reason ?? "refund"})` : `Status: ${d.status}`}</Text>
        {d.paymentMethod ? <Text>{credit ? `Refunded to: ${d.paymentMethod}` : `Payment method: ${d.paymentMethod}`}</Text> : null}
        {d.pricesIncludeTax ? <Text style={styles.muted}>Prices include tax.</Text> : null}
        {d.taxNote ? (
          <View style={styles.note}>
            <Text>{d.taxNote}</Text>
          </View>
        ) : null}
      </Page>
    </Document>
  );
}

/** The PDF's bytes. */
export async function renderInvoicePdf(d: InvoiceDocumentData): Promise<Buffer> {
  return renderToBuffer(<InvoiceDocument d={d} />);
}
