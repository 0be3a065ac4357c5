// What the customer email templates read: the order or subscription of the outbox event (its API shape),
// narrowed to the fields a message shows, plus who sends it and where the customer manages it.
import { z } from "zod";
import type { MailSpeaker } from "../i18n/index.js";

const Customer = z.object({ email: z.string(), name: z.string().nullish() });
const Product = z.object({ name: z.string() }).nullish();
const Interval = z.enum(["day", "week", "month", "year"]);

/** A proration line's facts (db/schema: ProrationFacts), as claimDue adds them to an order email's items. */
const ProrationFacts = z.object({
  kind: z.enum(["unused", "remaining"]),
  product: z.string().nullable(),
  seats: z.number().int().nullable(),
  from: z.string(),
  to: z.string(),
});

/** A metered line's figures (shared/tiers.ts: UsageLineFacts), as claimDue adds them to an order email's items. */
const UsageFacts = z.object({
  product: z.string(),
  meter: z.string(),
  consumed: z.number(),
  credited: z.number(),
  billed: z.number(),
  tiers: z.array(z.object({ from: z.number(), units: z.number(), unit_amount: z.string(), flat_amount: z.number() })).nullable(),
  cap: z.object({ amount: z.number(), notBilled: z.number() }).nullable(),
});

export const OrderData = z.object({
  id: z.string(),
  created_at: z.string(),
  currency: z.string(),
  subtotal_amount: z.number().int(),
  discount_amount: z.number().int(),
  tax_amount: z.number().int(),
  total_amount: z.number().int(),
  invoice_number: z.string().nullish(),
  billing_reason: z.string(),
  /** An unpaid order's hosted pay page (added when a failed renewal's email is sent). */
  pay_url: z.string().nullish(),
  /** An invoice with terms: when it is due, and the buyer's purchase order number. */
  due_at: z.string().nullish(),
  purchase_order: z.string().nullish(),
  /** A reminder sent after the due date (the invoice is overdue). */
  overdue: z.boolean().nullish(),
  seats: z.number().int().nullish(),
  customer: Customer,
  product: Product,
  /**
   * A line till wrote carries its facts (added when the email is sent: a metered line's `usage`, a proration line's
   * `proration_facts`, a top-up's `wallet_credit`): the receipt says it in the email's language.
   */
  items: z.array(
    z.object({
      label: z.string(),
      amount: z.number().int(),
      tax_amount: z.number().int(),
      usage: UsageFacts.optional(),
      proration_facts: ProrationFacts.optional(),
      wallet_credit: z.enum(["top_up", "auto_recharge"]).nullish(),
    }),
  ),
  subscription: z
    .object({
      current_period_end: z.string().nullish(),
      recurring_interval: Interval.nullish(),
      recurring_interval_count: z.number().int().nullish(),
    })
    .nullish(),
  /** The tax a reverse-charged sale did not charge ("vat", "gst"), added when the email is sent. */
  reverse_charge: z.enum(["vat", "gst"]).optional(),
  /** Accounts the product's benefits need connected (github_repository, discord), added when the email is sent. */
  connect_accounts: z.array(z.enum(["github", "discord"])).optional(),
  /** The product's meter credits in the buyer's words (units null: in proportion to the payment), added on sending. */
  meter_credits: z
    .array(z.object({ units: z.number().int().nullable(), schedule: z.enum(["period", "monthly", "once"]), rollover: z.boolean(), pool: z.boolean() }))
    .optional(),
});
export type OrderData = z.output<typeof OrderData>;

export const SubscriptionData = z.object({
  id: z.string(),
  status: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  recurring_interval: Interval,
  recurring_interval_count: z.number().int().nullish(),
  current_period_end: z.string().nullish(),
  cancel_at_period_end: z.boolean(),
  ends_at: z.string().nullish(),
  ended_at: z.string().nullish(),
  customer: Customer,
  product: Product,
});
export type SubscriptionData = z.output<typeof SubscriptionData>;

/** A seat invitation (customer-seats/service.ts): the invitation's token travels only in this email's data. */
export const SeatInvitationData = z.object({
  seat_id: z.string(),
  email: z.string(),
  token: z.string(),
  expires_at: z.string(),
  product: z.object({ name: z.string() }),
  /** Who gave the seat: the buyer's name or email. */
  invited_by: z.string().nullish(),
});
export type SeatInvitationData = z.output<typeof SeatInvitationData>;

/** An email update the customer asked for in the portal: the link's token travels only in this email's data. */
export const EmailUpdateData = z.object({
  email: z.string(),
  token: z.string(),
  expires_at: z.string(),
});
export type EmailUpdateData = z.output<typeof EmailUpdateData>;

export interface Sender {
  name: string;
  /** The organization's avatar_url. */
  logo: string | null;
}

export interface MailContext {
  sender: Sender;
  /** The customer portal of the seller (sign-in by a mailed code): orders, subscriptions, payment method. */
  portalUrl: string;
  /** The server's public base URL (links into the web app, such as a seat's claim page). */
  baseUrl: string;
  /** The message's language: its catalog and the Intl formats (money, dates, countries) of its locale. */
  i18n: MailSpeaker;
}

/** The portal page that confirms an email update with the mailed token (web/src/pages/Portal.tsx). */
export const emailUpdateUrl = (portalUrl: string, token: string) => `${portalUrl}&email_update_token=${encodeURIComponent(token)}`;
/** The web page where an invited person claims a seat. */
export const seatClaimUrl = (baseUrl: string, token: string) => `${baseUrl}/seats/claim?token=${encodeURIComponent(token)}`;

/** "every month", "alle 3 Monate", … */
export function every(i18n: MailSpeaker, interval: z.output<typeof Interval>, count: number | null | undefined): string {
  return i18n.t("common.every", { interval, count: count ?? 1 });
}

/** The product's name, else "your purchase" / "your plan" / "your subscription" in the message's language. */
export const productName = (i18n: MailSpeaker, p: { name: string } | null | undefined, kind: "purchase" | "plan" | "subscription" = "purchase") =>
  p?.name ?? i18n.t("common.product", { kind });
