// The customer emails till sends, for the server (outbox → mail, the preview route) and the CLI (`till emails
// preview`). Each is named by its key in the organization's `customer_email_settings` (Polar's
// OrganizationCustomerEmailSettings), so the setting and the email are one word. `order_refunded` is till's own key
// there (Polar's settings have no refund email).
export const CUSTOMER_EMAIL_TYPES = [
  "order_confirmation",
  "subscription_confirmation",
  "subscription_cycled",
  "subscription_cycled_after_trial",
  "subscription_updated",
  "subscription_cancellation",
  "subscription_uncanceled",
  "subscription_past_due",
  "subscription_revoked",
  "order_refunded",
  "seat_invitation",
  "email_update",
  "usage_alert",
  "dispute_opened",
  "dispute_closed",
  "refund_failed",
  "wallet_recharge_failed",
  "trial_ending",
  "processor_error",
  "invoice_issued",
  "invoice_reminder",
  "duplicate_payment_refunded",
] as const;
export type CustomerEmailType = (typeof CUSTOMER_EMAIL_TYPES)[number];

/**
 * Emails no `customer_email_settings` key turns off: Polar's settings have none for them. A seat invitation is
 * asked for by the buyer (assign, resend), who expects it to arrive; it is sent once per invitation. An email
 * update's verification link is asked for by the customer in the portal. A usage alert (till's own) goes where
 * the seller's alert says: to the organization's owners, and to the customer when chosen. The dispute notices go
 * to the seller's owners, not to a customer (billing/disputes), as does the notice of a refund the processor failed
 * or canceled after accepting it (billing/refunds). A wallet's declined auto-recharge (till's own) tells the
 * customer their recharging stopped. A trial without a card about to end (till's own) is the organization's
 * `plan_settings.trial_reminder_days`, 0 turning it off. A payment Stripe could not process (till's own) tells the
 * seller's owners, at most once a day (billing/processor-connections/processor-errors.ts). An invoice with terms
 * (till's own) is how the customer is billed at all, and its reminder before the due date goes with it. A payment
 * that succeeded for an order already paid and was refunded in full (till's own) tells the buyer where the money went.
 */
export const ALWAYS_SENT_EMAIL_TYPES: readonly CustomerEmailType[] = [
  "seat_invitation", "email_update", "usage_alert", "dispute_opened", "dispute_closed", "refund_failed", "wallet_recharge_failed",
  "trial_ending", "processor_error", "invoice_issued", "invoice_reminder", "duplicate_payment_refunded",
];

/**
 * The `customer_email_settings` keys of the emails till sends, in the order a seller reads them. Polar's other keys
 * (subscription_paused, subscription_resumed, subscription_renewal_reminder, subscription_trial_conversion_reminder)
 * are kept on the wire for its SDKs, but till sends no such email, so nothing offers to switch them.
 */
export const SWITCHABLE_EMAIL_TYPES = [
  "order_confirmation",
  "subscription_confirmation",
  "subscription_cycled",
  "subscription_cycled_after_trial",
  "subscription_past_due",
  "subscription_updated",
  "subscription_cancellation",
  "subscription_uncanceled",
  "subscription_revoked",
  "order_refunded",
] as const satisfies readonly CustomerEmailType[];
export type SwitchableEmailType = (typeof SWITCHABLE_EMAIL_TYPES)[number];

export const isCustomerEmailType = (v: string): v is CustomerEmailType => (CUSTOMER_EMAIL_TYPES as readonly string[]).includes(v);
