// The unfiltered lists' total_count without count(*) over the organization's rows. Triggers
// (migration 0032) append a delta row per writing statement and organization; the total is their sum. Reads fold
// the rows into one once there are more than COMPACT_AFTER of them, and the worker's cleanup folds every list
// hourly, so a sum reads a bounded number of rows.
//
// Folding is exact under concurrent writers: it deletes only rows it could lock (FOR UPDATE SKIP LOCKED: a row a
// concurrent fold holds is left to that fold) and inserts their sum in the same statement; rows of transactions
// that have not committed are not visible to it and stay as they are.
import { sql } from "drizzle-orm";
import { rowsOf as rows, type Queryable } from "../db/client.js";
import { listCount } from "../db/schema/index.js";

/** The lists counted: the table each one reads. */
export type CountedList = "order" | "subscription" | "event" | "customer";

/** Delta rows a read sums before it folds them (a fold is one DELETE … RETURNING plus one INSERT). */
export const COMPACT_AFTER = 64;


/** Folds one (organization, list)'s delta rows into one row (none when they sum to 0). */
export async function compactListCount(db: Queryable, organizationId: string, list: CountedList): Promise<void> {
  await db.execute(sql`
    WITH folded AS (
      DELETE FROM ${listCount} WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM ${listCount} WHERE organization_id = ${organizationId}::uuid AND list = ${list}
        FOR UPDATE SKIP LOCKED))
      RETURNING n)
    INSERT INTO ${listCount} (organization_id, list, n)
    SELECT ${organizationId}::uuid, ${list}, sum(n) FROM folded HAVING count(*) > 0 AND sum(n) <> 0`);
}

/** The exact number of rows in the organization's unfiltered list. */
export async function listTotal(db: Queryable, organizationId: string, list: CountedList): Promise<number> {
  const [row] = await rows<{ n: string | number | null; deltas: number }>(
    db,
    sql`SELECT sum(n)::bigint AS n, count(*)::int AS deltas FROM ${listCount}
        WHERE organization_id = ${organizationId}::uuid AND list = ${list}`,
  );
  if ((row?.deltas ?? 0) > COMPACT_AFTER) await compactListCount(db, organizationId, list);
  return Number(row?.n ?? 0);
}

/**
 * Folds every (organization, list) with more than one delta row, at most `limit` of them per call; returns how
 * many it folded. The worker's hourly cleanup calls it until it folds fewer than `limit`.
 */
export async function compactListCounts(db: Queryable, limit: number): Promise<number> {
  const found = await rows<{ organization_id: string; list: CountedList }>(
    db,
    sql`SELECT organization_id, list FROM ${listCount} GROUP BY organization_id, list
        HAVING count(*) > 1 OR sum(n) = 0 LIMIT ${limit}`,
  );
  for (const r of found) await compactListCount(db, r.organization_id, r.list);
  return found.length;
}

/**
 * total_count of a filtered list's page: exact from the page itself when it is not full (offset + its rows: the
 * last page, or the only one), else `count()` — an exact count(*) of the filter.
 */
export async function filteredTotal(pageNo: number, limit: number, rows: number, count: () => Promise<number>): Promise<number> {
  if (rows < limit && (rows > 0 || pageNo === 1)) return (pageNo - 1) * limit + rows;
  return count();
}
