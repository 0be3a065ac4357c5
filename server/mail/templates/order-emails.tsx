// The emails that carry a receipt: a purchase, a new subscription, a renewal (after a trial too), and a
// renewal whose charge failed (past due: the amount owed and where to update the payment method).
import { Button, Heading, Link, Section, Text } from "@react-email/components";
import { Layout, button, heading, paragraph } from "./layout.js";
import { Receipt } from "./receipt.js";
import { date, every, money, productName, type MailContext, type OrderData } from "./data.js";

interface Props {
  order: OrderData;
  ctx: MailContext;
}

const PortalButton = ({ ctx, label }: { ctx: MailContext; label: string }) => (
  <Section style={{ margin: "16px 0" }}>
    <Button href={ctx.portalUrl} style={button}>
      {label}
    </Button>
  </Section>
);

/**
 * Where the invoice PDF is: the customer portal, which lists each order's invoice with a download link (a signed
 * URL lives an hour, too short for an email that is read days later; the portal makes a fresh one).
 */
const InvoiceNote = ({ order, ctx }: Props) => (
  <Text style={paragraph}>
    Your invoice{order.invoice_number ? ` ${order.invoice_number}` : ""} (PDF) is ready to download in{" "}
    <Link href={ctx.portalUrl}>your customer portal</Link> ({ctx.portalUrl}).
  </Text>
);

const ACCOUNT_NAMES = { github: "GitHub", discord: "Discord" } as const;

/** A repository or Discord benefit is given to the customer's account: the portal connects it. */
function ConnectAccounts({ order, ctx }: Props) {
  const names = (order.connect_accounts ?? []).map((p) => ACCOUNT_NAMES[p]);
  if (names.length === 0) return null;
  return (
    <>
      <Text style={paragraph}>
        Your purchase includes access given to your {names.join(" and ")} account{names.length > 1 ? "s" : ""}. Connect{" "}
        {names.length > 1 ? "them" : "it"} in your customer portal to receive it.
      </Text>
      <PortalButton ctx={ctx} label={`Connect your ${names.join(" and ")} account${names.length > 1 ? "s" : ""}`} />
    </>
  );
}

function nextCharge(order: OrderData): string {
  const s = order.subscription;
  if (!s?.current_period_end || !s.recurring_interval) return "";
  return `It renews every ${every(s.recurring_interval, s.recurring_interval_count)}; the next charge is on ${date(s.current_period_end)}.`;
}

export function OrderConfirmation({ order, ctx }: Props) {
  const name = productName(order.product);
  return (
    <Layout ctx={ctx} preview={`Your receipt for ${name}: ${money(order.total_amount, order.currency)}`}>
      <Heading style={heading}>Thank you for your order</Heading>
      <Text style={paragraph}>Your purchase of {name} from {ctx.sender.name} is confirmed. Here is your receipt.</Text>
      <ConnectAccounts order={order} ctx={ctx} />
      <Receipt order={order} />
      <InvoiceNote order={order} ctx={ctx} />
      <PortalButton ctx={ctx} label="View your order" />
    </Layout>
  );
}

export function SubscriptionConfirmation({ order, ctx }: Props) {
  const name = productName(order.product, "your subscription");
  return (
    <Layout ctx={ctx} preview={`Your subscription to ${name} is confirmed`}>
      <Heading style={heading}>Your subscription is confirmed</Heading>
      <Text style={paragraph}>
        You are now subscribed to {name} from {ctx.sender.name}. {nextCharge(order)}
      </Text>
      <ConnectAccounts order={order} ctx={ctx} />
      <Receipt order={order} />
      <InvoiceNote order={order} ctx={ctx} />
      <PortalButton ctx={ctx} label="Manage your subscription" />
    </Layout>
  );
}

export function SubscriptionCycled({ order, ctx, afterTrial }: Props & { afterTrial?: boolean }) {
  const name = productName(order.product, "your subscription");
  return (
    <Layout ctx={ctx} preview={`Your ${name} subscription renewed: ${money(order.total_amount, order.currency)}`}>
      <Heading style={heading}>{afterTrial ? "Your trial has ended" : "Your subscription has renewed"}</Heading>
      <Text style={paragraph}>
        {afterTrial ? `Your trial of ${name} has ended and your paid subscription has started.` : `Your subscription to ${name} has renewed.`}{" "}
        {nextCharge(order)}
      </Text>
      <Receipt order={order} />
      <InvoiceNote order={order} ctx={ctx} />
      <PortalButton ctx={ctx} label="Manage your subscription" />
    </Layout>
  );
}

export function SubscriptionPastDue({ order, ctx }: Props) {
  const name = productName(order.product, "your subscription");
  return (
    <Layout ctx={ctx} preview={`Payment failed for ${name}`}>
      <Heading style={heading}>Your payment failed</Heading>
      <Text style={paragraph}>
        We could not charge {money(order.total_amount, order.currency)} for the renewal of {name}. Your subscription is past due: update your
        payment method to keep it.
      </Text>
      <Receipt order={order} />
      <PortalButton ctx={ctx} label="Update payment method" />
    </Layout>
  );
}
