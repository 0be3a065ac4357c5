// Usage events another domain records in its own transaction (a reservation's commit), as an ingest records them:
// rollups kept, an external id seen before skipped. `recordUsageEvents` (service.ts) runs the steps one after the
// other; `usageEventFlight` hands them over as statements for a caller that pipelines its transaction (sends each
// without waiting for the one before: the lock and the kept meters with its own reads, the INSERT with its own write
// and the COMMIT), in this order: the shared ingest lock, the kept meters read under it, then the INSERT with those
// meters' upkeep. The statements are built once (by the organization's kept meters, for the INSERT) and reused
// with their parameters filled in: building one with drizzle costs more of the server's CPU than running it.
import { sql, type SQL } from "drizzle-orm";
import { queryOf } from "../../db/prepared.js";
import type { EventInsert } from "./repository.js";
import { batchInserted, insertWithUpkeep, keptMetersSql, sharedIngestLock, type InsertedRow, type RollupMeter } from "./rollups.js";

/** A customer's usage of a meter read ahead of a statement already sent that will ask for it (usage-stamps.ts). */
export { readAhead as readUsageAhead } from "./usage-stamps.js";

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

/** A statement as sendQuery sends it. */
export interface Statement {
  text: string;
  params: Array<string | null>;
}

export interface UsageEventFlight {
  /** The shared ingest lock (a rebuild of a meter's rollups waits for the transaction). */
  lock: Statement;
  /** The meters whose rollups are kept: rows of RollupMeter, read once the lock is held. */
  meters: Statement;
  /**
   * The INSERT of the events and the upkeep of the meters (the rows `meters` answered under the lock); with `when`,
   * an SQL condition the statement evaluates: false, it inserts nothing (a caller that sent it ahead of checking).
   */
  insert(events: UsageEventInput[], meters: readonly object[], when?: string): Statement;
  /** How many events the INSERT's rows say it stored. */
  inserted(rows: readonly object[]): number;
}

// Stand-ins the statements are built with, replaced by the values when one is sent (never sent themselves: not a
// UUID, not JSON)
const ORGANIZATION = "\u0000organization";
const ROWS = "\u0000rows";

/** A statement built with the stand-ins, and where each of them goes among its parameters. */
interface Template {
  text: string;
  params: Array<string | null>;
  slots: Array<"organization" | "rows" | null>;
}

function template(query: SQL): Template {
  const { text, params } = queryOf(query);
  return { text, params, slots: params.map((p) => (p === ORGANIZATION ? "organization" : p === ROWS ? "rows" : null)) };
}

const fill = (t: Template, organizationId: string, rows: string | null = null): Statement => ({
  text: t.text,
  params: t.params.map((p, i) => (t.slots[i] === "organization" ? organizationId : t.slots[i] === "rows" ? rows : p)),
});

const LOCK = template(sharedIngestLock(ORGANIZATION));
const METERS = template(keptMetersSql(ORGANIZATION));
/** INSERTs built, by the kept meters they keep the rollups of (oldest first out past the limit). */
const inserts = new Map<string, Template>();
const INSERTS_LIMIT = 500;

function insertTemplate(meters: RollupMeter[], when: string | undefined): Template {
  const key = JSON.stringify([meters, when ?? null]);
  let t = inserts.get(key);
  if (!t) {
    const json = when === undefined ? ROWS : sql`(CASE WHEN ${sql.raw(when)} THEN ${ROWS}::text ELSE '[]' END)`;
    t = template(insertWithUpkeep(ORGANIZATION, { json }, meters));
    if (inserts.size >= INSERTS_LIMIT) inserts.delete(inserts.keys().next().value!);
    inserts.set(key, t);
  }
  return t;
}

export function usageEventFlight(organizationId: string): UsageEventFlight {
  return {
    lock: fill(LOCK, organizationId),
    meters: fill(METERS, organizationId),
    insert: (events, meters, when) => fill(insertTemplate(meters as RollupMeter[], when), organizationId, JSON.stringify(usageEventRows(events))),
    inserted: (rows) => batchInserted(rows[0] as InsertedRow | undefined).inserted,
  };
}
