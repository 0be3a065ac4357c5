// The customer email types (shared/customer-emails.ts) and which of them carry a receipt.
import type { CustomerEmailType } from "../../../shared/customer-emails.js";

export { ALWAYS_SENT_EMAIL_TYPES, CUSTOMER_EMAIL_TYPES, isCustomerEmailType, type CustomerEmailType } from "../../../shared/customer-emails.js";

/** The emails about an order (a receipt); the others are about a subscription. */
export const ORDER_EMAIL_TYPES: readonly CustomerEmailType[] = [
  "order_confirmation",
  "subscription_confirmation",
  "subscription_cycled",
  "subscription_cycled_after_trial",
  "subscription_past_due",
  "invoice_issued",
  "invoice_reminder",
];
