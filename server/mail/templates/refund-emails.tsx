// The seller's notice of a refund the processor failed or canceled after accepting it (Stripe fails a card refund
// the issuer refuses — a closed or lost card — days after answering it pending or even succeeded), sent to the
// organization's owners: the money did not go back, the order is paid again as it was, and what to do about it.
import { Body } from "@react-email/body";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Heading } from "@react-email/heading";
import { Html } from "@react-email/html";
import { Preview } from "@react-email/preview";
import { Text } from "@react-email/text";
import { z } from "zod";
import type { MailContext } from "./data.js";
import { heading, paragraph } from "./layout.js";

export const RefundFailedData = z.object({
  refund: z.object({
    id: z.string(),
    status: z.string(),
    amount: z.number().int(),
    tax_amount: z.number().int(),
    currency: z.string(),
    failure_reason: z.string().nullish(),
  }),
  order: z.object({
    id: z.string(),
    invoice_number: z.string().nullish(),
    product: z.object({ name: z.string() }).nullish(),
    customer_email: z.string().nullish(),
  }),
  benefits_granted_again: z.number().int().default(0),
});
export type RefundFailedData = z.output<typeof RefundFailedData>;

const body = { backgroundColor: "#f6f7f9", fontFamily: "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", color: "#1f2328" };
const card = { backgroundColor: "#ffffff", borderRadius: "8px", margin: "24px auto", padding: "24px 32px", maxWidth: "560px" };

const total = (d: RefundFailedData, ctx: MailContext) => ctx.i18n.money(d.refund.amount + d.refund.tax_amount, d.refund.currency);
const what = (d: RefundFailedData, ctx: MailContext) =>
  ctx.i18n.t("dispute.what", {
    product: d.order.product?.name ?? ctx.i18n.t("dispute.anOrder"),
    hasNumber: d.order.invoice_number ? "yes" : "no",
    number: d.order.invoice_number ?? "",
  });

export const refundFailedSubject = (d: RefundFailedData, ctx: MailContext) =>
  ctx.i18n.t("refundFailed.subject", { status: d.refund.status, amount: total(d, ctx), what: what(d, ctx) });

export function RefundFailedNotice({ data: d, ctx }: { data: RefundFailedData; ctx: MailContext }) {
  const { i18n } = ctx;
  const subject = refundFailedSubject(d, ctx);
  const text = i18n.t("refundFailed.body", {
    status: d.refund.status,
    amount: total(d, ctx),
    who: d.order.customer_email ?? i18n.t("dispute.aCustomer"),
    hasReason: d.refund.failure_reason ? "yes" : "no",
    reason: d.refund.failure_reason?.replace(/_/g, " ") ?? "",
    regranted: d.benefits_granted_again > 0 ? "yes" : "no",
  });
  return (
    <Html lang={i18n.intlLocale}>
      <Head />
      <Preview>{subject}</Preview>
      <Body style={body}>
        <Container style={card}>
          <Heading style={heading}>{subject}</Heading>
          <Text style={paragraph}>{text}</Text>
          <Text style={paragraph}>{i18n.t("refundFailed.next")}</Text>
          <Text style={paragraph}>{i18n.t("refundFailed.ids", { order: d.order.id, refund: d.refund.id })}</Text>
        </Container>
      </Body>
    </Html>
  );
}
