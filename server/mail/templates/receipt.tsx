// A receipt: the order's lines, subtotal, discount, tax and total as stored on the order, its invoice number
// and date, in the message's language (a metered, proration or top-up line from its facts, in the invoice's words:
// server/i18n/lines). Amounts come from the order itself, never recomputed.
import { Column } from "@react-email/column";
import { Row } from "@react-email/row";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import type { MailSpeaker } from "../i18n/index.js";
import { lineFromFacts } from "../../i18n/lines/text.js";
import { textLine, widest } from "../plain-text.js";
import type { OrderData } from "./data.js";

const cell = { fontSize: "14px", lineHeight: "22px", margin: "2px 0" };
const right = { ...cell, textAlign: "right" as const };

/** A line: its label and amount in two cells; the text part reads them as one line (plain-text.ts). */
function Line(props: { label: string; amount: string; width: { label: number; amount: number }; strong?: boolean }) {
  const weight = props.strong ? { fontWeight: 600 } : {};
  return (
    <Row {...textLine(props.label, props.amount, props.width)}>
      <Column>
        <Text style={{ ...cell, ...weight }}>{props.label}</Text>
      </Column>
      <Column>
        <Text style={{ ...right, ...weight }}>{props.amount}</Text>
      </Column>
    </Row>
  );
}

export function Receipt({ order, i18n }: { order: OrderData; i18n: MailSpeaker }) {
  const m = (v: number) => i18n.money(v, order.currency);
  const items = order.items.map((item) => ({
    label: lineFromFacts(i18n.locale, { usage: item.usage, proration: item.proration_facts, walletCredit: item.wallet_credit }, order.currency) ?? item.label,
    amount: m(item.amount),
  }));
  const totals = [
    { label: i18n.t("receipt.subtotal"), amount: m(order.subtotal_amount) },
    ...(order.discount_amount > 0 ? [{ label: i18n.t("receipt.discount"), amount: m(-order.discount_amount) }] : []),
    { label: order.reverse_charge ? i18n.t("receipt.reverseCharge", { tax: order.reverse_charge }) : i18n.t("receipt.tax"), amount: m(order.tax_amount) },
    { label: i18n.t("receipt.total"), amount: m(order.total_amount), strong: true },
  ];
  const lines = [...items, ...totals];
  const width = { label: widest(lines.map((l) => l.label)), amount: widest(lines.map((l) => l.amount)) };
  return (
    <Section style={{ border: "1px solid #d0d7de", borderRadius: "6px", padding: "8px 16px", margin: "16px 0" }}>
      <Text style={{ ...cell, color: "#656d76" }}>
        {order.invoice_number ? `${i18n.t("receipt.invoice", { number: order.invoice_number })} · ` : ""}
        {i18n.date(order.created_at)}
      </Text>
      {lines.map((line, i) => (
        <Line key={i} {...line} width={width} />
      ))}
    </Section>
  );
}
