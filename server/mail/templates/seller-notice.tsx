// The frame of the seller's own notices (to the organization's owners: disputes, a refund that failed, a payment
// Stripe could not process): a heading and paragraphs, without the customer emails' portal footer.
import { Body } from "@react-email/body";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Heading } from "@react-email/heading";
import { Html } from "@react-email/html";
import { Preview } from "@react-email/preview";
import { Text } from "@react-email/text";
import type { MailContext } from "./data.js";
import { heading, paragraph } from "./layout.js";

const body = { backgroundColor: "#f6f7f9", fontFamily: "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", color: "#1f2328" };
const card = { backgroundColor: "#ffffff", borderRadius: "8px", margin: "24px auto", padding: "24px 32px", maxWidth: "560px" };

export function SellerNotice({ subject, paragraphs, ctx }: { subject: string; paragraphs: string[]; ctx: MailContext }) {
  return (
    <Html lang={ctx.i18n.intlLocale}>
      <Head />
      <Preview>{subject}</Preview>
      <Body style={body}>
        <Container style={card}>
          <Heading style={heading}>{subject}</Heading>
          {paragraphs.map((p, i) => (
            <Text key={i} style={paragraph}>
              {p}
            </Text>
          ))}
        </Container>
      </Body>
    </Html>
  );
}
