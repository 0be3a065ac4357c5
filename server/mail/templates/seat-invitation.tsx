// The invitation to claim a seat of a seat-based purchase: who gave it, for what, the Claim button (the web
// app's claim page with the invitation's token) and when the invitation lapses.
import { Button } from "@react-email/button";
import { Heading } from "@react-email/heading";
import { Link } from "@react-email/link";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { Layout, button, heading, paragraph } from "./layout.js";
import { seatClaimUrl, type MailContext, type SeatInvitationData } from "./data.js";

export const seatSubject = (i: SeatInvitationData, ctx: MailContext) => ctx.i18n.t("seat.subject", { product: i.product.name, sender: ctx.sender.name });

export function SeatInvitation({ invitation: i, ctx }: { invitation: SeatInvitationData; ctx: MailContext }) {
  const { i18n } = ctx;
  const url = seatClaimUrl(ctx.baseUrl, i.token);
  const who = { hasInviter: i.invited_by ? "yes" : "no", inviter: i.invited_by ?? "", product: i.product.name };
  return (
    <Layout ctx={ctx} preview={i18n.t("seat.preview", who)}>
      <Heading style={heading}>{i18n.t("seat.heading", { product: i.product.name })}</Heading>
      <Text style={paragraph}>{i18n.t("seat.body", { ...who, sender: ctx.sender.name, email: i.email })}</Text>
      <Section style={{ margin: "16px 0" }}>
        <Button href={url} style={button}>
          {i18n.t("seat.button")}
        </Button>
      </Section>
      {/* the text part prints the button's address already */}
      <Text style={paragraph} data-skip-in-text="true">
        {i18n.t("common.orOpenLink")} <Link href={url}>{url}</Link>
      </Text>
      <Text style={paragraph}>{i18n.t("seat.expires", { date: i18n.date(i.expires_at) })}</Text>
    </Layout>
  );
}
