// Each customer email: its subject and its React component, by type. render.ts turns one into HTML and text.
import type { ReactElement } from "react";
import type { CustomerEmailType } from "../../billing/customer-emails/types.js";
import { EmailUpdateData, OrderData, SeatInvitationData, SubscriptionData, emailUpdateUrl, money, productName, seatClaimUrl, type MailContext } from "./data.js";
import { EmailUpdate } from "./email-update.js";
import { DisputeData, DisputeNotice, disputeSubject } from "./dispute-emails.js";
import { OrderConfirmation, SubscriptionConfirmation, SubscriptionCycled, SubscriptionPastDue } from "./order-emails.js";
import { SeatInvitation } from "./seat-invitation.js";
import { UsageAlert, UsageAlertData, usageAlertSubject } from "./usage-alert.js";
import { RechargeFailed, RechargeFailedData } from "./wallet-emails.js";
import { TrialEnding, TrialEndingData, trialEndingSubject } from "./trial-emails.js";
import { SubscriptionCancellation, SubscriptionRevoked, SubscriptionUncanceled, SubscriptionUpdated } from "./subscription-emails.js";

export interface Built {
  subject: string;
  element: ReactElement;
  /** The message's own call to action when it is not the portal (a seat's claim page). */
  link?: string;
}

/** "Your Pro" or "Your" */
const yours = (p: { name: string } | null | undefined) => (p ? `Your ${p.name}` : "Your");

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

export const TEMPLATES: Record<CustomerEmailType, Builder> = {
  order_confirmation: order(
    (o, ctx) => `Your ${ctx.sender.name} receipt${o.invoice_number ? ` ${o.invoice_number}` : ""}`,
    (o, ctx) => <OrderConfirmation order={o} ctx={ctx} />,
  ),
  subscription_confirmation: order(
    (o) => `Your subscription to ${productName(o.product, "your plan")} is confirmed`,
    (o, ctx) => <SubscriptionConfirmation order={o} ctx={ctx} />,
  ),
  subscription_cycled: order(
    (o) => `Your ${productName(o.product, "subscription")} renewal receipt: ${money(o.total_amount, o.currency)}`,
    (o, ctx) => <SubscriptionCycled order={o} ctx={ctx} />,
  ),
  subscription_cycled_after_trial: order(
    (o) => `Your ${productName(o.product, "subscription")} trial has ended: ${money(o.total_amount, o.currency)}`,
    (o, ctx) => <SubscriptionCycled order={o} ctx={ctx} afterTrial />,
  ),
  subscription_past_due: order(
    (o) => `Payment failed for ${productName(o.product, "your subscription")}: update your payment method`,
    (o, ctx) => <SubscriptionPastDue order={o} ctx={ctx} />,
  ),
  subscription_updated: subscription(
    (s) => `Your subscription has been updated to ${productName(s.product, "a new plan")}`,
    (s, ctx) => <SubscriptionUpdated subscription={s} ctx={ctx} />,
  ),
  subscription_cancellation: subscription(
    (s) => `${yours(s.product)} subscription has been canceled`,
    (s, ctx) => <SubscriptionCancellation subscription={s} ctx={ctx} />,
  ),
  subscription_uncanceled: subscription(
    (s) => `${yours(s.product)} subscription will continue`,
    (s, ctx) => <SubscriptionUncanceled subscription={s} ctx={ctx} />,
  ),
  subscription_revoked: subscription(
    (s) => `${yours(s.product)} subscription has ended`,
    (s, ctx) => <SubscriptionRevoked subscription={s} ctx={ctx} />,
  ),
  seat_invitation: (data, ctx) => {
    const i = SeatInvitationData.parse(data);
    return {
      subject: `You have been given a seat of ${i.product.name} from ${ctx.sender.name}`,
      element: <SeatInvitation invitation={i} ctx={ctx} />,
      link: seatClaimUrl(ctx.baseUrl, i.token),
    };
  },
  usage_alert: (data, ctx) => {
    const a = UsageAlertData.parse(data);
    return { subject: usageAlertSubject(a), element: <UsageAlert alert={a} ctx={ctx} /> };
  },
  wallet_recharge_failed: (data, ctx) => ({ subject: "Your wallet's auto-recharge was declined", element: <RechargeFailed r={RechargeFailedData.parse(data)} ctx={ctx} /> }),
  trial_ending: (data, ctx) => {
    const t = TrialEndingData.parse(data);
    return { subject: trialEndingSubject(t), element: <TrialEnding t={t} ctx={ctx} /> };
  },
  email_update: (data, ctx) => {
    const u = EmailUpdateData.parse(data);
    return {
      subject: `Confirm your new email address for ${ctx.sender.name}`,
      element: <EmailUpdate update={u} ctx={ctx} />,
      link: emailUpdateUrl(ctx.portalUrl, u.token),
    };
  },
  // the seller's own notices (to the organization's owners), carried by the same mail pipeline
  dispute_opened: (data, ctx) => {
    const d = DisputeData.parse(data);
    return { subject: disputeSubject(d, false), element: <DisputeNotice dispute={d} ctx={ctx} closed={false} /> };
  },
  dispute_closed: (data, ctx) => {
    const d = DisputeData.parse(data);
    return { subject: disputeSubject(d, true), element: <DisputeNotice dispute={d} ctx={ctx} closed /> };
  },
};
