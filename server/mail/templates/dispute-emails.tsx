// The seller's notices of a dispute (chargeback) of one of their orders, sent to the organization's owners: one
// when it opens (what is disputed, why, and by when Stripe needs evidence), one when it closes won or lost.
import { z } from "zod";
import type { MailContext } from "./data.js";
import { SellerNotice } from "./seller-notice.js";

export const DisputeData = z.object({
  id: z.string(),
  status: z.string(),
  amount: z.number().int(),
  tax_amount: z.number().int(),
  currency: z.string(),
  reason: z.string().nullish(),
  evidence_due_by: z.string().nullish(),
  order: z.object({
    id: z.string(),
    invoice_number: z.string().nullish(),
    product: z.object({ name: z.string() }).nullish(),
    customer_email: z.string().nullish(),
  }),
});
export type DisputeData = z.output<typeof DisputeData>;

const total = (d: DisputeData, ctx: MailContext) => ctx.i18n.money(d.amount + d.tax_amount, d.currency);
const what = (d: DisputeData, ctx: MailContext) =>
  ctx.i18n.t("dispute.what", {
    product: d.order.product?.name ?? ctx.i18n.t("dispute.anOrder"),
    hasNumber: d.order.invoice_number ? "yes" : "no",
    number: d.order.invoice_number ?? "",
  });

export const disputeSubject = (d: DisputeData, closed: boolean, ctx: MailContext) =>
  closed
    ? ctx.i18n.t("dispute.closedSubject", { status: d.status, amount: total(d, ctx), what: what(d, ctx) })
    : ctx.i18n.t("dispute.openedSubject", { amount: total(d, ctx), what: what(d, ctx) });

function closedText(d: DisputeData, ctx: MailContext): string {
  if (d.status === "lost") return ctx.i18n.t("dispute.lost", { amount: total(d, ctx) });
  if (d.status === "won") return ctx.i18n.t("dispute.won", { amount: total(d, ctx) });
  return ctx.i18n.t("dispute.closed", { status: d.status });
}

function openedText(d: DisputeData, ctx: MailContext): string {
  const { i18n } = ctx;
  const opened = i18n.t("dispute.opened", {
    who: d.order.customer_email ?? i18n.t("dispute.aCustomer"),
    sender: ctx.sender.name,
    hasReason: d.reason ? "yes" : "no",
    reason: d.reason?.replace(/_/g, " ") ?? "",
    amount: total(d, ctx),
  });
  const respond = d.evidence_due_by ? i18n.t("dispute.respondBy", { date: i18n.date(d.evidence_due_by) }) : i18n.t("dispute.respond");
  return `${opened} ${respond}`;
}

export function DisputeNotice({ dispute: d, ctx, closed }: { dispute: DisputeData; ctx: MailContext; closed: boolean }) {
  const paragraphs = [closed ? closedText(d, ctx) : openedText(d, ctx), ctx.i18n.t("dispute.ids", { order: d.order.id, dispute: d.id })];
  return <SellerNotice subject={disputeSubject(d, closed, ctx)} paragraphs={paragraphs} ctx={ctx} />;
}
