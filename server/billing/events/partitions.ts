// The event table's monthly partitions (migration 0060): months created ahead, and with a retention, whole months
// dropped once they are older than it. Dropping a month is not a DELETE: the statement triggers on "event" do not
// fire, so the events list's maintained count is lowered here in the same transaction, and the meter rollups and
// metric hours built from those events stay (reads of a meter's usage keep the dropped months through its rollups).
// A month is dropped only while no meter of any organization is rebuilding its rollups from the events.
import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "../../db/client.js";

/** Months created ahead of the current one. */
export const MONTHS_AHEAD = 3;

const PARTITION = /^event_y(\d{4})m(\d{2})$/;

/** The month partitions that exist, with the first moment after each (UTC). */
async function monthPartitions(db: Db): Promise<Array<{ name: string; end: Date }>> {
  const found = await rowsOf<{ name: string }>(
    db,
    sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'event'::regclass`,
  );
  return found.flatMap(({ name }) => {
    const m = PARTITION.exec(name);
    return m ? [{ name, end: new Date(Date.UTC(Number(m[1]), Number(m[2]), 1)) }] : [];
  });
}

/** This month's partition and the next MONTHS_AHEAD (events moved out of the default partition into each). */
export async function createEventPartitionsAhead(db: Db, now = new Date()): Promise<void> {
  for (let i = 0; i <= MONTHS_AHEAD; i++) {
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1));
    await db.execute(sql`SELECT till_event_partition(${month.toISOString()}::timestamptz)`);
  }
}

/** Drops each month that ended `retentionMonths` or more months before this one; the names dropped. */
export async function dropEventPartitions(db: Db, retentionMonths: number, now = new Date()): Promise<string[]> {
  const cutoff = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - retentionMonths, 1));
  const dropped: string[] = [];
  for (const part of await monthPartitions(db)) {
    if (part.end > cutoff) continue;
    const done = await db.transaction(async (tx) => {
      // a rebuild reads the events: leave the month until no meter is building
      const [building] = await rowsOf<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM meter_rollup_state WHERE status = 'building'`);
      if ((building?.n ?? 0) > 0) return false;
      await tx.execute(sql.raw(`LOCK TABLE "${part.name}" IN ACCESS EXCLUSIVE MODE`));
      await tx.execute(
        sql.raw(`INSERT INTO list_count (organization_id, list, n) SELECT organization_id, 'event', -count(*) FROM "${part.name}" GROUP BY organization_id`),
      );
      await tx.execute(sql.raw(`DROP TABLE "${part.name}"`));
      return true;
    });
    if (!done) break;
    dropped.push(part.name);
  }
  return dropped;
}
