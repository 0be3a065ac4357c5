// An invoice with terms (till's own): issued unpaid with its due date, the buyer's purchase order number and the
// link to its hosted pay page; the reminder before the due date, and the one a week after it (overdue) beside the
// organization's dunning.
import { Button } from "@react-email/button";
import { Heading } from "@react-email/heading";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { Layout, button, heading, paragraph } from "./layout.js";
import { Receipt } from "./receipt.js";
import { productName, type MailContext, type OrderData } from "./data.js";

interface Props {
  order: OrderData;
  ctx: MailContext;
}

const values = (o: OrderData, ctx: MailContext) => ({
  sender: ctx.sender.name,
  number: o.invoice_number ?? "",
  amount: ctx.i18n.money(o.total_amount, o.currency),
  date: o.due_at ? ctx.i18n.date(o.due_at) : "",
  product: productName(ctx.i18n, o.product, "subscription"),
});

export const invoiceSubject = (o: OrderData, ctx: MailContext, reminder: boolean) =>
  ctx.i18n.t(reminder ? (o.overdue ? "invoiceOverdue.subject" : "invoiceReminder.subject") : "invoice.subject", values(o, ctx));

export function InvoiceIssued({ order, ctx, reminder }: Props & { reminder?: boolean }) {
  const { i18n } = ctx;
  const v = values(order, ctx);
  const [heading_, body] = !reminder ? (["invoice.heading", "invoice.body"] as const)
    : order.overdue ? (["invoiceOverdue.heading", "invoiceOverdue.body"] as const) : (["invoiceReminder.heading", "invoiceReminder.body"] as const);
  return (
    <Layout ctx={ctx} preview={i18n.t("invoice.preview", v)}>
      <Heading style={heading}>{i18n.t(heading_)}</Heading>
      <Text style={paragraph}>{i18n.t(body, v)}</Text>
      {order.purchase_order ? <Text style={paragraph}>{i18n.t("invoice.purchaseOrder", { po: order.purchase_order })}</Text> : null}
      <Receipt order={order} i18n={i18n} />
      {order.pay_url ? (
        <>
          <Text style={paragraph}>{i18n.t("invoice.howToPay")}</Text>
          <Section style={{ margin: "16px 0" }}>
            <Button href={order.pay_url} style={button} data-testid="pay-link">
              {i18n.t("invoice.payButton", { amount: v.amount })}
            </Button>
          </Section>
        </>
      ) : null}
    </Layout>
  );
}
