// The link that confirms a new email address for a customer (asked for in the customer portal): sent to that
// new address, so following it proves the customer reads it.
import { Button, Heading, Link, Section, Text } from "@react-email/components";
import { Layout, button, heading, paragraph } from "./layout.js";
import { date, emailUpdateUrl, type EmailUpdateData, type MailContext } from "./data.js";

export function EmailUpdate({ update: u, ctx }: { update: EmailUpdateData; ctx: MailContext }) {
  const url = emailUpdateUrl(ctx.portalUrl, u.token);
  return (
    <Layout ctx={ctx} preview={`Confirm ${u.email} for your ${ctx.sender.name} purchases`}>
      <Heading style={heading}>Confirm your new email address</Heading>
      <Text style={paragraph}>
        You asked to use {u.email} for your purchases from {ctx.sender.name}. Confirm it to make the change.
      </Text>
      <Section style={{ margin: "16px 0" }}>
        <Button href={url} style={button}>
          Confirm {u.email}
        </Button>
      </Section>
      <Text style={paragraph}>
        Or open this link: <Link href={url}>{url}</Link>
      </Text>
      <Text style={paragraph}>This link works once and expires on {date(u.expires_at)}. If you did not ask for it, you can ignore this email.</Text>
    </Layout>
  );
}
