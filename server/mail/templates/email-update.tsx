// The link that confirms a new email address for a customer (asked for in the customer portal): sent to that
// new address, so following it proves the customer reads it.
import { Button } from "@react-email/button";
import { Heading } from "@react-email/heading";
import { Link } from "@react-email/link";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { Layout, button, heading, paragraph } from "./layout.js";
import { emailUpdateUrl, type EmailUpdateData, type MailContext } from "./data.js";

export function EmailUpdate({ update: u, ctx }: { update: EmailUpdateData; ctx: MailContext }) {
  const { i18n } = ctx;
  const url = emailUpdateUrl(ctx.portalUrl, u.token);
  return (
    <Layout ctx={ctx} preview={i18n.t("emailUpdate.preview", { email: u.email, sender: ctx.sender.name })}>
      <Heading style={heading}>{i18n.t("emailUpdate.heading")}</Heading>
      <Text style={paragraph}>{i18n.t("emailUpdate.body", { email: u.email, sender: ctx.sender.name })}</Text>
      <Section style={{ margin: "16px 0" }}>
        <Button href={url} style={button}>
          {i18n.t("emailUpdate.button", { email: u.email })}
        </Button>
      </Section>
      {/* the text part prints the button's address already */}
      <Text style={paragraph} data-skip-in-text="true">
        {i18n.t("common.orOpenLink")} <Link href={url}>{url}</Link>
      </Text>
      <Text style={paragraph}>{i18n.t("emailUpdate.expires", { date: i18n.date(u.expires_at) })}</Text>
    </Layout>
  );
}
