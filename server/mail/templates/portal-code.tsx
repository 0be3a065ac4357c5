// The customer portal's sign-in code: sent by the seller (as the receipts are), with the code, where to enter
// it and how long it works. Not a customer_email_settings type: a customer asked for it, it is always sent.
import { Heading, Link, Text } from "@react-email/components";
import { Layout, heading, paragraph } from "./layout.js";
import type { MailContext } from "./data.js";

const codeStyle = { fontSize: "24px", fontWeight: 600, letterSpacing: "4px", fontFamily: "ui-monospace, Menlo, Consolas, monospace", margin: "16px 0" };

export function PortalCode({ code, ctx }: { code: string; ctx: MailContext }) {
  return (
    <Layout ctx={ctx} preview={`Your code for your ${ctx.sender.name} purchases`}>
      <Heading style={heading}>Your sign-in code</Heading>
      <Text style={paragraph}>Your code to open your purchases from {ctx.sender.name} is:</Text>
      <Text style={codeStyle}>{code}</Text>
      <Text style={paragraph}>
        Enter it at <Link href={ctx.portalUrl}>{ctx.portalUrl}</Link> within 30 minutes. It works once.
      </Text>
      <Text style={paragraph}>If you did not ask for it, you can ignore this email.</Text>
    </Layout>
  );
}
