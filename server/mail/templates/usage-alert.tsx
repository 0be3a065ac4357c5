// A usage alert's email (till's own, issue 29 §2): to the seller's owners ("Jane Doe reached 80% of the cap on
// API calls") or to the customer ("You reached …"), with the period's usage against its credits and cap.
import { Heading, Text } from "@react-email/components";
import { z } from "zod";
import { Layout, heading, paragraph } from "./layout.js";
import { date, money, type MailContext } from "./data.js";

export const UsageAlertData = z.object({
  audience: z.enum(["seller", "customer"]),
  alert: z.object({ kind: z.string(), threshold: z.number() }),
  customer: z.object({ email: z.string().nullish(), name: z.string().nullish(), external_id: z.string().nullish() }),
  meter: z.object({ name: z.string() }),
  period_start: z.string(),
  period_end: z.string(),
  consumed_units: z.number(),
  credited_units: z.number(),
  amount: z.number(),
  cap_amount: z.number().nullish(),
  currency: z.string(),
});
export type UsageAlertData = z.output<typeof UsageAlertData>;

const units = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 6 });

/** "80% of the cap", "10,000 units", "$50.00", "90% of the credits". */
export function thresholdText(a: UsageAlertData): string {
  const t = a.alert.threshold;
  switch (a.alert.kind) {
    case "amount":
      return money(t, a.currency);
    case "credits_percent":
      return `${units(t)}% of the credits`;
    case "cap_percent":
      return `${units(t)}% of the spending cap`;
    default:
      return `${units(t)} units`;
  }
}

export const usageAlertSubject = (a: UsageAlertData) =>
  a.audience === "customer"
    ? `You reached ${thresholdText(a)} on ${a.meter.name}`
    : `${a.customer.name ?? a.customer.email ?? "A customer"} reached ${thresholdText(a)} on ${a.meter.name}`;

export function UsageAlert({ alert: a, ctx }: { alert: UsageAlertData; ctx: MailContext }) {
  const who = a.audience === "customer" ? "Your usage" : `The usage of ${a.customer.name ?? a.customer.email ?? "a customer"}${a.customer.email && a.customer.name ? ` (${a.customer.email})` : ""}`;
  return (
    <Layout ctx={ctx} preview={usageAlertSubject(a)}>
      <Heading style={heading}>{a.meter.name}: {thresholdText(a)} reached</Heading>
      <Text style={paragraph}>
        {who} of {a.meter.name} reached {thresholdText(a)} in the period from {date(a.period_start)} to {date(a.period_end)}.
      </Text>
      <Text style={paragraph}>
        Used so far: {units(a.consumed_units)}
        {a.credited_units > 0 ? ` of ${units(a.credited_units)} credited` : ""}; usage charges so far: {money(a.amount, a.currency)}
        {a.cap_amount != null ? ` (capped at ${money(a.cap_amount, a.currency)}: usage beyond the cap is not billed)` : ""}.
      </Text>
    </Layout>
  );
}
