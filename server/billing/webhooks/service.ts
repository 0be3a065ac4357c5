// Rules for webhooks: endpoints (where, what, which format, secrets), the delivery log and redelivery. The
// worker's steps (fan-out, claims, attempts recorded) are in delivery.ts.
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { queryArray, queryBool, datetimeInput, isUuid, paginationQuery } from "../http.js";
import { invalid, notFound } from "../errors.js";
import { targetError } from "./address.js";
import { WEBHOOK_FORMATS } from "./format.js";
import * as repo from "./repository.js";
import { generateSecret } from "./signing.js";
import { sealStored } from "../../seal.js";
import {
  toDeliveryWire,
  toEndpointWire,
  SUBSCRIBABLE_EVENT_TYPES,
  type EndpointRow,
  type WebhookDeliveryWire,
  type WebhookEndpointWire,
} from "./wire.js";

const NOT_FOUND = "Webhook endpoint not found";

// ---- input --------------------------------------------------------------------------------------

// Polar's types and till's own (an endpoint gets till's only by naming them)
const events = z.array(z.enum(SUBSCRIBABLE_EVENT_TYPES)).max(SUBSCRIBABLE_EVENT_TYPES.length * 2);
const name = z.string().trim().max(255);

export const EndpointCreateInput = z.object({
  url: z.string(),
  name: name.nullish(),
  format: z.enum(WEBHOOK_FORMATS),
  events,
  organization_id: z.string().nullish(),
});
export type EndpointCreateInput = z.output<typeof EndpointCreateInput>;

export const EndpointUpdateInput = z.object({
  url: z.string().nullish(),
  name: name.nullish(),
  format: z.enum(WEBHOOK_FORMATS).nullish(),
  events: events.nullish(),
  enabled: z.boolean().nullish(),
});
export type EndpointUpdateInput = z.output<typeof EndpointUpdateInput>;

const uuidItem = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

export const DeliveryListQuery = z.object({
  endpoint_id: queryArray(uuidItem).optional(),
  start_timestamp: datetimeInput.optional(),
  end_timestamp: datetimeInput.optional(),
  succeeded: queryBool.optional(),
  query: z.string().max(200).optional(),
  http_code_class: z.enum(["2xx", "3xx", "4xx", "5xx"]).optional(),
  event_type: queryArray(z.enum(SUBSCRIBABLE_EVENT_TYPES)).optional(),
  ...paginationQuery,
});
export type DeliveryListQuery = z.output<typeof DeliveryListQuery>;

const uniqueEvents = (list: string[]) => [...new Set(list)];

async function checkUrl(url: string, allowPrivate: boolean): Promise<void> {
  const error = await targetError(url, allowPrivate);
  if (error) throw invalid(["body", "url"], error, "url_parsing");
}

// ---- endpoints ----------------------------------------------------------------------------------

export async function createEndpoint(
  db: Db,
  organizationId: string,
  input: EndpointCreateInput,
  allowPrivate: boolean,
): Promise<WebhookEndpointWire> {
  await checkUrl(input.url, allowPrivate);
  const row = await repo.insertEndpoint(db, {
    organizationId,
    url: input.url,
    name: input.name || null,
    format: input.format,
    events: uniqueEvents(input.events),
    secret: sealStored("webhook-secret", generateSecret()),
  });
  return toEndpointWire(row);
}

async function ownEndpoint(db: Queryable, organizationId: string, id: string): Promise<EndpointRow> {
  const row = await repo.findEndpoint(db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

export async function getEndpoint(db: Db, organizationId: string, id: string): Promise<WebhookEndpointWire> {
  return toEndpointWire(await ownEndpoint(db, organizationId, id));
}

export async function listEndpoints(db: Db, organizationId: string, pageNo: number, limit: number) {
  const { rows, total } = await repo.listEndpoints(db, organizationId, pageNo, limit);
  return { items: rows.map(toEndpointWire), total };
}

/** Absent or null keys keep their value. Enabling again clears the failure count; disabling skips what is pending. */
export async function updateEndpoint(
  db: Db,
  organizationId: string,
  id: string,
  input: EndpointUpdateInput,
  allowPrivate: boolean,
): Promise<WebhookEndpointWire> {
  await ownEndpoint(db, organizationId, id);
  if (input.url != null) await checkUrl(input.url, allowPrivate);
  return db.transaction(async (tx) => {
    const current = await ownEndpoint(tx, organizationId, id);
    const row = await repo.updateEndpoint(tx, organizationId, id, {
      ...(input.url != null ? { url: input.url } : {}),
      ...(input.name !== undefined ? { name: input.name || null } : {}),
      ...(input.format != null ? { format: input.format } : {}),
      ...(input.events != null ? { events: uniqueEvents(input.events) } : {}),
      ...(input.enabled === true && !current.enabled ? { enabled: true, failedEventsInRow: 0, disabledReason: null } : {}),
      ...(input.enabled === false ? { enabled: false, disabledReason: null } : {}),
    });
    if (!row) throw notFound(NOT_FOUND);
    if (input.enabled === false && current.enabled) await repo.skipPendingEvents(tx, id);
    return toEndpointWire(row);
  });
}

export async function resetSecret(db: Db, organizationId: string, id: string): Promise<WebhookEndpointWire> {
  const row = await repo.updateEndpoint(db, organizationId, id, { secret: sealStored("webhook-secret", generateSecret()) });
  if (!row) throw notFound(NOT_FOUND);
  return toEndpointWire(row);
}

/** Its events and delivery log go with it. */
export async function deleteEndpoint(db: Db, organizationId: string, id: string): Promise<void> {
  if (!(await repo.deleteEndpoint(db, organizationId, id))) throw notFound(NOT_FOUND);
}

// ---- the delivery log and redelivery --------------------------------------------------------------

export async function listDeliveries(
  db: Db,
  organizationId: string,
  q: DeliveryListQuery,
): Promise<{ items: WebhookDeliveryWire[]; total: number }> {
  const { rows, total } = await repo.listDeliveries(
    db,
    organizationId,
    {
      endpointIds: q.endpoint_id?.map((id) => id.toLowerCase()),
      start: q.start_timestamp ? new Date(q.start_timestamp) : undefined,
      end: q.end_timestamp ? new Date(q.end_timestamp) : undefined,
      succeeded: q.succeeded,
      query: q.query,
      httpCodeClass: q.http_code_class ? (Number(q.http_code_class[0]) as 2 | 3 | 4 | 5) : undefined,
      eventTypes: q.event_type,
    },
    q.page,
    q.limit,
  );
  return { items: rows.map((r) => toDeliveryWire(r.delivery, r.event)), total };
}

/**
 * Sends an event once more, with the same webhook-id (receivers deduplicate on it), as soon as a worker is free.
 * Its endpoint must be enabled: a disabled endpoint would only skip it again.
 */
export async function redeliverEvent(db: Db, organizationId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const event = await repo.findEvent(tx, organizationId, id);
    if (!event) throw notFound("Webhook event not found");
    const endpoint = await repo.findEndpoint(tx, organizationId, event.endpointId);
    if (!endpoint?.enabled) throw invalid(["path", "id"], "The webhook endpoint of this event is disabled; enable it first.");
    await repo.scheduleNow(tx, id);
    await repo.wakeWorkers(tx);
  });
}
