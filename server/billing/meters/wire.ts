// The Polar `Meter` shapes, built from meter rows.
import type { InferSelectModel } from "drizzle-orm";
import type { meter } from "../../db/schema/index.js";
import type { Aggregation, Filter } from "../../../shared/meter-filter.js";

export type MeterRow = InferSelectModel<typeof meter>;

/** What prices and benefits embed (`ProductPriceMeter` plus the custom unit fields). */
export interface MeterSummaryWire {
  id: string;
  name: string;
  unit: string;
  custom_label: string | null;
  custom_multiplier: number | null;
}

export function toMeterSummaryWire(row: MeterRow): MeterSummaryWire {
  return {
    id: row.id,
    name: row.name,
    unit: row.unit,
    custom_label: row.customLabel ?? null,
    custom_multiplier: row.customMultiplier ?? null,
  };
}

/** The stored definition, in the wire's own shape (validated before it was stored). */
export const meterDefinition = (row: MeterRow) => ({
  id: row.id,
  filter: row.filter as unknown as Filter,
  aggregation: row.aggregation as unknown as Aggregation,
});

export function toMeterWire(row: MeterRow) {
  const { filter, aggregation } = meterDefinition(row);
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    metadata: row.metadata,
    name: row.name,
    unit: row.unit,
    custom_label: row.customLabel ?? null,
    custom_multiplier: row.customMultiplier ?? null,
    filter,
    aggregation,
    organization_id: row.organizationId,
    archived_at: row.archivedAt?.toISOString() ?? null,
  };
}

export type MeterWire = ReturnType<typeof toMeterWire>;
