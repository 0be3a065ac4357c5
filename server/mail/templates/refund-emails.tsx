// The seller's notice of a refund the processor failed or canceled after accepting it (Stripe fails a card refund
// the issuer refuses — a closed or lost card — days after answering it pending or even succeeded), sent to the
// organization's owners: the money did not go back, the order is paid again as it was, and what to do about it.
import { z } from "zod";
import type { MailContext } from "./data.js";
import { SellerNotice } from "./seller-notice.js";

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
  const paragraphs = [text, i18n.t("refundFailed.next"), i18n.t("refundFailed.ids", { order: d.order.id, refund: d.refund.id })];
  return <SellerNotice subject={subject} paragraphs={paragraphs} ctx={ctx} />;
}
