// Webhook event types, for the server (outbox, endpoints, the listen stream) and the CLI (webhooks, trigger,
// listen): one list, so an endpoint, the stream and the CLI never disagree on what exists.

/** The product spec's 27 payment webhook events, in its order: every one is emitted by till. */
export const PAYMENT_EVENT_TYPES = [
  "benefit.created", "benefit.updated",
  "benefit_grant.created", "benefit_grant.updated", "benefit_grant.revoked", "benefit_grant.cycled",
  "checkout.created", "checkout.updated",
  "order.created", "order.updated", "order.paid", "order.refunded",
  "organization.updated",
  "product.created", "product.updated",
  "refund.created", "refund.updated",
  "subscription.created", "subscription.active", "subscription.updated", "subscription.canceled",
  "subscription.uncanceled", "subscription.revoked",
  "customer.created", "customer.updated", "customer.deleted", "customer.state_changed",
] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

/** Polar's customer seat events, emitted by till beside the spec's 27. */
export const SEAT_EVENT_TYPES = ["customer_seat.assigned", "customer_seat.claimed", "customer_seat.revoked"] as const;
export type SeatEventType = (typeof SEAT_EVENT_TYPES)[number];

/** Polar's member events: a team customer's members added, changed, removed. */
export const MEMBER_EVENT_TYPES = ["member.created", "member.updated", "member.deleted"] as const;
export type MemberEventType = (typeof MEMBER_EVENT_TYPES)[number];

/** Dunning's event: a renewal's charge failed and the subscription went past due. */
export const DUNNING_EVENT_TYPES = ["subscription.past_due"] as const;
export type DunningEventType = (typeof DUNNING_EVENT_TYPES)[number];

/** A checkout's expiry: announced once by the expiry pass (billing/checkouts/expiry.ts). */
export const CHECKOUT_EXPIRY_EVENT_TYPES = ["checkout.expired"] as const;
export type CheckoutExpiryEventType = (typeof CHECKOUT_EXPIRY_EVENT_TYPES)[number];

/**
 * Every type an endpoint may subscribe to: Polar's WebhookEventType of SDK 0.47.1 and 0.49.0 together (the
 * payment, checkout expiry, seat, member and past due events, plus types till accepts but does not emit: pause).
 */
export const WEBHOOK_EVENT_TYPES = [
  ...PAYMENT_EVENT_TYPES,
  ...CHECKOUT_EXPIRY_EVENT_TYPES,
  ...SEAT_EVENT_TYPES,
  ...MEMBER_EVENT_TYPES,
  "subscription.past_due", "subscription.paused", "subscription.resumed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isPaymentEventType = (v: string): v is PaymentEventType => (PAYMENT_EVENT_TYPES as readonly string[]).includes(v);
export const isWebhookEventType = (v: string): v is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(v);

/**
 * till's own event types (no Polar counterpart, so the SDKs' validateEvent does not know them): sent only to
 * endpoints that name them in `events` (never by "all events") and to `till listen` only when asked for. The
 * wallet events are recorded by the ledger's trigger (migration 0057) with every movement of a wallet.
 */
export const TILL_EVENT_TYPES = ["till.usage_alert.triggered", "till.wallet.transaction.created", "till.wallet.updated"] as const;
export type TillEventType = (typeof TILL_EVENT_TYPES)[number];

/** What an endpoint's `events` may list: Polar's types and till's own. */
export const SUBSCRIBABLE_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, ...TILL_EVENT_TYPES] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];
export const isTillEventType = (v: string): v is TillEventType => (TILL_EVENT_TYPES as readonly string[]).includes(v);
