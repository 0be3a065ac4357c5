// The outbox: side effects recorded in the transaction that causes them. A service calls enqueue(tx, …)
// inside its write transaction, so an event exists exactly when its cause committed; the worker (webhook
// delivery, with retries) claims pending rows later with FOR UPDATE SKIP LOCKED.
import { sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../db/client.js";
import { outbox } from "../db/schema/index.js";

/** The webhook event types till emits (Polar's names; the payload's `data` is the resource's API shape). */
export const OUTBOX_EVENT_TYPES = [
  "checkout.created",
  "checkout.updated",
  "order.created",
  "order.updated",
  "order.paid",
  "subscription.created",
  "subscription.active",
  "subscription.updated",
  "customer.created",
  "customer.updated",
  "customer.state_changed",
  "benefit_grant.created",
  // emitted by the catalog, customer and organization services (webhooks helper)
  "product.created",
  "product.updated",
  "benefit.created",
  "benefit.updated",
  "customer.deleted",
  "organization.updated",
] as const;
export type OutboxEventType = (typeof OUTBOX_EVENT_TYPES)[number];

export interface OutboxEvent {
  type: OutboxEventType;
  organizationId: string;
  /** The resource as the API returns it (JSON-ready: datetimes already ISO strings). */
  data: Record<string, unknown>;
  /**
   * Top-level fields of `data` only the database knows yet, filled in by the INSERT itself — e.g. an invoice
   * number taken by a statement sent just before in the same round trip.
   */
  fill?: Record<string, SQL>;
}

function payloadOf(e: OutboxEvent): Record<string, unknown> | SQL {
  if (!e.fill) return e.data;
  let payload: SQL = sql`${JSON.stringify(e.data)}::jsonb`;
  for (const [key, value] of Object.entries(e.fill)) payload = sql`jsonb_set(${payload}, ${`{${key}}`}::text[], to_jsonb(${value}))`;
  return payload;
}

/** Records events in the caller's transaction, in order (one INSERT for all of them). */
export async function enqueue(tx: Queryable, events: OutboxEvent | OutboxEvent[]): Promise<void> {
  const list = Array.isArray(events) ? events : [events];
  if (list.length === 0) return;
  // created_at orders the events of one transaction: give each its own instant, in order
  const now = Date.now();
  // prepared: on postgres.js an unprepared statement with parameters costs a describe round trip first
  await tx
    .insert(outbox)
    .values(
      list.map((e, i) => ({
        organizationId: e.organizationId,
        type: e.type,
        payload: payloadOf(e),
        createdAt: new Date(now + i),
        availableAt: new Date(now),
      })),
    )
    .prepare("outbox_insert")
    .execute();
}
