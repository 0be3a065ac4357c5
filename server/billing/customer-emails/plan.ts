// Which customer emails an outbox event calls for (before the organization's settings are asked). Pure: the
// event's type, its resource (the API shape) and the cause's own `mail` request decide.
import type { CustomerEmailType } from "./types.js";

export interface OutboxEventView {
  type: string;
  payload: Record<string, unknown>;
  mail: string | null;
}

const field = (o: unknown, key: string): unknown => (o && typeof o === "object" ? (o as Record<string, unknown>)[key] : undefined);

/** The customer's address on an order or a subscription. */
export function recipientOf(resource: Record<string, unknown>): string | null {
  const email = field(field(resource, "customer"), "email");
  return typeof email === "string" && email.includes("@") ? email : null;
}

function orderEmail(e: OutboxEventView): CustomerEmailType | null {
  const reason = e.payload.billing_reason;
  // an invoice with terms: issued unpaid with its due date, nothing charged (billing/terms.ts)
  if (e.type === "order.created" && e.payload.status === "pending" && typeof e.payload.due_at === "string") return "invoice_issued";
  if (e.type === "order.created") {
    // a renewal or a plan change billed now whose charge was declined leaves its order pending and the subscription
    // past due. A pending order of an active subscription was not declined — a bank debit on its way, or a charge
    // the processor could not process (the seller's or till's error) — and its customer is not dunned; dunning
    // asks for this email itself if that charge is declined later (dunning/past-due-email.ts)
    const billsSubscription = reason === "subscription_cycle" || reason === "subscription_update";
    const pastDue = field(e.payload.subscription, "status") === "past_due";
    return billsSubscription && e.payload.status === "pending" && pastDue ? "subscription_past_due" : null;
  }
  if (e.type !== "order.paid") return null;
  if (reason === "purchase") return "order_confirmation";
  if (reason === "subscription_create") return "subscription_confirmation";
  if (reason === "subscription_cycle") return e.mail === "subscription_cycled_after_trial" ? "subscription_cycled_after_trial" : "subscription_cycled";
  return null;
}

function subscriptionEmail(e: OutboxEventView): CustomerEmailType | null {
  switch (e.type) {
    case "subscription.updated":
      return e.mail === "subscription_updated" ? "subscription_updated" : null;
    case "subscription.canceled":
      // a subscription revoked now gets the revocation email (its subscription.revoked) rather than this one
      return e.payload.status === "canceled" || e.payload.ended_at ? null : "subscription_cancellation";
    case "subscription.uncanceled":
      return "subscription_uncanceled";
    case "subscription.revoked":
      return "subscription_revoked";
    default:
      return null;
  }
}

/** The email the event calls for, with its recipient; null when none. */
export function emailFor(e: OutboxEventView): { type: CustomerEmailType; recipient: string } | null {
  const type = e.type.startsWith("order.") ? orderEmail(e) : e.type.startsWith("subscription.") ? subscriptionEmail(e) : null;
  if (!type) return null;
  const recipient = recipientOf(e.payload);
  return recipient ? { type, recipient } : null;
}
