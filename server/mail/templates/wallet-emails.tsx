// A wallet's declined auto-recharge (till's own): the customer learns the card was declined and
// that recharging waits for a new card (or for auto-recharge to be turned on again in the portal).
import { Heading } from "@react-email/heading";
import { Text } from "@react-email/text";
import { z } from "zod";
import { Layout, heading, paragraph } from "./layout.js";
import type { MailContext } from "./data.js";

export const RechargeFailedData = z.object({ amount: z.number(), currency: z.string(), balance: z.number(), reason: z.string().nullish() });
export type RechargeFailedData = z.output<typeof RechargeFailedData>;

export function RechargeFailed({ r, ctx }: { r: RechargeFailedData; ctx: MailContext }) {
  const { i18n } = ctx;
  const values = { amount: i18n.money(r.amount, r.currency), balance: i18n.money(r.balance, r.currency), hasReason: r.reason ? "yes" : "no", reason: r.reason ?? "" };
  return (
    <Layout ctx={ctx} preview={i18n.t("wallet.subject")}>
      <Heading style={heading}>{i18n.t("wallet.heading")}</Heading>
      <Text style={paragraph}>{i18n.t("wallet.body", values)}</Text>
      <Text style={paragraph}>{i18n.t("wallet.paused")}</Text>
    </Layout>
  );
}
