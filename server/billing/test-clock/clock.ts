// The one place time-driven code reads "now" for an organization: the wall clock plus the organization's test
// clock offset (sandbox organizations only; any other organization runs on the wall clock). Renewals, trials,
// cancellations at period end, event timestamps, checkout and license key expiries ask here.
import type { Queryable } from "../../db/client.js";
import { findClock } from "./repository.js";

export { orgNowSql } from "./repository.js";

/** The organization's now at the wall clock `wall` (default: the wall clock now). */
export async function orgNow(db: Queryable, organizationId: string, wall: Date = new Date()): Promise<Date> {
  const clock = await findClock(db, organizationId);
  return clock && clock.offsetMs !== 0 ? new Date(wall.getTime() + clock.offsetMs) : wall;
}
