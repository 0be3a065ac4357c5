// The buyer's notice of a payment refunded in full because it came for an order already paid another way (till's own,
// billing/dunning/duplicate.ts): how much, for which order, and where the money went — a bank transfer's back to
// the balance the customer's transfers are credited to with the seller's processor, anything else to the payment
// method it came from.
import { Heading } from "@react-email/heading";
import { Text } from "@react-email/text";
import { z } from "zod";
import { Layout, PortalButton, heading, paragraph } from "./layout.js";
import { productName, type MailContext } from "./data.js";

export const DuplicateRefundedData = z.object({
  amount: z.number().int(),
  currency: z.string(),
  method: z.enum(["bank_transfer", "bank_debit", "payment"]),
  order: z.object({ id: z.string(), invoice_number: z.string().nullish(), product: z.object({ name: z.string() }).nullish(), total_amount: z.number().int() }),
});
export type DuplicateRefundedData = z.output<typeof DuplicateRefundedData>;

function values(d: DuplicateRefundedData, ctx: MailContext) {
  return {
    amount: ctx.i18n.money(d.amount, d.currency),
    product: productName(ctx.i18n, d.order.product),
    hasNumber: d.order.invoice_number ? "yes" : "no",
    number: d.order.invoice_number ?? "",
    sender: ctx.sender.name,
    method: d.method,
  };
}

export const duplicateRefundedSubject = (d: DuplicateRefundedData, ctx: MailContext) => ctx.i18n.t("duplicate.subject", values(d, ctx));

export function DuplicateRefunded({ data: d, ctx }: { data: DuplicateRefundedData; ctx: MailContext }) {
  const { i18n } = ctx;
  return (
    <Layout ctx={ctx} preview={duplicateRefundedSubject(d, ctx)}>
      <Heading style={heading}>{i18n.t("duplicate.heading")}</Heading>
      <Text style={paragraph}>{i18n.t("duplicate.body", values(d, ctx))}</Text>
      <Text style={paragraph}>{i18n.t("duplicate.where", values(d, ctx))}</Text>
      <PortalButton ctx={ctx} label={i18n.t("order.button")} />
    </Layout>
  );
}
