// The outbox: side effects recorded in the transaction that causes them. A service calls enqueue(tx, …)
// inside its write transaction, so an event exists exactly when its cause committed; the worker (webhook
// delivery, with retries) claims pending rows later with FOR UPDATE SKIP LOCKED. It sits below billing (beside
// the schema): every domain writes to it, none through another.
import { sql } from "drizzle-orm";
import type { Queryable } from "./client.js";
import { order, outbox } from "./schema/index.js";
import {
  CHECKOUT_EXPIRY_EVENT_TYPES,
  DUNNING_EVENT_TYPES,
  MEMBER_EVENT_TYPES,
  PAYMENT_EVENT_TYPES,
  SEAT_EVENT_TYPES,
  type TillEventType,
  type CheckoutExpiryEventType,
  type DunningEventType,
  type MemberEventType,
  type PaymentEventType,
  type SeatEventType,
} from "../../shared/webhook-events.js";

/** The channel the outbox trigger (migration 0005) notifies, waking the worker; redeliveries notify it too. */
export const WAKE_CHANNEL = "till_outbox";

/**
 * The webhook event types till emits: the spec's 27 payment events, a checkout's expiry, the customer seat events and
 * dunning's past due, the member events (the payload's `data` is the resource's API shape).
 */
export const OUTBOX_EVENT_TYPES = [...PAYMENT_EVENT_TYPES, ...CHECKOUT_EXPIRY_EVENT_TYPES, ...SEAT_EVENT_TYPES, ...DUNNING_EVENT_TYPES, ...MEMBER_EVENT_TYPES] as const;
/**
 * Outbox types that are work for the worker, never webhooks: no endpoint may subscribe to them (they are not
 * webhook types) and `till listen` leaves them out. `stripe.event`: a Stripe event recorded by the inbound
 * endpoint, processed by billing/processor-events.
 */
export const INTERNAL_OUTBOX_TYPES = ["stripe.event"] as const;
export type InternalOutboxType = (typeof INTERNAL_OUTBOX_TYPES)[number];
export type OutboxEventType = PaymentEventType | CheckoutExpiryEventType | SeatEventType | DunningEventType | MemberEventType | InternalOutboxType;

export interface OutboxEvent {
  /** Polar's types, or till's own (a usage alert crossed: shared/webhook-events.ts TILL_EVENT_TYPES). */
  type: OutboxEventType | TillEventType;
  organizationId: string;
  /** The resource as the API returns it (JSON-ready: datetimes already ISO strings). */
  data: Record<string, unknown>;
  /**
   * The order whose invoice number `data.invoice_number` takes, read by the INSERT itself: a number only the
   * database knows yet (taken by a statement sent just before in the same round trip, or at a renewal batch's end).
   */
  invoiceNumberOf?: string;
  /**
   * A customer email the cause asks for that the type alone does not tell (a plan change is one
   * `subscription.updated` among many): the customer email subscriber reads it; webhooks never carry it.
   */
  mail?: "subscription_updated" | "subscription_cycled_after_trial";
}

/**
 * `customer.state_changed` for a customer whose subscriptions, grants or usage just changed. Only the id is
 * recorded: the worker computes the CustomerState when it fans the event out (after the cause committed, like
 * Polar's own background computation), so a write path pays nothing for it and the payload is never stale
 * relative to the commit. The computed state replaces the stored payload.
 */
export function customerStateChanged(organizationId: string, customerId: string): OutboxEvent & { type: "customer.state_changed" } {
  return { type: "customer.state_changed", organizationId, data: { id: customerId } };
}

/** Records events in the caller's transaction, in order. */
export async function enqueue(tx: Queryable, events: OutboxEvent | OutboxEvent[]): Promise<void> {
  const list = Array.isArray(events) ? events : [events];
  if (list.length === 0) return;
  // One statement whatever the number of events, and always the same text (prepared once per connection; a text
  // that varied with the events would be a new prepared statement per call, kept by the driver and the server
  // for the connection's life): the events travel as one JSON parameter (building a multi-row INSERT costs far
  // more than the row itself). created_at orders the events of a transaction: each gets its own instant, in
  // order. An event naming an order (`n`) gets that order's invoice number in its payload.
  const rows = list.map((e) => ({ o: e.organizationId, t: e.type, p: e.data, ...(e.mail ? { m: e.mail } : {}), ...(e.invoiceNumberOf ? { n: e.invoiceNumberOf } : {}) }));
  const now = new Date().toISOString();
  await tx
    .insert(outbox)
    .select(
      sql`SELECT gen_random_uuid(), (e.x ->> 'o')::uuid, e.x ->> 't',
        CASE WHEN e.x ? 'n' THEN jsonb_set(e.x -> 'p', '{invoice_number}', to_jsonb((SELECT o.invoice_number FROM ${order} o
          WHERE o.id = (e.x ->> 'n')::uuid AND o.organization_id = (e.x ->> 'o')::uuid))) ELSE e.x -> 'p' END,
        ${now}::timestamptz + (e.i - 1) * interval '1 millisecond', ${now}::timestamptz, 0, NULL::timestamptz, NULL::text, NULL::bigint, e.x ->> 'm'
        FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) WITH ORDINALITY AS e(x, i)`,
    )
    // prepared: on postgres.js an unprepared statement with parameters costs a describe round trip first
    .prepare("outbox_insert")
    .execute();
}

/**
 * A domain's reaction to events just recorded (customer emails, invoices, benefit deliveries, a product's
 * subscribers re-granted): run by the worker in its fan-out transaction with the outbox rows (`Row`: what the
 * domain reads of them), it records its own jobs and returns how many, so the worker wakes the loop doing them.
 * A lower domain reacting to a higher one's change subscribes here rather than being called by it.
 */
export interface OutboxSubscriber<Row> {
  /** The subscriber's name; the job the worker wakes once it recorded jobs is named in its domain's jobs.ts. */
  name: "customer-emails" | "invoices" | "benefit-delivery" | "product-benefits" | "stripe-events" | "wallets" | "wallet-recharges" | "bank-transfers";
  receive(tx: Queryable, rows: Row[], log: { error(err: unknown, msg: string): void }): Promise<number>;
}
