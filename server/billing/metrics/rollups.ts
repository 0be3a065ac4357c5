// The metrics read from their hourly rollups (migration 0048: metric_hour, metric_event_user_hour) instead of
// the source rows: the same sums as repository.ts, in the same shapes, from about one row per UTC hour. They are
// exact when every period boundary is a whole UTC hour — any whole-hour time zone, every interval — and when the
// query has no product, customer or billing-type filter (the rollups are per organization); `usable` says so,
// and the service scans the sources otherwise (docs/metrics.md, "Rollups").
//
// The rollups are append-only delta rows. Reads fold an organization's rows once more than FOLD_AFTER are
// unfolded, and the worker's hourly cleanup folds every organization's (foldAllMetricRollups).
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import { CANCELLATION_REASONS } from "../../../shared/cancellation-reasons.js";
import type { LevelBucket, OrderBucket, Period, Scope, SubscriptionEventBucket } from "./repository.js";
import { userCounts } from "./users.js";

const HOUR_MS = 3_600_000;
/** Unfolded delta rows a read tolerates before it folds them. */
export const FOLD_AFTER = 2000;

/** The rollups answer this query exactly: no filter, and periods that start and end on whole UTC hours. */
export function usable(s: Scope, periods: Period[]): boolean {
  if (s.productIds || s.customerIds || s.billingType) return false;
  return periods.every((p) => p.start % HOUR_MS === 0 && p.end % HOUR_MS === 0);
}

const COUNTS = [
  "orders", "one_time", "renewed", "checkouts", "succeeded_checkouts", "new_subscriptions", "churned", "canceled",
  ...CANCELLATION_REASONS.map((r) => `canceled_${r}`),
  "active", "committed", "trialing",
];
const MONEY = [
  "revenue", "net_revenue", "one_time_revenue", "one_time_net", "new_revenue", "new_net", "renewed_revenue", "renewed_net",
  "costs", "mrr", "committed_mrr", "trial_mrr", "trial_committed_mrr",
];
const COLUMNS = [...COUNTS, ...MONEY];

const iso = (ms: number) => new Date(ms).toISOString();
const bucket = (s: Scope, column: SQL) => sql`(extract(epoch FROM date_trunc(${s.unit}, ${column}, ${s.timezone})) * 1000)::float8`;

/** Sums of the rollup's columns: money in the organization's currency only (costs without one count in it). */
function sums(s: Scope, cutoff: string): SQL {
  const cur = sql`h.currency = ${s.currency}`;
  // levels and subscription starts/ends count up to the organization's now (its hour; the rest of it is taken off)
  const upToNow = sql`h.hour <= ${cutoff}::timestamptz`;
  const n = (c: string, where?: SQL) => sql`coalesce(sum(h.${sql.raw(c)})${where ? sql` FILTER (WHERE ${where})` : sql``}, 0)::float8 AS ${sql.raw(c)}`;
  const moneyCols = ["revenue", "net_revenue", "one_time_revenue", "one_time_net", "new_revenue", "new_net", "renewed_revenue", "renewed_net"];
  const subCols = ["new_subscriptions", "churned", "canceled", ...CANCELLATION_REASONS.map((r) => `canceled_${r}`)];
  const levelCounts = ["committed", "trialing"];
  const levelMoney = ["mrr", "committed_mrr", "trial_mrr", "trial_committed_mrr"];
  return sql.join(
    [
      n("orders"),
      sql`coalesce(sum(h.orders) FILTER (WHERE ${cur}), 0)::float8 AS money_orders`,
      n("one_time"),
      n("renewed"),
      ...moneyCols.map((c) => n(c, cur)),
      n("checkouts"),
      n("succeeded_checkouts"),
      ...subCols.map((c) => n(c, upToNow)),
      n("costs", sql`h.currency IN (${s.currency}, '')`),
      n("active", upToNow),
      sql`coalesce(sum(h.active) FILTER (WHERE ${upToNow} AND ${cur}), 0)::float8 AS money_active`,
      ...levelCounts.map((c) => n(c, upToNow)),
      ...levelMoney.map((c) => n(c, sql`${upToNow} AND ${cur}`)),
    ],
    sql`, `,
  );
}

type Row = Record<string, number> & { b: number };

/** The level moves dated after the organization's now within its hour (the rollup counted the whole hour). */
async function levelTail(db: Queryable, s: Scope, cutoff: string) {
  const cur = sql`c.currency = ${s.currency}`;
  return rowsOf<Row>(
    db,
    sql`SELECT ${bucket(s, sql`c.at`)} AS b, coalesce(sum(c.active), 0)::float8 AS active,
        coalesce(sum(c.active) FILTER (WHERE ${cur}), 0)::float8 AS money_active,
        coalesce(sum(c.committed), 0)::float8 AS committed, coalesce(sum(c.trialing), 0)::float8 AS trialing,
        coalesce(sum(c.mrr) FILTER (WHERE ${cur}), 0)::float8 AS mrr,
        coalesce(sum(c.committed_mrr) FILTER (WHERE ${cur}), 0)::float8 AS committed_mrr,
        coalesce(sum(c.trial_mrr) FILTER (WHERE ${cur}), 0)::float8 AS trial_mrr,
        coalesce(sum(c.trial_committed_mrr) FILTER (WHERE ${cur}), 0)::float8 AS trial_committed_mrr
      FROM metric_subscription_change c WHERE c.organization_id = ${s.organizationId}::uuid
        AND c.at > ${s.now.toISOString()}::timestamptz AND c.at < ${cutoff}::timestamptz + interval '1 hour' GROUP BY 1`,
  );
}

