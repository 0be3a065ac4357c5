// The seller's notice of a payment Stripe could not process for a reason that is not the customer's (a request it
// refused, a revoked key, a customer deleted in Stripe, an outage): what Stripe said, that nothing was charged and
// the customer was not dunned, and where to look again. Sent to the organization's owners, at most once a day.
import { Body } from "@react-email/body";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Heading } from "@react-email/heading";
import { Html } from "@react-email/html";
import { Preview } from "@react-email/preview";
import { Text } from "@react-email/text";
import { z } from "zod";
import type { MailContext } from "./data.js";
import { heading, paragraph } from "./layout.js";

export const ProcessorErrorData = z.object({ code: z.string(), detail: z.string(), transient: z.boolean(), what: z.string(), id: z.string(), at: z.string() });
export type ProcessorErrorData = z.output<typeof ProcessorErrorData>;

export const processorErrorSubject = (ctx: MailContext) => ctx.i18n.t("processorError.subject", { sender: ctx.sender.name });

// the seller's notice, not the customer's: without the customer emails' portal footer (as the dispute notices)
const body = { backgroundColor: "#f6f7f9", fontFamily: "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", color: "#1f2328" };
const card = { backgroundColor: "#ffffff", borderRadius: "8px", margin: "24px auto", padding: "24px 32px", maxWidth: "560px" };

export function ProcessorErrorNotice({ e, ctx }: { e: ProcessorErrorData; ctx: MailContext }) {
  const { i18n } = ctx;
  const subject = processorErrorSubject(ctx);
  return (
    <Html lang={i18n.intlLocale}>
      <Head />
      <Preview>{subject}</Preview>
      <Body style={body}>
        <Container style={card}>
          <Heading style={heading}>{subject}</Heading>
          <Text style={paragraph}>{i18n.t("processorError.body", { code: e.code, date: i18n.date(e.at) })}</Text>
          <Text style={paragraph}>{i18n.t("processorError.said", { detail: e.detail })}</Text>
          <Text style={paragraph}>{i18n.t(e.transient ? "processorError.transient" : "processorError.fix")}</Text>
          <Text style={paragraph}>{i18n.t("processorError.status", { what: e.what, id: e.id })}</Text>
        </Container>
      </Body>
    </Html>
  );
}
