// Tables of outbound webhooks: the seller's endpoints, one event per (outbox event × endpoint) that
// is retried until delivered, and the log of every attempt; plus the ids of inbound Polar webhooks already seen.
import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";

import { id, org, cascadeRef, createdAt, timestamptz } from "./columns.js";

export const webhookEndpoint = pgTable(
  "webhook_endpoint",
  {
    id: id(),
    organizationId: org(),
    url: text("url").notNull(),
    name: text("name"),
    /**
     * The signing key as given to the seller (its UTF-8 bytes are the HMAC key, see webhooks/signing.ts), sealed with
     * the server secret (server/seal.ts); a row from before sealing holds it in clear until start.
     */
    secret: text("secret").notNull(),
    /** raw | discord | slack */
    format: text("format").default("raw").notNull(),
    events: text("events").array().notNull(),
    enabled: boolean("enabled").default(true).notNull(),
    /** Events in a row that used up every attempt; reset by any delivered attempt. Disables the endpoint at a limit. */
    failedEventsInRow: integer("failed_events_in_row").default(0).notNull(),
    /** Why till disabled the endpoint itself (gone, failing); null when enabled or disabled by the seller. */
    disabledReason: text("disabled_reason"),
    createdAt: createdAt(),
    modifiedAt: timestamptz("modified_at"),
  },
  (t) => [index("webhook_endpoint_org_created_idx").on(t.organizationId, t.createdAt)],
);

/**
 * One message to one endpoint. Its id is the `webhook-id` header (stable across retries and redeliveries) and
 * `payload` the exact body, so every attempt signs the same bytes. `next_attempt_at` set = pending; a worker
 * claims it by leasing it (`locked_until`, `locked_by`), and only the lease holder records the outcome.
 */
export const webhookEvent = pgTable(
  "webhook_event",
  {
    id: id(),
    organizationId: org(),
    endpointId: cascadeRef("endpoint_id", () => webhookEndpoint.id),
    /** The outbox row it came from; with endpoint_id unique, so a fan-out can never duplicate. */
    outboxId: uuid("outbox_id"),
    type: text("type").notNull(),
    payload: text("payload").notNull(),
    /** Attempts made so far (recorded ones). */
    attempts: integer("attempts").default(0).notNull(),
    succeeded: boolean("succeeded"),
    lastHttpCode: integer("last_http_code"),
    /** Dropped without an attempt because its endpoint was disabled. */
    skipped: boolean("skipped").default(false).notNull(),
    nextAttemptAt: timestamptz("next_attempt_at"),
    lockedUntil: timestamptz("locked_until"),
    lockedBy: uuid("locked_by"),
    createdAt: createdAt(),
    modifiedAt: timestamptz("modified_at"),
  },
  (t) => [
    index("webhook_event_due_idx").on(t.nextAttemptAt).where(sql`${t.nextAttemptAt} IS NOT NULL`),
    index("webhook_event_endpoint_idx").on(t.endpointId, t.createdAt),
    uniqueIndex("webhook_event_outbox_endpoint_uq").on(t.outboxId, t.endpointId),
    // the retention cleanup (jobs/cleanup.ts): finished events by age; finishing always sets modified_at
    index("webhook_event_finished_idx").on(t.modifiedAt).where(sql`${t.nextAttemptAt} IS NULL`),
  ],
);

/** Every attempt to deliver an event: what the endpoint answered (body cut to 2 KB) or why it could not. */
export const webhookDelivery = pgTable(
  "webhook_delivery",
  {
    id: id(),
    organizationId: org(),
    endpointId: cascadeRef("endpoint_id", () => webhookEndpoint.id),
    eventId: cascadeRef("event_id", () => webhookEvent.id),
    attempt: integer("attempt").notNull(),
    succeeded: boolean("succeeded").notNull(),
    httpCode: integer("http_code"),
    response: text("response"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("webhook_delivery_org_created_idx").on(t.organizationId, t.createdAt),
    index("webhook_delivery_event_idx").on(t.eventId),
    index("webhook_delivery_endpoint_created_idx").on(t.endpointId, t.createdAt),
    index("webhook_delivery_created_idx").on(t.createdAt),
  ],
);

/**
 * Inbound webhooks (POST /api/auth/polar/webhooks) already accepted, by `webhook-id`: a repeat is acknowledged, not
 * handled again.
 */
export const inboundWebhook = pgTable(
  "inbound_webhook",
  {
    webhookId: text("webhook_id").primaryKey(),
    /** The sender's `webhook-timestamp`. */
    timestamp: timestamptz("timestamp").notNull(),
    type: text("type"),
    receivedAt: timestamptz("received_at").defaultNow().notNull(),
  },
  (t) => [index("inbound_webhook_timestamp_idx").on(t.timestamp)],
);
