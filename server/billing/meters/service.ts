// Rules for meters: definitions (filter + aggregation) and the quantities they measure over usage events.
import type { Queryable } from "../../db/client.js";
import { isUuid } from "../http.js";
import * as repo from "./repository.js";
import { toMeterSummaryWire, type MeterSummaryWire } from "./wire.js";

/** Meters by id for other domains (prices, benefits): {id, name, unit, custom_label, custom_multiplier}. */
export async function loadMeterSummaries(
  db: Queryable,
  organizationId: string,
  ids: string[],
): Promise<Map<string, MeterSummaryWire>> {
  const wanted = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  const rows = await repo.findMetersByIds(db, organizationId, wanted);
  return new Map(rows.map((row) => [row.id, toMeterSummaryWire(row)]));
}

/** The ids among `ids` that are not meters of this organization (malformed ids count as missing). */
export async function meterIdsExist(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  const valid = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  const found = new Set(await repo.existingMeterIds(db, organizationId, valid));
  return ids.filter((id) => !isUuid(id) || !found.has(id.toLowerCase()));
}
