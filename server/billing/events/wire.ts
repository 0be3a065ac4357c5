// The Polar `Event` shape for user events (source "user"), `EventName` and `MeterQuantities`.
import type { CustomerWire } from "../customers/wire.js";
import type { EventNameRow, EventRow, QuantityBucket } from "./repository.js";

export function toEventWire(row: EventRow, customer: CustomerWire | null, childCount: number) {
  return {
    id: row.id,
    timestamp: row.timestamp.toISOString(),
    organization_id: row.organizationId,
    customer_id: row.customerId ?? customer?.id ?? null,
    customer,
    external_customer_id: row.externalCustomerId ?? null,
    member_id: null,
    external_member_id: null,
    child_count: childCount,
    parent_id: row.parentId ?? null,
    label: row.name,
    name: row.name,
    source: row.source,
    metadata: row.metadata,
  };
}

export type EventWire = ReturnType<typeof toEventWire>;

export function toEventNameWire(row: EventNameRow) {
  return {
    name: row.name,
    // 0.49.0 requires a label; user events are labelled by their name
    label: row.name,
    source: row.source,
    occurrences: row.occurrences,
    first_seen: new Date(row.first_seen_ms).toISOString(),
    last_seen: new Date(row.last_seen_ms).toISOString(),
  };
}

export function toMeterQuantitiesWire(buckets: QuantityBucket[], total: number) {
  return {
    quantities: buckets.map((b) => ({ timestamp: new Date(b.ts_ms).toISOString(), quantity: b.quantity })),
    total,
  };
}
