// The seller's notice of a payment Stripe could not process for a reason that is not the customer's (a request it
// refused, a revoked key, a customer deleted in Stripe, an outage): what Stripe said, that nothing was charged and
// the customer was not dunned, and where to look again. Sent to the organization's owners, at most once a day.
import { z } from "zod";
import type { MailContext } from "./data.js";
import { SellerNotice } from "./seller-notice.js";

export const ProcessorErrorData = z.object({ code: z.string(), detail: z.string(), transient: z.boolean(), what: z.string(), id: z.string(), at: z.string() });
export type ProcessorErrorData = z.output<typeof ProcessorErrorData>;

export const processorErrorSubject = (ctx: MailContext) => ctx.i18n.t("processorError.subject", { sender: ctx.sender.name });

export function ProcessorErrorNotice({ e, ctx }: { e: ProcessorErrorData; ctx: MailContext }) {
  const { i18n } = ctx;
  const paragraphs = [
    i18n.t("processorError.body", { code: e.code, date: i18n.date(e.at) }),
    i18n.t("processorError.said", { detail: e.detail }),
    i18n.t(e.transient ? "processorError.transient" : "processorError.fix"),
    i18n.t("processorError.status", { what: e.what, id: e.id }),
  ];
  return <SellerNotice subject={processorErrorSubject(ctx)} paragraphs={paragraphs} ctx={ctx} />;
}
