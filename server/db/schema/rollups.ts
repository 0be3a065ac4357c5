// Meter rollups: what each meter measured per customer and hour, kept as events arrive (events/rollups.ts), so a
// customer's usage reads a few thousand buckets instead of every event. A row's customer is the event's pair
// (customer_id, external_customer_id) with '' for an absent one, so a read selects rows exactly as it selects
// events. `meter_rollup_value` holds each bucket's distinct values for `unique` meters (billing cannot estimate).
import { sql } from "drizzle-orm";
import { bigint, doublePrecision, index, integer, jsonb, numeric, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";

import { meter } from "./billing.js";
import { org, cascadeRef, modifiedAt, timestamptz } from "./columns.js";

/**
 * Per meter: `ready` (rollups complete, reads use them), `building` (a rebuild is due; reads scan events), `stopped`
 * (archived).
 */
export const meterRollupState = pgTable(
  "meter_rollup_state",
  {
    meterId: uuid("meter_id")
      .primaryKey()
      .references(() => meter.id, { onDelete: "cascade" }),
    organizationId: org(),
    status: text("status").notNull(),
    /** Raised by every definition change; a rebuild marks the meter ready only if no change came meanwhile. */
    version: integer("version").default(1).notNull(),
    modifiedAt: modifiedAt().defaultNow().notNull(),
  },
  (t) => [index("meter_rollup_state_building_idx").on(t.status).where(sql`${t.status} = 'building'`)],
);

export const meterRollup = pgTable(
  "meter_rollup",
  {
    meterId: cascadeRef("meter_id", () => meter.id),
    customerId: text("customer_id").notNull(),
    externalCustomerId: text("external_customer_id").notNull(),
    /** The UTC hour. */
    bucket: timestamptz("bucket").notNull(),
    /** Events counted (for a property aggregation: the events whose property is a number). */
    events: bigint("events", { mode: "number" }).notNull(),
    /** Exact sum of the property (numeric: sums of sums equal the sum). */
    total: numeric("total"),
    minimum: doublePrecision("minimum"),
    maximum: doublePrecision("maximum"),
  },
  (t) => [
    primaryKey({ columns: [t.meterId, t.customerId, t.externalCustomerId, t.bucket] }),
    index("meter_rollup_external_idx").on(t.meterId, t.externalCustomerId, t.bucket),
  ],
);

export const meterRollupValue = pgTable(
  "meter_rollup_value",
  {
    meterId: cascadeRef("meter_id", () => meter.id),
    customerId: text("customer_id").notNull(),
    externalCustomerId: text("external_customer_id").notNull(),
    bucket: timestamptz("bucket").notNull(),
    value: jsonb("value").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.meterId, t.customerId, t.externalCustomerId, t.bucket, t.value] }),
    index("meter_rollup_value_external_idx").on(t.meterId, t.externalCustomerId, t.bucket),
  ],
);

/**
 * How many statements changed a (meter, customer) pair's `meter_rollup` rows, kept by triggers on it (migration
 * 0086, so every writer counts): a usage read that saw the same count, at the same rollup version, reads the same
 * quantity (events/usage-stamps.ts reuses it). Never lowered, so a sum over a customer's pairs only grows.
 */
export const meterUsageStamp = pgTable(
  "meter_usage_stamp",
  {
    meterId: cascadeRef("meter_id", () => meter.id),
    customerId: text("customer_id").notNull(),
    externalCustomerId: text("external_customer_id").notNull(),
    writes: bigint("writes", { mode: "number" }).default(0).notNull(),
  },
  (t) => [
    primaryKey({ name: "meter_usage_stamp_pk", columns: [t.meterId, t.customerId, t.externalCustomerId] }),
    index("meter_usage_stamp_external_idx").on(t.meterId, t.externalCustomerId),
  ],
);
