// A trial without a card about to end (till's own, issue 29 §4): the customer learns when the trial ends, what it
// will cost after, and that a payment method added in the portal keeps the subscription going.
import { Button, Heading, Section, Text } from "@react-email/components";
import { z } from "zod";
import { Layout, button, heading, paragraph } from "./layout.js";
import { date, money, type MailContext } from "./data.js";

export const TrialEndingData = z.object({
  subscription_id: z.string(),
  trial_end: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  product: z.object({ name: z.string() }),
});
export type TrialEndingData = z.output<typeof TrialEndingData>;

export const trialEndingSubject = (t: TrialEndingData) => `Your trial of ${t.product.name} ends on ${date(t.trial_end)}`;

export function TrialEnding({ t, ctx }: { t: TrialEndingData; ctx: MailContext }) {
  return (
    <Layout ctx={ctx} preview={trialEndingSubject(t)}>
      <Heading style={heading}>Your trial ends soon</Heading>
      <Text style={paragraph}>
        Your trial of {t.product.name} ends on {date(t.trial_end)}. To keep your subscription ({money(t.amount, t.currency)} per period) after that, add a
        payment method in your customer portal; without one, the subscription does not continue.
      </Text>
      <Section style={{ margin: "16px 0" }}>
        <Button href={ctx.portalUrl} style={button}>
          Add a payment method
        </Button>
      </Section>
      <Text style={paragraph}>Your customer portal: {ctx.portalUrl}</Text>
    </Layout>
  );
}
