// The seller's notices of a dispute (chargeback) of one of their orders, sent to the organization's owners: one
// when it opens (what is disputed, why, and by when Stripe needs evidence), one when it closes won or lost.
import { Body, Container, Head, Heading, Html, Preview, Text } from "@react-email/components";
import { z } from "zod";
import { date, money, type MailContext } from "./data.js";
import { heading, paragraph } from "./layout.js";

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

const body = { backgroundColor: "#f6f7f9", fontFamily: "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", color: "#1f2328" };
const card = { backgroundColor: "#ffffff", borderRadius: "8px", margin: "24px auto", padding: "24px 32px", maxWidth: "560px" };

const total = (d: DisputeData) => money(d.amount + d.tax_amount, d.currency);
const what = (d: DisputeData) => `${d.order.product?.name ?? "an order"}${d.order.invoice_number ? ` (${d.order.invoice_number})` : ""}`;

export const disputeSubject = (d: DisputeData, closed: boolean) =>
  closed ? `Dispute ${d.status}: ${total(d)} for ${what(d)}` : `A customer disputed ${total(d)} for ${what(d)}`;

export function DisputeNotice({ dispute: d, ctx, closed }: { dispute: DisputeData; ctx: MailContext; closed: boolean }) {
  const subject = disputeSubject(d, closed);
  return (
    <Html lang="en">
      <Head />
      <Preview>{subject}</Preview>
      <Body style={body}>
        <Container style={card}>
          <Heading style={heading}>{subject}</Heading>
          {closed ? (
            <Text style={paragraph}>
              {d.status === "lost"
                ? `The dispute is lost: ${total(d)} went back to the customer, the order is marked refunded and its benefits are revoked.`
                : d.status === "won"
                  ? `The dispute is won: the ${total(d)} withdrawn when it opened is returned to your Stripe balance.`
                  : `The dispute is closed (${d.status}).`}
            </Text>
          ) : (
            <Text style={paragraph}>
              {d.order.customer_email ?? "A customer"} disputed a payment to {ctx.sender.name}
              {d.reason ? ` (reason: ${d.reason.replace(/_/g, " ")})` : ""}. Stripe withdrew {total(d)} from your balance while the dispute lasts.
              {d.evidence_due_by ? ` Respond with evidence in your Stripe dashboard by ${date(d.evidence_due_by)}, or accept it.` : " Respond in your Stripe dashboard."}
            </Text>
          )}
          <Text style={paragraph}>
            Order {d.order.id} · dispute {d.id} (till disputes get {d.id})
          </Text>
        </Container>
      </Body>
    </Html>
  );
}
