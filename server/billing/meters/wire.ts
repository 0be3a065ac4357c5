// The Polar `Meter` shapes, built from meter rows.
import type { InferSelectModel } from "drizzle-orm";
import type { meter } from "../../db/schema/index.js";

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
