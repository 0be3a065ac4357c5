// The invoice and credit note PDFs (@react-pdf/renderer): one React component per document, fed the figures
// the order already holds, written in the document's locale (its catalogs: ./i18n). Nothing here computes money:
// every amount printed is a stored minor-unit amount of the order, its items or the refund, formatted once by Intl
// in that locale, so the PDF's totals are the order's. The font follows the text: Helvetica (a standard PDF font,
// Latin-1) when every character has a glyph there, else Noto Sans (Latin Extended: Polish), or Noto Sans JP.
import { createRequire } from "node:module";
import { Document, Font, Page, StyleSheet, Text, View, renderToBuffer } from "@react-pdf/renderer";
import type { Style } from "@react-pdf/types";
import { PSEUDO_LOCALE, type AnyLocale } from "../../../shared/i18n/locales.js";
import type { UsageLineFacts } from "../../../shared/tiers.js";
import type { ProrationFacts, WalletCredit } from "../../db/schema/index.js";
import { lineFromFacts } from "../../i18n/lines/text.js";
import { INVOICE_CATALOGS, invoiceSpeaker, type InvoiceMessageId, type InvoiceSpeaker } from "./i18n/index.js";

export interface InvoiceParty {
  name: string;
  /** Address lines as printed (street, postal code and city, state, country in the document's language). */
  address: string[];
  /** "FR40303265045" with its kind, or null. */
  taxId: string | null;
  email?: string | null;
}

