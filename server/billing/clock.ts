// The one place time-driven code reads "now" for an organization: the wall clock plus the organization's test
// clock offset (sandbox organizations only; any other organization runs on the wall clock). Renewals, trials,
// cancellations at period end, event timestamps, checkout and license key expiries ask here. The
// clock's row is read here; the test clock's advance (test-clock/) moves it.
import { eq, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Queryable } from "../db/client.js";
import { preparedPerHandle } from "../db/prepared.js";
import { qualified } from "../db/qualified.js";
import { testClock } from "../db/schema/index.js";

export interface ClockRow {
  offsetMs: number;
  createdAt: Date;
  modifiedAt: Date | null;
}

/** The organization's clock row, if it was ever advanced. */
export async function findClock(db: Queryable, organizationId: string): Promise<ClockRow | undefined> {
  const [row] = await clockOf(db).execute({ organizationId });
  return row;
}

// prepared: every time-driven request reads it (a confirm, an ingest), most often to find no row
const clockOf = preparedPerHandle((db) =>
  db
    .select({ offsetMs: testClock.offsetMs, createdAt: testClock.createdAt, modifiedAt: testClock.modifiedAt })
    .from(testClock)
    .where(eq(testClock.organizationId, sql.placeholder("organizationId")))
    .limit(1)
    .prepare("test_clock_of"),
);

/** The organization's now at the wall clock `wall` (default: the wall clock now). */
export async function orgNow(db: Queryable, organizationId: string, wall: Date = new Date()): Promise<Date> {
  const clock = await findClock(db, organizationId);
  return nowAtOffset(clock?.offsetMs ?? null, wall);
}

/**
 * The organization's clock offset (ms; null without a clock) as a column of a statement that reads one of its rows,
 * so a hot path (a checkout's page, its confirm) learns its now in the statement it needs anyway: `nowAtOffset` makes
 * it now.
 */
export const clockOffsetSql = (organizationIdColumn: AnyPgColumn): SQL<number | null> =>
  sql<number | null>`(select ${testClock.offsetMs}::float8 from ${testClock} where ${testClock.organizationId} = ${qualified(organizationIdColumn)})`.mapWith(Number);

/** The organization's now at the wall clock `wall`, its clock's offset read with `clockOffsetSql`. */
export const nowAtOffset = (offsetMs: number | null, wall: Date = new Date()): Date => (offsetMs ? new Date(wall.getTime() + offsetMs) : wall);

/**
 * The organization's now at the wall clock `wall`, as SQL, for a query over the rows of many organizations
 * (the renewal schedule's claim), or for one (its id as SQL): `wall` + the offset of the organization (0 without
 * a clock).
 */
export function orgNowSql(organizationIdColumn: AnyPgColumn | SQL, wall: Date): SQL {
  return sql`(${wall.toISOString()}::timestamptz
    + coalesce((select ${testClock.offsetMs} from ${testClock} where ${testClock.organizationId} = ${organizationIdColumn}), 0)
    * interval '1 millisecond')`;
}

/** The organizations whose clock is ahead of the wall clock (a subquery). */
export const advancedClocks: SQL = sql`(select ${testClock.organizationId} from ${testClock} where ${testClock.offsetMs} > 0)`;
