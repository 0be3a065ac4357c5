// A receipt: the order's lines, subtotal, discount, tax and total as stored on the order, its invoice number
// and date. Amounts come from the order itself, never recomputed.
import { Column, Row, Section, Text } from "@react-email/components";
import { date, money, type OrderData } from "./data.js";

const cell = { fontSize: "14px", lineHeight: "22px", margin: "2px 0" };
const right = { ...cell, textAlign: "right" as const };

function Line(props: { label: string; amount: string; strong?: boolean }) {
  const weight = props.strong ? { fontWeight: 600 } : {};
  return (
    <Row>
      <Column>
        <Text style={{ ...cell, ...weight }}>{props.label}</Text>
      </Column>
      <Column>
        <Text style={{ ...right, ...weight }}>{props.amount}</Text>
      </Column>
    </Row>
  );
}

export function Receipt({ order }: { order: OrderData }) {
  const m = (v: number) => money(v, order.currency);
  return (
    <Section style={{ border: "1px solid #d0d7de", borderRadius: "6px", padding: "8px 16px", margin: "16px 0" }}>
      <Text style={{ ...cell, color: "#656d76" }}>
        {order.invoice_number ? `Invoice ${order.invoice_number} · ` : ""}
        {date(order.created_at)}
      </Text>
      {order.items.map((item, i) => (
        <Line key={i} label={item.label} amount={m(item.amount)} />
      ))}
      <Line label="Subtotal" amount={m(order.subtotal_amount)} />
      {order.discount_amount > 0 ? <Line label="Discount" amount={`−${m(order.discount_amount)}`} /> : null}
      <Line label={order.reverse_charge ?? "Tax"} amount={m(order.tax_amount)} />
      <Line label="Total" amount={m(order.total_amount)} strong />
    </Section>
  );
}
