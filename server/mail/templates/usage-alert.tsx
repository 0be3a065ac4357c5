// A usage alert's email (till's own): to the seller's owners ("Jane Doe reached 80% of the cap on
// API calls") or to the customer ("You reached …"), with the period's usage against its credits and cap.
import { Heading } from "@react-email/heading";
import { Text } from "@react-email/text";
import { z } from "zod";
import { Layout, heading, paragraph } from "./layout.js";
import type { MailContext } from "./data.js";

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

/** "80% of the cap", "10,000 units", "$50.00", "90% of the credits", "a balance of 0 units", in the message's
 * language. */
export function thresholdText(a: UsageAlertData, ctx: MailContext): string {
  const { i18n } = ctx;
  const t = a.alert.threshold;
  const percent = new Intl.NumberFormat(i18n.intlLocale, { style: "percent", maximumFractionDigits: 4 }).format(t / 100);
  const kind = ["amount", "credits_percent", "cap_percent", "balance"].includes(a.alert.kind) ? a.alert.kind : "units";
  return i18n.t("usage.threshold", { kind, amount: i18n.money(t, a.currency), percent, count: t, units: i18n.number(t) });
}

const who = (a: UsageAlertData, ctx: MailContext) => {
  const name = a.customer.name ?? a.customer.email ?? ctx.i18n.t("usage.aCustomer");
  return a.customer.email && a.customer.name ? `${name} (${a.customer.email})` : name;
};

export const usageAlertSubject = (a: UsageAlertData, ctx: MailContext) =>
  ctx.i18n.t("usage.subject", { audience: a.audience, who: a.customer.name ?? a.customer.email ?? ctx.i18n.t("usage.aCustomer"), threshold: thresholdText(a, ctx), meter: a.meter.name });

export function UsageAlert({ alert: a, ctx }: { alert: UsageAlertData; ctx: MailContext }) {
  const { i18n } = ctx;
  const threshold = thresholdText(a, ctx);
  const used = {
    hasCredits: a.credited_units > 0 ? "yes" : "no",
    consumed: i18n.number(a.consumed_units),
    credited: i18n.number(a.credited_units),
    amount: i18n.money(a.amount, a.currency),
  };
  return (
    <Layout ctx={ctx} preview={usageAlertSubject(a, ctx)}>
      <Heading style={heading}>{i18n.t("usage.heading", { meter: a.meter.name, threshold })}</Heading>
      <Text style={paragraph}>
        {i18n.t("usage.body", { audience: a.audience, meter: a.meter.name, who: who(a, ctx), threshold, start: i18n.date(a.period_start), end: i18n.date(a.period_end) })}
      </Text>
      <Text style={paragraph}>
        {i18n.t("usage.used", used)}
        {a.cap_amount != null ? ` ${i18n.t("usage.cap", { cap: i18n.money(a.cap_amount, a.currency) })}` : ""}
      </Text>
    </Layout>
  );
}
