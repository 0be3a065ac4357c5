// The buyer's notice of a refund the processor completed (customer_email_settings.order_refunded): how much came
// back for which order, where it went (the card paid with, the wallet, or both), and, after a partial refund, how
// much of the order has been refunded in all.
import { Heading } from "@react-email/heading";
import { Text } from "@react-email/text";
import { z } from "zod";
import { Layout, PortalButton, heading, paragraph } from "./layout.js";
import { productName, type MailContext } from "./data.js";

export const OrderRefundedData = z.object({
  refund: z.object({ id: z.string(), amount: z.number().int(), tax_amount: z.number().int(), currency: z.string() }),
  order: z.object({
    id: z.string(),
    invoice_number: z.string().nullish(),
    product: z.object({ name: z.string() }).nullish(),
    total_amount: z.number().int(),
    refunded_amount: z.number().int(),
    refunded_tax_amount: z.number().int(),
  }),
  /** What of the refund went to the customer's wallet (the rest went to the card). */
  to_wallet: z.number().int().default(0),
});
export type OrderRefundedData = z.output<typeof OrderRefundedData>;

const gross = (d: OrderRefundedData) => d.refund.amount + d.refund.tax_amount;

function values(d: OrderRefundedData, ctx: MailContext) {
  const m = (v: number) => ctx.i18n.money(v, d.refund.currency);
  return {
    amount: m(gross(d)),
    product: productName(ctx.i18n, d.order.product),
    hasNumber: d.order.invoice_number ? "yes" : "no",
    number: d.order.invoice_number ?? "",
    sender: ctx.sender.name,
  };
}

export const orderRefundedSubject = (d: OrderRefundedData, ctx: MailContext) => ctx.i18n.t("refunded.subject", values(d, ctx));

export function OrderRefunded({ data: d, ctx }: { data: OrderRefundedData; ctx: MailContext }) {
  const { i18n } = ctx;
  const m = (v: number) => i18n.money(v, d.refund.currency);
  const toWallet = Math.min(Math.max(0, d.to_wallet), gross(d));
  const toCard = gross(d) - toWallet;
  const where = toWallet === 0 ? "card" : toCard === 0 ? "wallet" : "both";
  const refundedInAll = d.order.refunded_amount + d.order.refunded_tax_amount;
  return (
    <Layout ctx={ctx} preview={orderRefundedSubject(d, ctx)}>
      <Heading style={heading}>{i18n.t("refunded.heading")}</Heading>
      <Text style={paragraph}>{i18n.t("refunded.body", values(d, ctx))}</Text>
      <Text style={paragraph}>{i18n.t("refunded.where", { where, card: m(toCard), wallet: m(toWallet) })}</Text>
      {refundedInAll < d.order.total_amount ? <Text style={paragraph}>{i18n.t("refunded.partial", { refunded: m(refundedInAll), total: m(d.order.total_amount) })}</Text> : null}
      <PortalButton ctx={ctx} label={i18n.t("order.button")} />
    </Layout>
  );
}
