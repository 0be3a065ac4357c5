// Sample resources for the seller's preview of each customer email: an order and a subscription shaped like
// the API's, with fixed amounts and dates so a preview reads the same every time.
import { ORDER_EMAIL_TYPES, type CustomerEmailType } from "./types.js";

const customer = { email: "jane@example.com", name: "Jane Doe" };
const product = { name: "Pro plan" };
const periodEnd = "2026-02-01T00:00:00.000Z";

function sampleOrder(type: CustomerEmailType, slug: string) {
  const recurring = type !== "order_confirmation";
  const invoice = type === "invoice_issued" || type === "invoice_reminder";
  return {
    id: "00000000-0000-4000-8000-000000000001",
    created_at: "2026-01-01T00:00:00.000Z",
    status: type === "subscription_past_due" || invoice ? "pending" : "paid",
    ...(invoice ? { due_at: "2026-01-31T00:00:00.000Z", purchase_order: "PO-4711" } : {}),
    currency: "usd",
    subtotal_amount: 2000,
    discount_amount: 200,
    tax_amount: 360,
    total_amount: 2160,
    invoice_number: `${slug.toUpperCase().slice(0, 12)}-0001`,
    billing_reason: type === "order_confirmation" ? "purchase" : type === "subscription_confirmation" ? "subscription_create" : "subscription_cycle",
    seats: null,
    customer,
    product,
    items: [{ label: recurring ? "Pro plan (monthly)" : "Pro plan", amount: 2000, tax_amount: 360 }],
    subscription: recurring ? { current_period_end: periodEnd, recurring_interval: "month", recurring_interval_count: 1 } : null,
  };
}

function sampleSubscription(type: CustomerEmailType) {
  const canceled = type === "subscription_cancellation";
  const revoked = type === "subscription_revoked";
  return {
    id: "00000000-0000-4000-8000-000000000002",
    status: revoked ? "canceled" : "active",
    amount: 2000,
    currency: "usd",
    recurring_interval: "month",
    recurring_interval_count: 1,
    current_period_end: periodEnd,
    cancel_at_period_end: canceled,
    ends_at: canceled ? periodEnd : revoked ? "2026-01-15T00:00:00.000Z" : null,
    ended_at: revoked ? "2026-01-15T00:00:00.000Z" : null,
    customer,
    product,
  };
}

function sampleSeatInvitation() {
  return {
    seat_id: "00000000-0000-4000-8000-000000000003",
    email: "sam@example.com",
    token: "sample-invitation-token",
    expires_at: "2026-01-08T00:00:00.000Z",
    product,
    invited_by: customer.name,
  };
}

function sampleUsageAlert() {
  return {
    audience: "customer",
    alert: { kind: "cap_percent", threshold: 80 },
    customer: { ...customer, id: "00000000-0000-4000-8000-000000000004", external_id: null },
    meter: { id: "00000000-0000-4000-8000-000000000005", name: "API calls" },
    period_start: "2026-01-01T00:00:00.000Z",
    period_end: periodEnd,
    consumed_units: 42_000,
    credited_units: 0,
    amount: 4200,
    cap_amount: 5000,
    currency: "usd",
    value: 84,
  };
}

function sampleDispute(type: CustomerEmailType, slug: string) {
  return {
    id: "00000000-0000-4000-8000-000000000004",
    status: type === "dispute_closed" ? "lost" : "needs_response",
    amount: 2000,
    tax_amount: 360,
    currency: "usd",
    reason: "fraudulent",
    evidence_due_by: "2026-01-20T00:00:00.000Z",
    order: { id: "00000000-0000-4000-8000-000000000001", invoice_number: `${slug.toUpperCase().slice(0, 12)}-0001`, product, customer_email: customer.email },
  };
}

function sampleRefundFailed(slug: string) {
  return {
    refund: { id: "00000000-0000-4000-8000-000000000004", status: "failed", amount: 2000, tax_amount: 360, currency: "usd", failure_reason: "expired_or_canceled_card" },
    order: { id: "00000000-0000-4000-8000-000000000001", invoice_number: `${slug.toUpperCase().slice(0, 12)}-0001`, product, customer_email: customer.email },
    benefits_granted_again: 1,
  };
}

function sampleOrderRefunded(slug: string) {
  return {
    refund: { id: "00000000-0000-4000-8000-000000000006", amount: 1000, tax_amount: 180, currency: "usd" },
    order: { id: "00000000-0000-4000-8000-000000000001", invoice_number: `${slug.toUpperCase().slice(0, 12)}-0001`, product, total_amount: 2160, refunded_amount: 1000, refunded_tax_amount: 180 },
    to_wallet: 0,
  };
}

export function previewData(type: CustomerEmailType, slug: string): Record<string, unknown> {
  if (type === "dispute_opened" || type === "dispute_closed") return sampleDispute(type, slug);
  if (type === "refund_failed") return sampleRefundFailed(slug);
  if (type === "order_refunded") return sampleOrderRefunded(slug);
  if (type === "seat_invitation") return sampleSeatInvitation();
  if (type === "usage_alert") return sampleUsageAlert();
  if (type === "processor_error") {
    return {
      audience: "seller", code: "resource_missing", detail: "No such customer: 'cus_Q1x2y3z4'", transient: false, what: "renewal",
      id: "00000000-0000-4000-8000-000000000001", at: "2026-01-01T00:00:00.000Z",
    };
  }
  if (type === "duplicate_payment_refunded") {
    const order = { id: "00000000-0000-4000-8000-000000000001", invoice_number: `${slug.toUpperCase().slice(0, 12)}-0001`, product, total_amount: 2160 };
    return { amount: 2160, currency: "usd", method: "bank_transfer", order };
  }
  if (type === "wallet_recharge_failed") return { amount: 2000, currency: "usd", balance: 150, reason: "Your card was declined." };
  if (type === "trial_ending") return { subscription_id: "00000000-0000-4000-8000-000000000002", trial_end: "2026-01-15T00:00:00.000Z", amount: 2000, currency: "usd", product };
  if (type === "email_update") return { email: "ada.new@example.com", token: "sample-email-update-token", expires_at: "2026-01-01T01:00:00.000Z" };
  return ORDER_EMAIL_TYPES.includes(type) ? sampleOrder(type, slug) : sampleSubscription(type);
}
