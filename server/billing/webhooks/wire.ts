// Rows → Polar's WebhookEndpoint, WebhookEvent and WebhookDelivery shapes (plus a few keys the SDK ignores:
// attempt numbers, timing and errors of the delivery log).
import type { webhookDelivery, webhookEndpoint, webhookEvent } from "../../db/schema/index.js";
import { openStored } from "../../seal.js";

export type EndpointRow = typeof webhookEndpoint.$inferSelect;
export type EventRow = typeof webhookEvent.$inferSelect;
export type DeliveryRow = typeof webhookDelivery.$inferSelect;

/** An event the worker leased, with its endpoint's address and secret (sealed, as stored). */
export interface ClaimedEvent {
  id: string;
  organizationId: string;
  endpointId: string;
  type: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  enabled: boolean;
  /** The endpoint's count when claimed: a success need not reset a count that was already 0. */
  failedEventsInRow: number;
}

export { SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../../../shared/webhook-events.js";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export interface WebhookEndpointWire {
  created_at: string;
  modified_at: string | null;
  id: string;
  url: string;
  name: string | null;
  format: string;
  secret: string;
  organization_id: string;
  events: string[];
  enabled: boolean;
}

export function toEndpointWire(row: EndpointRow): WebhookEndpointWire {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: iso(row.modifiedAt),
    id: row.id,
    url: row.url,
    name: row.name,
    format: row.format,
    secret: openStored("webhook-secret", row.secret),
    organization_id: row.organizationId,
    events: row.events,
    enabled: row.enabled,
  };
}

export interface WebhookEventWire {
  created_at: string;
  modified_at: string | null;
  id: string;
  last_http_code: number | null;
  succeeded: boolean | null;
  skipped: boolean;
  payload: string | null;
  type: string;
  is_archived: boolean;
  webhook_endpoint_id: string;
  attempts: number;
  next_attempt_at: string | null;
}

export function toEventWire(row: EventRow): WebhookEventWire {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: iso(row.modifiedAt),
    id: row.id,
    last_http_code: row.lastHttpCode,
    succeeded: row.succeeded,
    skipped: row.skipped,
    payload: row.payload,
    type: row.type,
    is_archived: false,
    webhook_endpoint_id: row.endpointId,
    attempts: row.attempts,
    next_attempt_at: iso(row.nextAttemptAt),
  };
}

export interface WebhookDeliveryWire {
  created_at: string;
  modified_at: string | null;
  id: string;
  succeeded: boolean;
  http_code: number | null;
  /** The body the endpoint answered (≤ 2 KB), or the error when it could not be reached. */
  response: string | null;
  webhook_event: WebhookEventWire;
  webhook_endpoint_id: string;
  attempt: number;
  duration_ms: number;
  error: string | null;
}

export function toDeliveryWire(row: DeliveryRow, event: EventRow): WebhookDeliveryWire {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: null,
    id: row.id,
    succeeded: row.succeeded,
    http_code: row.httpCode,
    response: row.httpCode === null ? row.error : row.response,
    webhook_event: toEventWire(event),
    webhook_endpoint_id: row.endpointId,
    attempt: row.attempt,
    duration_ms: row.durationMs,
    error: row.error,
  };
}
