// A wallet's declined auto-recharge (till's own, issue 29 §3): the customer learns the card was declined and
// that recharging waits for a new card (or for auto-recharge to be turned on again in the portal).
import { Heading, Text } from "@react-email/components";
import { z } from "zod";
import { Layout, heading, paragraph } from "./layout.js";
import { money, type MailContext } from "./data.js";

export const RechargeFailedData = z.object({ amount: z.number(), currency: z.string(), balance: z.number(), reason: z.string().nullish() });
export type RechargeFailedData = z.output<typeof RechargeFailedData>;

export function RechargeFailed({ r, ctx }: { r: RechargeFailedData; ctx: MailContext }) {
  return (
    <Layout ctx={ctx} preview="Your wallet's auto-recharge was declined">
      <Heading style={heading}>Auto-recharge declined</Heading>
      <Text style={paragraph}>
        We tried to add {money(r.amount, r.currency)} to your wallet (balance {money(r.balance, r.currency)}), but the charge was declined
        {r.reason ? `: ${r.reason}` : "."}
      </Text>
      <Text style={paragraph}>Auto-recharge is paused until you save a new payment method in your customer portal.</Text>
    </Layout>
  );
}
