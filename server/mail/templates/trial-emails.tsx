// A trial without a card about to end (till's own): the customer learns when the trial ends, what it
// will cost after, and that a payment method added in the portal keeps the subscription going.
import { Heading } from "@react-email/heading";
import { Text } from "@react-email/text";
import { z } from "zod";
import { Layout, PortalButton, heading, paragraph } from "./layout.js";
import type { MailContext } from "./data.js";

export const TrialEndingData = z.object({
  subscription_id: z.string(),
  trial_end: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  product: z.object({ name: z.string() }),
});
export type TrialEndingData = z.output<typeof TrialEndingData>;

export const trialEndingSubject = (t: TrialEndingData, ctx: MailContext) => ctx.i18n.t("trial.subject", { product: t.product.name, date: ctx.i18n.date(t.trial_end) });

export function TrialEnding({ t, ctx }: { t: TrialEndingData; ctx: MailContext }) {
  const { i18n } = ctx;
  return (
    <Layout ctx={ctx} preview={trialEndingSubject(t, ctx)}>
      <Heading style={heading}>{i18n.t("trial.heading")}</Heading>
      <Text style={paragraph}>{i18n.t("trial.body", { product: t.product.name, date: i18n.date(t.trial_end), amount: i18n.money(t.amount, t.currency) })}</Text>
      <PortalButton ctx={ctx} label={i18n.t("trial.button")} />
    </Layout>
  );
}
