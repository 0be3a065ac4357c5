// Each customer email: its subject and its React component, by type. render.ts turns one into HTML and text.
import type { ReactElement } from "react";
import type { CustomerEmailType } from "../../billing/customer-emails/types.js";
import { EmailUpdateData, OrderData, SeatInvitationData, SubscriptionData, emailUpdateUrl, productName, seatClaimUrl, type MailContext } from "./data.js";
import { EmailUpdate } from "./email-update.js";
import { DisputeData, DisputeNotice, disputeSubject } from "./dispute-emails.js";
import { RefundFailedData, RefundFailedNotice, refundFailedSubject } from "./refund-emails.js";
import { OrderRefunded, OrderRefundedData, orderRefundedSubject } from "./refund-receipt.js";
import { DuplicateRefunded, DuplicateRefundedData, duplicateRefundedSubject } from "./duplicate-refund.js";
import { OrderConfirmation, SubscriptionConfirmation, SubscriptionCycled, SubscriptionPastDue } from "./order-emails.js";
import { SeatInvitation, seatSubject } from "./seat-invitation.js";
import { UsageAlert, UsageAlertData, usageAlertSubject } from "./usage-alert.js";
import { RechargeFailed, RechargeFailedData } from "./wallet-emails.js";
import { ProcessorErrorData, ProcessorErrorNotice, processorErrorSubject } from "./processor-error.js";
import { InvoiceIssued, invoiceSubject } from "./invoice-emails.js";
import { TrialEnding, TrialEndingData, trialEndingSubject } from "./trial-emails.js";
import { SubscriptionCancellation, SubscriptionRevoked, SubscriptionUncanceled, SubscriptionUpdated, subscriptionSubject } from "./subscription-emails.js";

export interface Built {
  subject: string;
  element: ReactElement;
  /** The message's own call to action when it is not the portal (a seat's claim page). */
  link?: string;
}

type Builder = (data: unknown, ctx: MailContext) => Built;

const order =
  (subject: (o: OrderData, ctx: MailContext) => string, make: (o: OrderData, ctx: MailContext) => ReactElement): Builder =>
  (data, ctx) => {
    const o = OrderData.parse(data);
    return { subject: subject(o, ctx), element: make(o, ctx) };
  };

const subscription =
  (subject: (s: SubscriptionData, ctx: MailContext) => string, make: (s: SubscriptionData, ctx: MailContext) => ReactElement): Builder =>
  (data, ctx) => {
    const s = SubscriptionData.parse(data);
    return { subject: subject(s, ctx), element: make(s, ctx) };
  };

const amountOf = (o: OrderData, ctx: MailContext) => ctx.i18n.money(o.total_amount, o.currency);

