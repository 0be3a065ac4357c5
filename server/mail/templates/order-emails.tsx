// The emails that carry a receipt: a purchase, a new subscription, a renewal (after a trial too), and a
// renewal whose charge failed (past due: the amount owed and where to update the payment method).
import { Button } from "@react-email/button";
import { Heading } from "@react-email/heading";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { Layout, PortalButton, button, heading, linkTo, paragraph } from "./layout.js";
import { Receipt } from "./receipt.js";
import { lineSpeaker } from "../../i18n/lines/index.js";
import { walletCreditText } from "../../i18n/lines/text.js";
import { every, productName, type MailContext, type OrderData } from "./data.js";

interface Props {
  order: OrderData;
  ctx: MailContext;
}

/**
 * Where the invoice PDF is: the customer portal, which lists each order's invoice with a download link (a signed
 * URL lives an hour, too short for an email that is read days later; the portal makes a fresh one).
 */
const InvoiceNote = ({ order, ctx }: Props) => (
  <Text style={paragraph}>
    {ctx.i18n.rich("order.invoiceNote", {
      hasNumber: order.invoice_number ? "yes" : "no",
      number: order.invoice_number ?? "",
      link: linkTo(ctx.portalUrl),
    })}
  </Text>
);

const ACCOUNT_NAMES = { github: "GitHub", discord: "Discord" } as const;

/** A repository or Discord benefit is given to the customer's account: the portal connects it. */
function ConnectAccounts({ order, ctx }: Props) {
  const names = (order.connect_accounts ?? []).map((p) => ACCOUNT_NAMES[p]);
  if (names.length === 0) return null;
  const values = { accounts: new Intl.ListFormat(ctx.i18n.intlLocale, { type: "conjunction" }).format(names), count: names.length };
  return (
    <>
      <Text style={paragraph}>{ctx.i18n.t("order.connect", values)}</Text>
      <PortalButton ctx={ctx} label={ctx.i18n.t("order.connectButton", values)} />
    </>
  );
}

/** The product's meter credits in the buyer's words: how many, how often, whether unused ones carry over. */
function Credits({ order, ctx }: Props) {
  const { i18n } = ctx;
  const lines = (order.meter_credits ?? []).map((c) =>
    [
      c.units === null ? i18n.t("credits.paid") : i18n.t(`credits.${c.schedule}`, { units: c.units }),
      i18n.t(c.rollover ? "credits.carryOver" : "credits.expire"),
      ...(c.pool ? [i18n.t("credits.pool")] : []),
    ].join(" "),
  );
  return lines.length === 0 ? null : <Text style={paragraph}>{lines.join(" ")}</Text>;
}

function nextCharge(order: OrderData, ctx: MailContext): string {
  const s = order.subscription;
  if (!s?.current_period_end || !s.recurring_interval) return "";
  return ctx.i18n.t("order.nextCharge", { every: every(ctx.i18n, s.recurring_interval, s.recurring_interval_count), date: ctx.i18n.date(s.current_period_end) });
}

export function OrderConfirmation({ order, ctx }: Props) {
  const { i18n } = ctx;
  // a wallet top-up has no product: it is named by its one line's kind, and its body says what was added
  const wallet = !order.product && order.items.length === 1 ? order.items[0]?.wallet_credit : null;
  const product = wallet ? walletCreditText(lineSpeaker(i18n.locale), wallet) : productName(i18n, order.product);
  const amount = i18n.money(order.total_amount, order.currency);
  return (
    <Layout ctx={ctx} preview={i18n.t("order.preview", { product, amount })}>
      <Heading style={heading}>{i18n.t("order.heading")}</Heading>
      <Text style={paragraph}>{wallet ? i18n.t("order.walletBody", { kind: wallet, amount }) : i18n.t("order.body", { product, sender: ctx.sender.name })}</Text>
      <Credits order={order} ctx={ctx} />
      <ConnectAccounts order={order} ctx={ctx} />
      <Receipt order={order} i18n={i18n} />
      <InvoiceNote order={order} ctx={ctx} />
      <PortalButton ctx={ctx} label={i18n.t("order.button")} />
    </Layout>
  );
}

export function SubscriptionConfirmation({ order, ctx }: Props) {
  const { i18n } = ctx;
  const product = productName(i18n, order.product, "subscription");
  return (
    <Layout ctx={ctx} preview={i18n.t("subscriptionConfirmed.subject", { product })}>
      <Heading style={heading}>{i18n.t("subscriptionConfirmed.heading")}</Heading>
      <Text style={paragraph}>
        {i18n.t("subscriptionConfirmed.body", { product, sender: ctx.sender.name })} {nextCharge(order, ctx)}
      </Text>
      <Credits order={order} ctx={ctx} />
      <ConnectAccounts order={order} ctx={ctx} />
      <Receipt order={order} i18n={i18n} />
      <InvoiceNote order={order} ctx={ctx} />
      <PortalButton ctx={ctx} label={i18n.t("common.manageSubscription")} />
    </Layout>
  );
}

export function SubscriptionCycled({ order, ctx, afterTrial }: Props & { afterTrial?: boolean }) {
  const { i18n } = ctx;
  const product = productName(i18n, order.product, "subscription");
  return (
    <Layout ctx={ctx} preview={i18n.t("cycled.preview", { product, amount: i18n.money(order.total_amount, order.currency) })}>
      <Heading style={heading}>{i18n.t(afterTrial ? "cycledAfterTrial.heading" : "cycled.heading")}</Heading>
      <Text style={paragraph}>
        {i18n.t(afterTrial ? "cycledAfterTrial.body" : "cycled.body", { product })} {nextCharge(order, ctx)}
      </Text>
      <Receipt order={order} i18n={i18n} />
      <InvoiceNote order={order} ctx={ctx} />
      <PortalButton ctx={ctx} label={i18n.t("common.manageSubscription")} />
    </Layout>
  );
}

export function SubscriptionPastDue({ order, ctx }: Props) {
  const { i18n } = ctx;
  const product = productName(i18n, order.product, "subscription");
  return (
    <Layout ctx={ctx} preview={i18n.t("pastDue.preview", { product })}>
      <Heading style={heading}>{i18n.t("pastDue.heading")}</Heading>
      <Text style={paragraph}>{i18n.t("pastDue.body", { product, amount: i18n.money(order.total_amount, order.currency) })}</Text>
      <Receipt order={order} i18n={i18n} />
      {order.pay_url ? (
        <Section style={{ margin: "16px 0" }}>
          <Button href={order.pay_url} style={button} data-testid="pay-link">
            {i18n.t("pastDue.payButton", { amount: i18n.money(order.total_amount, order.currency) })}
          </Button>
        </Section>
      ) : null}
      <PortalButton ctx={ctx} label={i18n.t("pastDue.button")} />
    </Layout>
  );
}
