// The emails about a subscription's terms or state: a plan change, a cancellation at the period end, its
// undoing, and the end of access (revoked).
import { Heading } from "@react-email/heading";
import { Text } from "@react-email/text";
import { Layout, PortalButton, heading, paragraph } from "./layout.js";
import { every, productName, type MailContext, type SubscriptionData } from "./data.js";

interface Props {
  subscription: SubscriptionData;
  ctx: MailContext;
}

const price = (s: SubscriptionData, ctx: MailContext) =>
  ctx.i18n.t("common.price", { amount: ctx.i18n.money(s.amount, s.currency), every: every(ctx.i18n, s.recurring_interval, s.recurring_interval_count) });

const Manage = ({ ctx }: { ctx: MailContext }) => <PortalButton ctx={ctx} label={ctx.i18n.t("common.manageSubscription")} />;

export function SubscriptionUpdated({ subscription: s, ctx }: Props) {
  const { i18n } = ctx;
  const product = productName(i18n, s.product, "plan");
  return (
    <Layout ctx={ctx} preview={i18n.t("updated.preview", { product })}>
      <Heading style={heading}>{i18n.t("updated.heading")}</Heading>
      <Text style={paragraph}>
        {i18n.t("updated.body", { product, price: price(s, ctx) })}
        {s.current_period_end ? ` ${i18n.t("updated.nextRenewal", { date: i18n.date(s.current_period_end) })}` : ""}
      </Text>
      <Manage ctx={ctx} />
    </Layout>
  );
}

export function SubscriptionCancellation({ subscription: s, ctx }: Props) {
  const { i18n } = ctx;
  const product = productName(i18n, s.product, "subscription");
  return (
    <Layout ctx={ctx} preview={subscriptionSubject("canceled.subject", s, ctx)}>
      <Heading style={heading}>{i18n.t("canceled.heading")}</Heading>
      <Text style={paragraph}>{i18n.t("canceled.body", { product, date: i18n.date(s.ends_at ?? s.current_period_end) })}</Text>
      <Manage ctx={ctx} />
    </Layout>
  );
}

export function SubscriptionUncanceled({ subscription: s, ctx }: Props) {
  const { i18n } = ctx;
  const product = productName(i18n, s.product, "subscription");
  return (
    <Layout ctx={ctx} preview={subscriptionSubject("uncanceled.subject", s, ctx)}>
      <Heading style={heading}>{i18n.t("uncanceled.heading")}</Heading>
      <Text style={paragraph}>
        {i18n.t("uncanceled.body", { product, price: price(s, ctx), hasDate: s.current_period_end ? "yes" : "no", date: i18n.date(s.current_period_end) })}
      </Text>
      <Manage ctx={ctx} />
    </Layout>
  );
}

export function SubscriptionRevoked({ subscription: s, ctx }: Props) {
  const { i18n } = ctx;
  const product = productName(i18n, s.product, "subscription");
  return (
    <Layout ctx={ctx} preview={subscriptionSubject("revoked.subject", s, ctx)}>
      <Heading style={heading}>{i18n.t("revoked.heading")}</Heading>
      <Text style={paragraph}>{i18n.t("revoked.body", { product, sender: ctx.sender.name, date: i18n.date(s.ended_at ?? s.ends_at) })}</Text>
      <Manage ctx={ctx} />
    </Layout>
  );
}

/** "Your Pro subscription has ended", or without a product "Your subscription has ended". */
export function subscriptionSubject(id: "canceled.subject" | "uncanceled.subject" | "revoked.subject", s: SubscriptionData, ctx: MailContext): string {
  return ctx.i18n.t(id, { hasProduct: s.product ? "yes" : "no", product: s.product?.name ?? "" });
}
