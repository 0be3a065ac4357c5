// The emails about a subscription's terms or state: a plan change, a cancellation at the period end, its
// undoing, and the end of access (revoked).
import { Button, Heading, Section, Text } from "@react-email/components";
import { Layout, button, heading, paragraph } from "./layout.js";
import { date, every, money, productName, type MailContext, type SubscriptionData } from "./data.js";

interface Props {
  subscription: SubscriptionData;
  ctx: MailContext;
}

const price = (s: SubscriptionData) => `${money(s.amount, s.currency)} every ${every(s.recurring_interval, s.recurring_interval_count)}`;

const Manage = ({ ctx }: { ctx: MailContext }) => (
  <Section style={{ margin: "16px 0" }}>
    <Button href={ctx.portalUrl} style={button}>
      Manage your subscription
    </Button>
  </Section>
);

export function SubscriptionUpdated({ subscription: s, ctx }: Props) {
  const name = productName(s.product, "your plan");
  return (
    <Layout ctx={ctx} preview={`Your subscription is now ${name}`}>
      <Heading style={heading}>Your subscription has been updated</Heading>
      <Text style={paragraph}>
        You are now subscribed to {name} at {price(s)}.{s.current_period_end ? ` Your next renewal is on ${date(s.current_period_end)}.` : ""}
      </Text>
      <Manage ctx={ctx} />
    </Layout>
  );
}

export function SubscriptionCancellation({ subscription: s, ctx }: Props) {
  const name = productName(s.product, "your subscription");
  const end = date(s.ends_at ?? s.current_period_end);
  return (
    <Layout ctx={ctx} preview={`Your ${name} subscription is canceled`}>
      <Heading style={heading}>Your subscription has been canceled</Heading>
      <Text style={paragraph}>
        Your subscription to {name} will not renew. You keep access until {end}. Changed your mind? You can keep it from the customer portal
        until then.
      </Text>
      <Manage ctx={ctx} />
    </Layout>
  );
}

export function SubscriptionUncanceled({ subscription: s, ctx }: Props) {
  const name = productName(s.product, "your subscription");
  return (
    <Layout ctx={ctx} preview={`Your ${name} subscription will continue`}>
      <Heading style={heading}>Your subscription will continue</Heading>
      <Text style={paragraph}>
        Your subscription to {name} is no longer canceled and renews at {price(s)}
        {s.current_period_end ? ` on ${date(s.current_period_end)}` : ""}.
      </Text>
      <Manage ctx={ctx} />
    </Layout>
  );
}

export function SubscriptionRevoked({ subscription: s, ctx }: Props) {
  const name = productName(s.product, "your subscription");
  return (
    <Layout ctx={ctx} preview={`Your ${name} subscription has ended`}>
      <Heading style={heading}>Your subscription has ended</Heading>
      <Text style={paragraph}>
        Your subscription to {name} from {ctx.sender.name} ended on {date(s.ended_at ?? s.ends_at)} and its benefits are no longer
        available. You can subscribe again at any time.
      </Text>
      <Manage ctx={ctx} />
    </Layout>
  );
}
