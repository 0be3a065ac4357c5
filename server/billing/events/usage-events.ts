// Usage events another domain records in its own transaction (a reservation's commit), as an ingest records them:
// rollups kept, an external id seen before skipped. `recordUsageEvents` (service.ts) runs the steps one after the
// other; `usageEventFlight` hands them over as statements for a caller that pipelines its transaction (sends each
// without waiting for the one before: the lock and the kept meters with its own reads, the INSERT with its own write
// and the COMMIT), in this order: the shared ingest lock, the kept meters read under it, then the INSERT with those
// meters' upkeep.
import type { SQL } from "drizzle-orm";
import type { EventInsert } from "./repository.js";
import { batchInserted, insertWithUpkeep, keptMetersSql, sharedIngestLock, type InsertedRow, type RollupMeter } from "./rollups.js";

export interface UsageEventInput {
  name: string;
  customerId: string;
  timestamp: Date;
  metadata: Record<string, string | number | boolean>;
  /** Makes the event once: a second record with the same external id is skipped. */
  externalId: string;
}

/** The batch rows of these events (rollups.ts BatchRows). */
export const usageEventRows = (events: UsageEventInput[]): EventInsert[] =>
  events.map((e, i) => ({
    n: i + 1,
    name: e.name,
    timestamp: e.timestamp.toISOString(),
    customer_id: e.customerId.toLowerCase(),
    external_customer_id: null,
    external_id: e.externalId,
    parent_id: null,
    metadata: e.metadata,
  }));

export interface UsageEventFlight {
  /** The shared ingest lock (a rebuild of a meter's rollups waits for the transaction). */
  lock: SQL;
  /** The meters whose rollups are kept: rows of RollupMeter, read once the lock is held. */
  meters: SQL;
  /** The INSERT of the events and the upkeep of the meters (the rows `meters` answered under the lock). */
  insert(events: UsageEventInput[], meters: readonly object[]): SQL;
  /** How many events the INSERT's rows say it stored. */
  inserted(rows: readonly object[]): number;
}

export function usageEventFlight(organizationId: string): UsageEventFlight {
  return {
    lock: sharedIngestLock(organizationId),
    meters: keptMetersSql(organizationId),
    insert: (events, meters) => insertWithUpkeep(organizationId, { rows: usageEventRows(events) }, meters as RollupMeter[]),
    inserted: (rows) => batchInserted(rows[0] as InsertedRow | undefined).inserted,
  };
}
