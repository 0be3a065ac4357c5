// A reservation's commit sent ahead: the whole commit in one round trip, when this process took the hold (so it
// knows the customer, the meter's definition and the units held) and has committed for the organization before (so
// it knows the clock's offset and the meters whose rollups are kept). The statements are the commit's own, in its
// order — the reservation locked with the balance's lock, the ingest lock, the kept meters, the usage events'
// INSERT with their upkeep, the settlement, COMMIT — sent without waiting for one another, with one check after the
// locks (repository COMMIT_GUARD) that what the writes were built from is what the locks found. When it is not —
// the hold settled, expired or gone, the meter changed, a test clock moved, a meter's rollups started or stopped
// being kept — neither write happens, and the commit runs again the usual way (reservations.ts), which answers it.
import type { Db } from "../../db/client.js";
import { pipelinedTransaction, rawQuery, sendQuery, sent, type RawRows } from "../../db/prepared.js";
import type { Aggregation, Filter } from "../../../shared/meter-filter.js";
import { nowAtOffset } from "../clock.js";
import type { UsageEventFlight } from "../events/usage-events.js";
import * as repo from "./reservations-repository.js";
import { commitEvents, usageEventFor } from "./usage-event.js";

/**
 * A hold's and a commit's statements are prepared and planned once: their parameters (keys, the batch's JSON, a
 * period's bounds) decide little of their plans, and planning the facts' and the events' statements again on each
 * run cost more than running them.
 */
export const GENERIC_PLANS = { genericPlans: true };

interface HoldTaken {
  organizationId: string;
  customerId: string;
  meterId: string;
  units: number;
  filter: Filter;
  aggregation: Aggregation;
}

/** Holds this process took, by id; and per organization, the clock's offset and kept meters its last commit read. */
const holds = new Map<string, HoldTaken>();
const organizations = new Map<string, { offset: number | null; kept: RawRows }>();
const LIMIT = 10_000;

function keep<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  if (map.size >= LIMIT) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}

export const rememberHold = (id: string, hold: HoldTaken): void => keep(holds, id, hold);
export const forgetHold = (id: string): void => void holds.delete(id);

/** The clock's offset (LOCK_FOR_COMMIT's `offset_ms`) and the kept meters a commit of the organization read. */
export function rememberCommitReads(organizationId: string, locked: Record<string, unknown> | undefined, kept: RawRows): void {
  if (!locked) return;
  const offset = locked.offset_ms === null || locked.offset_ms === undefined ? null : Number(locked.offset_ms);
  keep(organizations, organizationId, { offset, kept });
}

/**
 * The commit of `units` of the hold `id` in one round trip, or null when it was not sent (nothing known of the
 * hold or the organization) or its check failed (nothing written): the caller then commits the usual way.
 */
export async function commitAhead(db: Db, organizationId: string, id: string, units: number, flight: UsageEventFlight) {
  const hold = holds.get(id);
  const known = organizations.get(organizationId);
  if (!hold || hold.organizationId !== organizationId || !known || units <= 0 || units > hold.units) return null;
  const now = Date.now();
  const plan = usageEventFor({ filter: hold.filter, aggregation: hold.aggregation }, units, Math.floor(now / 1000));
  if ("error" in plan) return null;
  const events = commitEvents(plan, hold.customerId, id, nowAtOffset(known.offset));
  const { filter, aggregation } = hold;
  const offset = known.offset === null ? null : String(known.offset);
  const guard = [organizationId, id, String(now), String(units), hold.customerId, hold.meterId, JSON.stringify(filter), JSON.stringify(aggregation), offset, JSON.stringify(known.kept)];
  const settlement = repo.settleParams(organizationId, id, { status: "committed", usedUnits: units, settledAt: new Date(now) });
  return pipelinedTransaction(
    db,
    async (ptx) => {
      // each on its way when called, in this order (the COMMIT with the last)
      const results = await Promise.allSettled([
        ptx.first(repo.LOCK_FOR_COMMIT, [organizationId, id]),
        sendQuery(ptx.db, flight.lock),
        sendQuery(ptx.db, flight.meters),
        sent(rawQuery(ptx.db, repo.COMMIT_GUARD, guard)),
        sendQuery(ptx.db, flight.insert(events, known.kept, repo.COMMIT_GUARDED)),
        ptx.last(repo.SETTLE_GUARDED, settlement),
      ]);
      const rows = results.map((r) => {
        if (r.status === "rejected") throw r.reason;
        return r.value;
      });
      const [locked, , kept, , inserted, settled] = rows;
      rememberCommitReads(organizationId, locked?.[0], kept ?? []);
      const row = settled?.[0];
      return row ? { row: repo.reservationOf(row), recorded: flight.inserted(inserted ?? []) } : null;
    },
    GENERIC_PLANS,
  );
}