export interface InvoiceLine {
  /** The order item's label as stored (the seller's product name; a usage line's detail, in English). */
  description: string;
  /** A metered line's figures: the line is then said in the document's language (lines before 0064 have none). */
  usage?: UsageLineFacts | null;
  /** A proration line's facts: the line is then said in the document's language (lines before 0065 have none). */
  proration?: ProrationFacts | null;
  /**
   * A wallet top-up order's line: which credit it is, said in the document's language (lines before 0067 have none).
   */
  walletCredit?: WalletCredit | null;
  /**
   * A credit note's one line: the refund of this product (or order) of this invoice, said in the document's language.
   */
  refund?: { product: string | null; invoiceNumber: string };
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

/** One tax rate's total: "VAT France 20%", "USt. Deutschland 19 %"; `refunded` on a credit note. */
export interface TaxTotal {
  /** The tax's kind as the order stores it (vat, gst, hst, pst, qst, sales_tax, …), or null for "Tax". */
  kind: string | null;
  jurisdiction: string | null;
  /** The rate as a fraction (0.2), null when the amount is not one rate's (the rest of the order's tax). */
  rate: number | null;
  reverseCharge: boolean;
  refunded?: boolean;
  amount: number;
}

export interface InvoiceDocumentData {
  kind: "invoice" | "credit_note";
  /** The language the document is written in (the customer's, else the organization's default, else English). */
  locale: AnyLocale;
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
  /**
   * An amount under the processor's minimum charge: carried from this order to the customer's next one (`out`,
   * "Carried to your next invoice"), or collected with this one from the previous (`in`); minor units, ≥ 0.
   */
  carried: { out: number; in: number };
  /** The order's status (paid, partially_refunded, refunded, pending). */
  status: string;
  /** An invoice with terms (send_invoice): the date its payment is due, and the buyer's purchase order number. */
  dueDate?: Date | null;
  purchaseOrder?: string | null;
  /** How the order was paid ("Visa ending in 4242"), when a charge paid it. */
  paymentMethod: { method: string; brand: string | null; last4: string | null } | null;
  /** The tax note of the sale (a reverse charge's legal note, stored in English, said in the document's language). */
  taxNote: string | null;
  pricesIncludeTax: boolean;
  /** A credit note's refund (its amounts are the document's totals: net = refunded before tax, tax = tax refunded). */
  credit: { reason: string } | null;
}

/** The English legal notes the tax computation stores (server/billing/tax/compute.ts), by their catalog message. */
const NOTES: Record<string, InvoiceMessageId> = {
  "Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).": "note.euReverseCharge",
  "Reverse charge: the recipient, a registered business, accounts for the tax.": "note.reverseCharge",
};

/** A status or refund reason in the document's language: its catalog message (`status.paid`), else the key as is. */
function said(s: InvoiceSpeaker, group: "status" | "reason", key: string): string {
  const id = `${group}.${key}`;
  return id in INVOICE_CATALOGS.en ? s.t(id as InvoiceMessageId) : key;
}

/** A tax's place in the document's language: "FR" → "France", "US-CA" → "United States (CA)" (Intl's region names). */
function taxPlace(s: InvoiceSpeaker, jurisdiction: string | null): string | null {
  if (!jurisdiction) return null;
  const [country, subdivision] = jurisdiction.split("-", 2);
  if (!country || !/^[A-Za-z]{2}$/.test(country)) return jurisdiction;
  return subdivision ? `${s.country(country)} (${subdivision})` : s.country(country);
}

/** "VAT France 20%", "Tax (reverse charge) 0%": the rate's kind, place and percentage in the document's language. */
export function taxLabel(s: InvoiceSpeaker, t: Pick<TaxTotal, "kind" | "jurisdiction" | "rate" | "reverseCharge">): string {
  const kind = !t.kind ? s.t("tax.tax") : t.kind.toLowerCase() === "vat" ? s.t("tax.vat") : t.kind.toUpperCase();
  const percent = t.rate === null ? null : new Intl.NumberFormat(s.intlLocale, { style: "percent", maximumFractionDigits: 4 }).format(t.reverseCharge ? 0 : t.rate);
  return [kind, taxPlace(s, t.jurisdiction), t.reverseCharge ? s.t("tax.reverseCharge") : null, percent].filter(Boolean).join(" ");
}

/**
 * A line's description in the document's language: a credit note's refund from the invoices' catalog; a line till
 * wrote (metered, proration, wallet top-up) from its facts, in the words the receipt emails use too
 * (server/i18n/lines); else its stored label.
 */
function lineText(s: InvoiceSpeaker, l: InvoiceLine, currency: string): string {
  if (l.refund) return s.t("line.refund", { product: l.refund.product ?? s.t("line.refundOf"), number: l.refund.invoiceNumber });
  return lineFromFacts(s.locale, l, currency) ?? l.description;
}

function paymentText(s: InvoiceSpeaker, p: NonNullable<InvoiceDocumentData["paymentMethod"]>): string {
  if (!p.brand || !p.last4) return p.method;
  const brand = p.brand === "amex" ? "American Express" : p.brand.charAt(0).toUpperCase() + p.brand.slice(1);
  return s.t("payment.card", { brand, last4: p.last4 });
}

// ---- fonts -------------------------------------------------------------------------------------------

const require = createRequire(import.meta.url);
const FONTS = {
  "Noto Sans": ["@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf", "@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf"],
  "Noto Sans JP": ["@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf", "@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf"],
} as const;
let registered = false;
function registerFonts(): void {
  if (registered) return;
  for (const [family, [regular, bold]] of Object.entries(FONTS)) {
    Font.register({ family, fonts: [{ src: require.resolve(regular) }, { src: require.resolve(bold), fontWeight: 700 }] });
  }
  registered = true;
}

/** The characters of Windows-1252 beyond Latin-1 (the standard fonts' encoding). */
const WIN_ANSI_EXTRA = new Set([..."€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"]);
const CJK = /[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

/** The font family whose glyphs cover `text`: Helvetica when it can, else Noto Sans, or Noto Sans JP for Japanese. */
export function fontFor(locale: AnyLocale, text: string): { regular: string[]; bold: string[] } {
  // Noto Sans JP has no Polish letters: Noto Sans stands behind it, glyph by glyph
  if (locale === "ja" || CJK.test(text)) return { regular: ["Noto Sans JP", "Noto Sans"], bold: ["Noto Sans JP", "Noto Sans"] };
  for (const ch of text) {
    if (ch.codePointAt(0)! > 0xff && !WIN_ANSI_EXTRA.has(ch)) return { regular: ["Noto Sans"], bold: ["Noto Sans"] };
  }
  return { regular: ["Helvetica"], bold: ["Helvetica-Bold"] };
}

/**
 * A paragraph that may wrap. react-pdf breaks lines only at spaces, and Japanese has none: there the text is cut
 * into Intl.Segmenter's words, laid out as a wrapping row, so a long note or product name breaks between words.
 */
function Flow({ text, style }: { text: string; style?: Style }) {
  if (!CJK.test(text)) return <Text style={style}>{text}</Text>;
  const words = [...new Intl.Segmenter("ja", { granularity: "word" }).segment(text)].map((w) => w.segment);
  return (
    <View style={[{ flexDirection: "row", flexWrap: "wrap" }, ...(style ? [style] : [])]}>
      {words.map((w, i) => (
        <Text key={i}>{w}</Text>
      ))}
    </View>
  );
}

const styles = StyleSheet.create({
  page: { padding: 40, fontSize: 10, color: "#111" },
  title: { fontSize: 20, marginBottom: 4 },
  muted: { color: "#555" },
  row: { flexDirection: "row", justifyContent: "space-between" },
  parties: { flexDirection: "row", justifyContent: "space-between", marginTop: 24, marginBottom: 24 },
  party: { width: "48%" },
  label: { marginBottom: 4 },
  tableHead: { flexDirection: "row", borderBottomWidth: 1, borderBottomColor: "#999", paddingBottom: 4 },
  tableRow: { flexDirection: "row", borderBottomWidth: 0.5, borderBottomColor: "#ddd", paddingVertical: 4 },
  colDesc: { width: "52%" },
  colQty: { width: "12%", textAlign: "right" },
  colUnit: { width: "18%", textAlign: "right" },
  colAmount: { width: "18%", textAlign: "right" },
  totals: { marginTop: 12, marginLeft: "50%" },
  totalRow: { flexDirection: "row", justifyContent: "space-between", paddingVertical: 2 },
  grand: { borderTopWidth: 1, borderTopColor: "#999", paddingTop: 4, marginTop: 2 },
  note: { marginTop: 20, padding: 8, borderWidth: 0.5, borderColor: "#999" },
  status: { marginTop: 16 },
});

/** What a document's parts share: its speaker, its currency and its bold face. */
interface Ctx {
  s: InvoiceSpeaker;
  currency: string;
  bold: { fontFamily: string[]; fontWeight?: 700 };
}

function Party({ title, party, ctx }: { title: string; party: InvoiceParty; ctx: Ctx }) {
  return (
    <View style={styles.party}>
      <Text style={[styles.label, ctx.bold]}>{title}</Text>
      <Text>{party.name}</Text>
      {party.address.map((line, i) => (
        <Text key={i}>{line}</Text>
      ))}
      {party.email ? <Text>{party.email}</Text> : null}
      {party.taxId ? <Text>{ctx.s.t("party.taxId", { id: party.taxId })}</Text> : null}
    </View>
  );
}

function Total({ label, amount, ctx, grand }: { label: string; amount: number; ctx: Ctx; grand?: boolean }) {
  return (
    <View style={grand ? [styles.totalRow, styles.grand, ctx.bold] : styles.totalRow}>
      <Text>{label}</Text>
      <Text>{ctx.s.money(amount, ctx.currency)}</Text>
    </View>
  );
}

function Lines({ d, ctx }: { d: InvoiceDocumentData; ctx: Ctx }) {
  const { s } = ctx;
  const money = (n: number) => s.money(n, d.currency);
  return (
    <>
      <View style={[styles.tableHead, ctx.bold]}>
        <Text style={styles.colDesc}>{s.t("col.description")}</Text>
        <Text style={styles.colQty}>{s.t("col.quantity")}</Text>
        <Text style={styles.colUnit}>{s.t("col.unitPrice")}</Text>
        <Text style={styles.colAmount}>{s.t("col.amount")}</Text>
      </View>
      {d.lines.map((l, i) => (
        <View key={i} style={styles.tableRow} wrap={false}>
          <View style={styles.colDesc}>
            <Flow text={lineText(s, l, d.currency)} />
            {l.period ? <Text style={styles.muted}>{s.t("line.servicePeriod", { start: s.date(l.period.start), end: s.date(l.period.end) })}</Text> : null}
          </View>
          <Text style={styles.colQty}>{s.number(l.quantity)}</Text>
          <Text style={styles.colUnit}>{typeof l.unitAmount === "string" ? s.unitAmount(l.unitAmount, d.currency) : money(l.unitAmount)}</Text>
          <Text style={styles.colAmount}>{money(l.amount)}</Text>
        </View>
      ))}
    </>
  );
}

function Totals({ d, ctx }: { d: InvoiceDocumentData; ctx: Ctx }) {
  const { s } = ctx;
  const credit = d.kind === "credit_note";
  const taxText = (t: TaxTotal) => {
    const label = t.kind === null && t.rate === null ? s.t("total.tax") : taxLabel(s, t);
    if (!t.refunded) return label;
    return t.kind === null && t.rate === null ? s.t("total.taxRefunded") : s.t("total.rateRefunded", { label });
  };
  return (
    <View style={styles.totals} wrap={false}>
      <Total label={s.t("total.subtotal")} amount={d.subtotal} ctx={ctx} />
      {d.discount > 0 ? <Total label={d.discountName ? s.t("total.discountNamed", { name: d.discountName }) : s.t("total.discount")} amount={-d.discount} ctx={ctx} /> : null}
      <Total label={s.t("total.net")} amount={d.net} ctx={ctx} />
      {d.taxes.map((t, i) => (
        <Total key={i} label={taxText(t)} amount={t.amount} ctx={ctx} />
      ))}
      {d.taxes.length === 0 ? <Total label={s.t("total.tax")} amount={d.tax} ctx={ctx} /> : null}
      <Total label={credit ? s.t("total.credited") : s.t("total.total")} amount={d.total} ctx={ctx} grand />
      {d.walletApplied > 0 ? <Total label={s.t("total.wallet")} amount={-d.walletApplied} ctx={ctx} /> : null}
      {d.walletApplied > 0 ? <Total label={s.t("total.charged")} amount={d.total - d.walletApplied} ctx={ctx} /> : null}
      {d.carried.out > 0 ? <Total label={s.t("total.carriedOut")} amount={-d.carried.out} ctx={ctx} /> : null}
      {d.carried.in > 0 ? <Total label={s.t("total.carriedIn")} amount={d.carried.in} ctx={ctx} /> : null}
      {d.carried.out > 0 || d.carried.in > 0 ? <Total label={s.t("total.charged")} amount={Math.max(0, d.total - d.carried.out + d.carried.in - d.walletApplied)} ctx={ctx} /> : null}
    </View>
  );
}

/**
 * Every text of the document that is not the invoices' catalog's: what decides whether the standard font has the
 * glyphs. The lines count as printed (a line from its facts is in the lines' catalog: "Doładowanie portfela").
 */
const dataText = (d: InvoiceDocumentData, s: InvoiceSpeaker) =>
  [d.seller, d.buyer]
    .flatMap((p) => [p.name, ...p.address, p.email ?? "", p.taxId ?? ""])
    .concat(d.lines.map((l) => lineText(s, l, d.currency)), d.discountName ?? "", d.purchaseOrder ?? "")
    .join("\n");

export function InvoiceDocument({ d }: { d: InvoiceDocumentData }) {
  const s = invoiceSpeaker(d.locale);
  const credit = d.kind === "credit_note";
  const title = credit ? s.t("title.creditNote") : s.t("title.invoice");
  // the catalog's words and Intl's formats count too (Polish letters; French groups digits with U+202F)
  const font = fontFor(d.locale, [dataText(d, s), ...Object.values(INVOICE_CATALOGS[d.locale === PSEUDO_LOCALE ? "en" : d.locale]), s.money(-1234567, d.currency), s.date(d.date)].join("\n"));
  const bold = font.bold[0] === font.regular[0] ? { fontFamily: font.bold, fontWeight: 700 as const } : { fontFamily: font.bold };
  const ctx: Ctx = { s, currency: d.currency, bold };
  const note = d.taxNote ? (NOTES[d.taxNote] ? s.t(NOTES[d.taxNote]!) : d.taxNote) : null;
  return (
    <Document title={`${title} ${d.number}`} author={d.seller.name} creator="till" producer="till" language={s.intlLocale}>
      <Page size="A4" style={[styles.page, { fontFamily: font.regular }]}>
        <View style={styles.row}>
          <View>
            <Text style={[styles.title, bold]}>{title}</Text>
            <Text>{credit ? s.t("head.creditNoteNumber", { number: d.number }) : s.t("head.invoiceNumber", { number: d.number })}</Text>
            <Text>{credit ? s.t("head.issueDate", { date: s.date(d.date) }) : s.t("head.invoiceDate", { date: s.date(d.date) })}</Text>
            {!credit && d.dueDate ? <Text>{s.t("head.dueDate", { date: s.date(d.dueDate) })}</Text> : null}
            {!credit && d.purchaseOrder ? <Text>{s.t("head.purchaseOrder", { po: d.purchaseOrder })}</Text> : null}
            {d.invoiceRef ? <Text>{s.t("head.credits", { number: d.invoiceRef.number, date: s.date(d.invoiceRef.date) })}</Text> : null}
            <Text>{s.t("head.currency", { currency: d.currency.toUpperCase() })}</Text>
          </View>
        </View>

        <View style={styles.parties}>
          <Party title={s.t("party.from")} party={d.seller} ctx={ctx} />
          <Party title={s.t("party.billTo")} party={d.buyer} ctx={ctx} />
        </View>

        <Lines d={d} ctx={ctx} />
        <Totals d={d} ctx={ctx} />

        <Text style={[styles.status, bold]}>
          {credit
            ? s.t("refund.line", { amount: s.money(d.total, d.currency), reason: said(s, "reason", d.credit?.reason ?? "refund") })
            : s.t("status.line", { status: said(s, "status", d.status) })}
        </Text>
        {d.paymentMethod ? <Text>{credit ? s.t("refund.to", { method: paymentText(s, d.paymentMethod) }) : s.t("payment.method", { method: paymentText(s, d.paymentMethod) })}</Text> : null}
        {d.pricesIncludeTax ? <Text style={styles.muted}>{s.t("note.pricesIncludeTax")}</Text> : null}
        {note ? (
          <View style={styles.note}>
            <Flow text={note} />
          </View>
        ) : null}
      </Page>
    </Document>
  );
}

/** The PDF's bytes. */
export async function renderInvoicePdf(d: InvoiceDocumentData): Promise<Buffer> {
  registerFonts();
  return renderToBuffer(<InvoiceDocument d={d} />);
}