const LEVEL_KEYS = ["active", "money_active", "committed", "trialing", "mrr", "committed_mrr", "trial_mrr", "trial_committed_mrr"] as const;

/**
 * Every source's sums per period, and what the cumulative ones and the levels were before the first. `users`:
 * also the customers with events per period (a distinct count, read from one row per customer and hour with
 * events — the one part whose cost grows with the data; skipped when no selected metric needs it).
 */
export async function rollupSums(db: Queryable, s: Scope, all: Period[], users = true) {
  const from = all[0]?.start ?? 0;
  const to = all[all.length - 1]?.end ?? 0;
  // each hour's period by a binary search of the periods' starts (cheaper than date_trunc in a zone per row)
  const starts = sql`${`{${all.map((p) => iso(p.start)).join(",")}}`}::timestamptz[]`;
  const periodOf = (column: SQL) => sql`width_bucket(${column}, ${starts})`;
  const startOf = (i: number) => all[i - 1]?.start ?? 0;
  const cutoff = iso(Math.floor(s.now.getTime() / HOUR_MS) * HOUR_MS);
  const where = sql`h.organization_id = ${s.organizationId}::uuid`;
  // the reads at once, on as many connections; the fold (when due) after them: the rows sum the same either way
  const [due, buckets, [before], userRows, tail] = await Promise.all([
    foldDue(db, s.organizationId),
    rowsOf<Row>(
      db,
      sql`SELECT ${periodOf(sql`h.hour`)} AS b, ${sums(s, cutoff)} FROM metric_hour h
        WHERE ${where} AND h.hour >= ${iso(from)}::timestamptz AND h.hour < ${iso(to)}::timestamptz GROUP BY 1`,
    ),
    rowsOf<Omit<Row, "b">>(db, sql`SELECT ${sums(s, cutoff)} FROM metric_hour h WHERE ${where} AND h.hour < ${iso(from)}::timestamptz`),
    users ? userCounts(db, s, all, starts) : [],
    levelTail(db, s, cutoff),
  ]);
  if (due) await foldMetricRollups(db, s.organizationId);
  for (const r of buckets) r.b = startOf(Number(r.b));
  for (const u of userRows) u.b = startOf(Number(u.b));
  const byBucket = new Map(buckets.map((r) => [Number(r.b), r]));
  const prior: Record<string, number> = { ...(before ?? {}) };
  for (const t of tail) {
    const target = Number(t.b) < from ? prior : byBucket.get(Number(t.b));
    if (target) for (const k of LEVEL_KEYS) target[k] = Number(target[k] ?? 0) - Number(t[k]);
  }
  const num = (r: Record<string, number> | undefined, k: string) => Number(r?.[k] ?? 0);
  return {
    orders: {
      buckets: buckets as unknown as OrderBucket[],
      before: { revenue: num(prior, "revenue"), net_revenue: num(prior, "net_revenue") },
    },
    levels: {
      buckets: buckets as unknown as LevelBucket[],
      before: Object.fromEntries(LEVEL_KEYS.map((k) => [k, num(prior, k)])) as Omit<LevelBucket, "b">,
    },
    subscriptions: subscriptionEvents(buckets),
    checkouts: buckets.map((r) => ({ b: r.b, checkouts: num(r, "checkouts"), succeeded: num(r, "succeeded_checkouts") })),
    events: {
      buckets: mergeUsers(buckets, userRows),
      beforeCosts: num(prior, "costs"),
    },
  };
}

function subscriptionEvents(buckets: Row[]): SubscriptionEventBucket[] {
  const out: SubscriptionEventBucket[] = [];
  for (const r of buckets) {
    const b = Number(r.b);
    if (r.new_subscriptions) out.push({ kind: "new", b, reason: null, n: Number(r.new_subscriptions) });
    if (r.churned) out.push({ kind: "churned", b, reason: null, n: Number(r.churned) });
    let withReason = 0;
    for (const reason of CANCELLATION_REASONS) {
      const n = Number(r[`canceled_${reason}`] ?? 0);
      withReason += n;
      if (n) out.push({ kind: "canceled", b, reason, n });
    }
    const rest = Number(r.canceled ?? 0) - withReason;
    if (rest) out.push({ kind: "canceled", b, reason: null, n: rest });
  }
  return out;
}

