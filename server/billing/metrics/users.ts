// active_user_by_event from the rollups: the customers with events per period, a distinct count over
// metric_event_user_hour (one row per customer and UTC hour with events) — the one rollup read whose cost grows
// with the data. The folded rows are counted once per query shape and kept in memory with the organization's
// generation (migration 0054: bumped in the statement that changes its folded rows); each read then adds the
// unfolded rows whose customer has no folded row in the same period. The answer is the same distinct count
// (docs/metrics.md, "Active users"); a generation that moves between the two reads counts everything at once.
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import type { Period, Scope } from "./repository.js";

/** Query shapes kept per database handle (each a number per period). */
const MAX_ENTRIES = 256;
const caches = new WeakMap<object, Map<string, { generation: number; users: Map<number, number> }>>();

type UserRow = { b: number; users: number };
const iso = (ms: number) => new Date(ms).toISOString();

/** The distinct customers with events per period (`b`: the period's 1-based index in `all`). */
export async function userCounts(db: Queryable, s: Scope, all: Period[], starts: SQL): Promise<UserRow[]> {
  const from = iso(all[0]?.start ?? 0);
  const to = iso(all[all.length - 1]?.end ?? 0);
  const org = sql`${s.organizationId}::uuid`;
  const range = sql`u.organization_id = ${org} AND u.hour >= ${from}::timestamptz AND u.hour < ${to}::timestamptz`;
  const generation = sql`SELECT 0 AS b, coalesce((SELECT g.generation FROM metric_user_generation g WHERE g.organization_id = ${org}), 0)::float8 AS users`;
  const distinct = (folded: SQL) =>
    withMemory(db, (tx) =>
      rowsOf<UserRow>(
        tx,
        sql`${generation} UNION ALL SELECT b, count(*)::float8 FROM (SELECT DISTINCT width_bucket(u.hour, ${starts}) AS b, u.user_key
          FROM metric_event_user_hour u WHERE ${range} ${folded}) x GROUP BY b`,
      ),
    );
  // the unfolded rows whose customer has no folded row in the same period (a few thousand at most: the fold's
  // threshold)
  const unfolded = () =>
    rowsOf<UserRow>(
      db,
      sql`${generation} UNION ALL SELECT b, count(*)::float8 FROM (SELECT DISTINCT x.b, x.user_key FROM (
          SELECT width_bucket(u.hour, ${starts}) AS b, u.user_key FROM metric_event_user_hour u WHERE ${range} AND NOT u.folded) x
        WHERE NOT EXISTS (SELECT 1 FROM metric_event_user_hour f WHERE f.organization_id = ${org} AND f.folded AND f.user_key = x.user_key
          AND f.hour >= (${starts})[x.b] AND f.hour < coalesce((${starts})[x.b + 1], ${to}::timestamptz))) y GROUP BY b`,
    );
  const cache = cacheOf(db);
  const key = `${s.organizationId}|${s.unit}|${s.timezone}|${from}|${to}|${all.length}`;
  let entry = cache.get(key);
  const [added, counted] = await Promise.all([unfolded(), entry ? undefined : distinct(sql`AND u.folded`)]);
  const now = generationOf(added);
  if (!entry || entry.generation !== now) {
    const folded = counted ?? (await distinct(sql`AND u.folded`));
    // the folded rows changed between the two reads: count them all in one
    if (generationOf(folded) !== now) return (await distinct(sql``)).filter((r) => Number(r.b) > 0);
    entry = { generation: now, users: new Map(folded.filter((r) => Number(r.b) > 0).map((r) => [Number(r.b), Number(r.users)])) };
  }
  cache.delete(key);
  cache.set(key, entry);
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
  const users = new Map(entry.users);
  for (const r of added) if (Number(r.b) > 0) users.set(Number(r.b), (users.get(Number(r.b)) ?? 0) + Number(r.users));
  return [...users].map(([b, n]) => ({ b, users: n }));
}

/**
 * The distinct customers with events per period when a period boundary cuts UTC hours (`cut`): the uncut hours'
 * rows of metric_event_user_hour and the cut hours' events (`ranges`, within the periods), counted at once.
 */
export async function zonedUserCounts(db: Queryable, s: Scope, all: Period[], starts: SQL, cut: number[], ranges: ReadonlyArray<readonly [number, number]>): Promise<UserRow[]> {
  const from = iso(all[0]?.start ?? 0);
  const to = iso(all[all.length - 1]?.end ?? 0);
  const org = sql`${s.organizationId}::uuid`;
  const key = sql`coalesce(e.customer_id::text, e.external_customer_id)`;
  const inCut = ranges.length === 0 ? sql`false`
    : sql.join(ranges.map(([a, b]) => sql`(e.timestamp >= ${iso(a)}::timestamptz AND e.timestamp < ${iso(b)}::timestamptz)`), sql` OR `);
  return withMemory(db, (tx) =>
    rowsOf<UserRow>(
      tx,
      sql`SELECT b, count(*)::float8 AS users FROM (SELECT DISTINCT b, k FROM (
          SELECT width_bucket(u.hour, ${starts}) AS b, u.user_key AS k FROM metric_event_user_hour u
            WHERE u.organization_id = ${org} AND u.hour >= ${from}::timestamptz AND u.hour < ${to}::timestamptz
              AND u.hour <> ALL(${`{${cut.map(iso).join(",")}}`}::timestamptz[])
          UNION ALL
          SELECT width_bucket(e.timestamp, ${starts}), ${key} FROM event e
            WHERE e.organization_id = ${org} AND (${inCut}) AND ${key} IS NOT NULL) x) y
        WHERE b > 0 GROUP BY b`,
    ),
  );
}

const generationOf = (rows: UserRow[]) => Number(rows.find((r) => Number(r.b) === 0)?.users ?? 0);

function cacheOf(db: Queryable) {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

/** The distinct (period, customer) pairs hashed in memory, not spilled to disk (a year of 100,000 takes ~10 MB). */
function withMemory<T>(db: Queryable, run: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL work_mem = '32MB'`);
    return run(tx);
  });
}
