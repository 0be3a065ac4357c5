// The invitation to claim a seat of a seat-based purchase: who gave it, for what, the Claim button (the web
// app's claim page with the invitation's token) and when the invitation lapses.
import { Button, Heading, Link, Section, Text } from "@react-email/components";
import { Layout, button, heading, paragraph } from "./layout.js";
import { date, seatClaimUrl, type MailContext, type SeatInvitationData } from "./data.js";

export function SeatInvitation({ invitation: i, ctx }: { invitation: SeatInvitationData; ctx: MailContext }) {
  const url = seatClaimUrl(ctx.baseUrl, i.token);
  const from = i.invited_by ? `${i.invited_by} gave you` : "You have been given";
  return (
    <Layout ctx={ctx} preview={`${from} a seat of ${i.product.name}`}>
      <Heading style={heading}>You have a seat of {i.product.name}</Heading>
      <Text style={paragraph}>
        {from} a seat of {i.product.name} from {ctx.sender.name}. Claim it to get its benefits with this email address ({i.email}).
      </Text>
      <Section style={{ margin: "16px 0" }}>
        <Button href={url} style={button}>
          Claim your seat
        </Button>
      </Section>
      <Text style={paragraph}>
        Or open this link: <Link href={url}>{url}</Link>
      </Text>
      <Text style={paragraph}>This invitation expires on {date(i.expires_at)}. If you did not expect it, you can ignore this email.</Text>
    </Layout>
  );
}
