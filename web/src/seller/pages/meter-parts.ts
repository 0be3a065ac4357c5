// A meter as the pages read it, and what its list and its page both do (archiving), kept apart from the list's
// table so a meter's page does not load the table's code.
import type { Filter } from "../../../../shared/meter-filter.js";
import { v1 } from "../api.js";
import type { useSeller } from "../context.js";

export interface Meter {
  id: string;
  name: string;
  created_at: string;
  archived_at?: string | null;
  filter: Filter;
  aggregation: { func: string; property?: string | null };
}

export const measures = (m: Meter) => `${m.aggregation.func}${m.aggregation.property ? ` of ${m.aggregation.property}` : ""}`;
export const ARCHIVE_METER_BODY = "It stops counting for new prices; prices and credits that use it keep working, and you can restore it.";

/** Archives or restores a meter; the API's message when it refuses. */
export async function archiveMeter(scope: ReturnType<typeof useSeller>["scope"], m: Meter, on: boolean): Promise<Meter | string> {
  const r = await v1<Meter>(scope, "PATCH", `/meters/${m.id}`, { body: { is_archived: on } });
  return r.ok ? r.data : r.error.message;
}