export const TEMPLATES: Record<CustomerEmailType, Builder> = {
  order_confirmation: order(
    (o, ctx) => ctx.i18n.t("order.subject", { sender: ctx.sender.name, hasNumber: o.invoice_number ? "yes" : "no", number: o.invoice_number ?? "" }),
    (o, ctx) => <OrderConfirmation order={o} ctx={ctx} />,
  ),
  subscription_confirmation: order(
    (o, ctx) => ctx.i18n.t("subscriptionConfirmed.subject", { product: productName(ctx.i18n, o.product, "subscription") }),
    (o, ctx) => <SubscriptionConfirmation order={o} ctx={ctx} />,
  ),
  subscription_cycled: order(
    (o, ctx) => ctx.i18n.t("cycled.subject", { product: productName(ctx.i18n, o.product, "subscription"), amount: amountOf(o, ctx) }),
    (o, ctx) => <SubscriptionCycled order={o} ctx={ctx} />,
  ),
  subscription_cycled_after_trial: order(
    (o, ctx) => ctx.i18n.t("cycledAfterTrial.subject", { product: productName(ctx.i18n, o.product, "subscription"), amount: amountOf(o, ctx) }),
    (o, ctx) => <SubscriptionCycled order={o} ctx={ctx} afterTrial />,
  ),
  subscription_past_due: (data, ctx) => {
    const o = OrderData.parse(data);
    const subject = ctx.i18n.t("pastDue.subject", { product: productName(ctx.i18n, o.product, "subscription") });
    return { subject, element: <SubscriptionPastDue order={o} ctx={ctx} />, ...(o.pay_url ? { link: o.pay_url } : {}) };
  },
  invoice_issued: (data, ctx) => {
    const o = OrderData.parse(data);
    return { subject: invoiceSubject(o, ctx, false), element: <InvoiceIssued order={o} ctx={ctx} />, ...(o.pay_url ? { link: o.pay_url } : {}) };
  },
  invoice_reminder: (data, ctx) => {
    const o = OrderData.parse(data);
    return { subject: invoiceSubject(o, ctx, true), element: <InvoiceIssued order={o} ctx={ctx} reminder />, ...(o.pay_url ? { link: o.pay_url } : {}) };
  },
  subscription_updated: subscription(
    (s, ctx) => ctx.i18n.t("updated.subject", { product: productName(ctx.i18n, s.product, "plan") }),
    (s, ctx) => <SubscriptionUpdated subscription={s} ctx={ctx} />,
  ),
  subscription_cancellation: subscription(
    (s, ctx) => subscriptionSubject("canceled.subject", s, ctx),
    (s, ctx) => <SubscriptionCancellation subscription={s} ctx={ctx} />,
  ),
  subscription_uncanceled: subscription(
    (s, ctx) => subscriptionSubject("uncanceled.subject", s, ctx),
    (s, ctx) => <SubscriptionUncanceled subscription={s} ctx={ctx} />,
  ),
  subscription_revoked: subscription(
    (s, ctx) => subscriptionSubject("revoked.subject", s, ctx),
    (s, ctx) => <SubscriptionRevoked subscription={s} ctx={ctx} />,
  ),
  order_refunded: (data, ctx) => {
    const d = OrderRefundedData.parse(data);
    return { subject: orderRefundedSubject(d, ctx), element: <OrderRefunded data={d} ctx={ctx} /> };
  },
  duplicate_payment_refunded: (data, ctx) => {
    const d = DuplicateRefundedData.parse(data);
    return { subject: duplicateRefundedSubject(d, ctx), element: <DuplicateRefunded data={d} ctx={ctx} /> };
  },
  seat_invitation: (data, ctx) => {
    const i = SeatInvitationData.parse(data);
    return { subject: seatSubject(i, ctx), element: <SeatInvitation invitation={i} ctx={ctx} />, link: seatClaimUrl(ctx.baseUrl, i.token) };
  },
  usage_alert: (data, ctx) => {
    const a = UsageAlertData.parse(data);
    return { subject: usageAlertSubject(a, ctx), element: <UsageAlert alert={a} ctx={ctx} /> };
  },
  wallet_recharge_failed: (data, ctx) => ({ subject: ctx.i18n.t("wallet.subject"), element: <RechargeFailed r={RechargeFailedData.parse(data)} ctx={ctx} /> }),
  trial_ending: (data, ctx) => {
    const t = TrialEndingData.parse(data);
    return { subject: trialEndingSubject(t, ctx), element: <TrialEnding t={t} ctx={ctx} /> };
  },
  email_update: (data, ctx) => {
    const u = EmailUpdateData.parse(data);
    return {
      subject: ctx.i18n.t("emailUpdate.subject", { sender: ctx.sender.name }),
      element: <EmailUpdate update={u} ctx={ctx} />,
      link: emailUpdateUrl(ctx.portalUrl, u.token),
    };
  },
  // the seller's own notices (to the organization's owners), carried by the same mail pipeline
  dispute_opened: (data, ctx) => {
    const d = DisputeData.parse(data);
    return { subject: disputeSubject(d, false, ctx), element: <DisputeNotice dispute={d} ctx={ctx} closed={false} /> };
  },
  dispute_closed: (data, ctx) => {
    const d = DisputeData.parse(data);
    return { subject: disputeSubject(d, true, ctx), element: <DisputeNotice dispute={d} ctx={ctx} closed /> };
  },
  processor_error: (data, ctx) => ({ subject: processorErrorSubject(ctx), element: <ProcessorErrorNotice e={ProcessorErrorData.parse(data)} ctx={ctx} /> }),
  refund_failed: (data, ctx) => {
    const d = RefundFailedData.parse(data);
    return { subject: refundFailedSubject(d, ctx), element: <RefundFailedNotice data={d} ctx={ctx} /> };
  },
};
