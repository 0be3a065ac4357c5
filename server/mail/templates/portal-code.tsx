// The customer portal's sign-in code: sent by the seller (as the receipts are), with the code, where to enter
// it and how long it works. Not a customer_email_settings type: a customer asked for it, it is always sent.
import { Heading } from "@react-email/heading";
import { Text } from "@react-email/text";
import { Layout, heading, linkTo, paragraph } from "./layout.js";
import type { MailContext } from "./data.js";

const codeStyle = { fontSize: "24px", fontWeight: 600, letterSpacing: "4px", fontFamily: "ui-monospace, Menlo, Consolas, monospace", margin: "16px 0" };

/** How long a code works (customer-sessions/service.ts SESSION_CODE_TTL_MS), as the message says it. */
const CODE_MINUTES = 30;

export const portalCodeSubject = (ctx: MailContext) => ctx.i18n.t("portalCode.subject", { sender: ctx.sender.name });

export function PortalCode({ code, ctx }: { code: string; ctx: MailContext }) {
  const { i18n } = ctx;
  return (
    <Layout ctx={ctx} preview={i18n.t("portalCode.preview", { sender: ctx.sender.name })}>
      <Heading style={heading}>{i18n.t("portalCode.heading")}</Heading>
      <Text style={paragraph}>{i18n.t("portalCode.body", { sender: ctx.sender.name })}</Text>
      <Text style={codeStyle}>{code}</Text>
      <Text style={paragraph}>{i18n.rich("portalCode.enter", { url: ctx.portalUrl, minutes: CODE_MINUTES, link: linkTo(ctx.portalUrl) })}</Text>
      <Text style={paragraph}>{i18n.t("common.ignore")}</Text>
    </Layout>
  );
}