function mergeUsers(buckets: Row[], users: Array<{ b: number; users: number }>) {
  const out = new Map<number, { b: number; costs: number; users: number }>();
  for (const r of buckets) out.set(Number(r.b), { b: Number(r.b), costs: Number(r.costs ?? 0), users: 0 });
  for (const u of users) {
    const row = out.get(Number(u.b)) ?? { b: Number(u.b), costs: 0, users: 0 };
    row.users = Number(u.users);
    out.set(row.b, row);
  }
  return [...out.values()];
}

// ---- folding ------------------------------------------------------------------------------------

/**
 * Folds the organization's rows of every hour with an unfolded row into one folded row per currency. The counts
 * of currency-less rows (checkouts, subscription starts and ends; no costs) join the hour's row in a currency:
 * counts are summed over every currency, so the hour reads one row instead of two.
 */
export async function foldMetricRollups(db: Queryable, organizationId: string): Promise<void> {
  const org = sql`${organizationId}::uuid`;
  const cols = sql.raw(COLUMNS.join(", "));
  const summed = sql.raw(COLUMNS.map((c) => `sum(${c})`).join(", "));
  const summedAs = sql.raw(COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(", "));
  const nonzero = sql.raw(`(${COLUMNS.map((c) => `sum(${c})`).join(", ")}) <> (${COLUMNS.map(() => "0").join(", ")})`);
  await db.execute(sql`
    WITH moved AS (
      DELETE FROM metric_hour WHERE ctid = ANY(ARRAY(
        SELECT h.ctid FROM metric_hour h WHERE h.organization_id = ${org}
          AND h.hour IN (SELECT u.hour FROM metric_hour u WHERE u.organization_id = ${org} AND NOT u.folded)
        FOR UPDATE SKIP LOCKED))
      RETURNING *),
    grouped AS (SELECT hour, currency, ${summedAs} FROM moved GROUP BY hour, currency HAVING ${nonzero}),
    target AS (SELECT hour, min(currency) FILTER (WHERE currency <> '') AS currency FROM grouped GROUP BY hour)
    INSERT INTO metric_hour (organization_id, hour, currency, folded, ${cols})
    SELECT ${org}, g.hour, CASE WHEN g.currency = '' AND g.costs = 0 AND t.currency IS NOT NULL THEN t.currency ELSE g.currency END,
      true, ${summed}
    FROM grouped g JOIN target t ON t.hour = g.hour GROUP BY 2, 3`);
  await db.execute(sql`
    WITH moved AS (
      DELETE FROM metric_event_user_hour WHERE ctid = ANY(ARRAY(
        SELECT u.ctid FROM metric_event_user_hour u WHERE u.organization_id = ${org} AND NOT u.folded FOR UPDATE SKIP LOCKED))
      RETURNING hour, user_key),
    -- the folded rows change: the counts kept from them are stale (billing/metrics/users.ts)
    bump AS (INSERT INTO metric_user_generation (organization_id, generation) SELECT ${org}, 1 WHERE EXISTS (SELECT 1 FROM moved)
      ON CONFLICT (organization_id) DO UPDATE SET generation = metric_user_generation.generation + 1)
    INSERT INTO metric_event_user_hour (organization_id, hour, user_key, folded)
    SELECT DISTINCT ${org}, m.hour, m.user_key, true FROM moved m
    WHERE NOT EXISTS (SELECT 1 FROM metric_event_user_hour f
      WHERE f.organization_id = ${org} AND f.hour = m.hour AND f.user_key = m.user_key AND f.folded)`);
}

/** More than FOLD_AFTER of the organization's rows are unfolded. */
async function foldDue(db: Queryable, organizationId: string): Promise<boolean> {
  const [row] = await rowsOf<{ n: number }>(
    db,
    sql`SELECT ((SELECT count(*) FROM (SELECT 1 FROM metric_hour WHERE organization_id = ${organizationId}::uuid AND NOT folded LIMIT ${FOLD_AFTER + 1}) a)
      + (SELECT count(*) FROM (SELECT 1 FROM metric_event_user_hour WHERE organization_id = ${organizationId}::uuid AND NOT folded LIMIT ${FOLD_AFTER + 1}) b))::int AS n`,
  );
  return (row?.n ?? 0) > FOLD_AFTER;
}

/** The worker's hourly cleanup: folds up to `limit` organizations with unfolded rows; returns how many. */
export async function foldAllMetricRollups(db: Queryable, limit: number): Promise<number> {
  const found = await rowsOf<{ organization_id: string }>(
    db,
    sql`SELECT organization_id FROM (SELECT DISTINCT organization_id FROM metric_hour WHERE NOT folded
        UNION SELECT DISTINCT organization_id FROM metric_event_user_hour WHERE NOT folded) o LIMIT ${limit}`,
  );
  for (const r of found) await foldMetricRollups(db, r.organization_id);
  return found.length;
}
