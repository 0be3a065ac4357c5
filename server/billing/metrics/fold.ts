// Folding the metrics' hourly rollups (migrations 0048, 0061): metric_hour, metric_product_hour and
// metric_event_user_hour are append-only delta rows; a fold turns an organization's rows of every hour with an
// unfolded row into one folded row per key and currency. Reads fold an organization's rows once more than
// FOLD_AFTER are unfolded (rollups.ts), and the worker's hourly cleanup folds every organization's.
import { sql } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import { CANCELLATION_REASONS } from "../../../shared/cancellation-reasons.js";

/** Unfolded delta rows a read tolerates before it folds them. */
export const FOLD_AFTER = 2000;

const COUNTS = [
  "orders", "one_time", "renewed", "checkouts", "succeeded_checkouts", "new_subscriptions", "churned", "canceled",
  ...CANCELLATION_REASONS.map((r) => `canceled_${r}`),
  "active", "committed", "trialing",
];
const MONEY = [
  "revenue", "net_revenue", "one_time_revenue", "one_time_net", "new_revenue", "new_net", "renewed_revenue", "renewed_net",
  "mrr", "committed_mrr", "trial_mrr", "trial_committed_mrr",
];

/**
 * One table's fold. The counts of currency-less rows (checkouts, subscription starts and ends; no costs) join a
 * row of the same key in a currency: counts are summed over every currency, so the key reads one row, not two.
 */
function foldTable(organizationId: string, table: "metric_hour" | "metric_product_hour") {
  const org = sql`${organizationId}::uuid`;
  const columns = [...COUNTS, ...MONEY, ...(table === "metric_hour" ? ["costs"] : [])];
  const keys = table === "metric_hour" ? ["hour"] : ["hour", "product_id", "recurring"];
  const t = sql.raw(table);
  const keyList = sql.raw(keys.join(", "));
  const gKeys = sql.raw(keys.map((k) => `g.${k}`).join(", "));
  const joined = sql.raw(keys.map((k) => `t.${k} IS NOT DISTINCT FROM g.${k}`).join(" AND "));
  const groupBy = sql.raw(keys.map((_, i) => String(i + 2)).join(", ") + `, ${keys.length + 2}`);
  const noCosts = table === "metric_hour" ? sql`g.costs = 0` : sql`true`;
  const cols = sql.raw(columns.join(", "));
  const summed = sql.raw(columns.map((c) => `sum(${c})`).join(", "));
  const summedAs = sql.raw(columns.map((c) => `sum(${c}) AS ${c}`).join(", "));
  const nonzero = sql.raw(`(${columns.map((c) => `sum(${c})`).join(", ")}) <> (${columns.map(() => "0").join(", ")})`);
  return sql`
    WITH moved AS (
      DELETE FROM ${t} WHERE ctid = ANY(ARRAY(
        SELECT h.ctid FROM ${t} h WHERE h.organization_id = ${org}
          AND h.hour IN (SELECT u.hour FROM ${t} u WHERE u.organization_id = ${org} AND NOT u.folded)
        FOR UPDATE SKIP LOCKED))
      RETURNING *),
    grouped AS (SELECT ${keyList}, currency, ${summedAs} FROM moved GROUP BY ${keyList}, currency HAVING ${nonzero}),
    target AS (SELECT ${keyList}, min(currency) FILTER (WHERE currency <> '') AS currency FROM grouped GROUP BY ${keyList})
    INSERT INTO ${t} (organization_id, ${keyList}, currency, folded, ${cols})
    SELECT ${org}, ${gKeys}, CASE WHEN g.currency = '' AND ${noCosts} AND t.currency IS NOT NULL THEN t.currency ELSE g.currency END,
      true, ${summed}
    FROM grouped g JOIN target t ON ${joined} GROUP BY ${groupBy}`;
}

/** Folds the organization's rows of every hour with an unfolded row (each table's and the customers per hour). */
export async function foldMetricRollups(db: Queryable, organizationId: string): Promise<void> {
  const org = sql`${organizationId}::uuid`;
  await db.execute(foldTable(organizationId, "metric_hour"));
  await db.execute(foldTable(organizationId, "metric_product_hour"));
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

/** More than FOLD_AFTER of the organization's rows of one table are unfolded. */
export async function foldDue(db: Queryable, organizationId: string): Promise<boolean> {
  const org = sql`${organizationId}::uuid`;
  const unfolded = (table: string) =>
    sql`(SELECT count(*) FROM (SELECT 1 FROM ${sql.raw(table)} WHERE organization_id = ${org} AND NOT folded LIMIT ${FOLD_AFTER + 1}) a)`;
  const [row] = await rowsOf<{ n: number }>(
    db,
    sql`SELECT greatest(${unfolded("metric_hour")} + ${unfolded("metric_event_user_hour")}, ${unfolded("metric_product_hour")})::int AS n`,
  );
  return (row?.n ?? 0) > FOLD_AFTER;
}

/** The worker's hourly cleanup: folds up to `limit` organizations with unfolded rows; returns how many. */
export async function foldAllMetricRollups(db: Queryable, limit: number): Promise<number> {
  const found = await rowsOf<{ organization_id: string }>(
    db,
    sql`SELECT organization_id FROM (SELECT DISTINCT organization_id FROM metric_hour WHERE NOT folded
        UNION SELECT DISTINCT organization_id FROM metric_product_hour WHERE NOT folded
        UNION SELECT DISTINCT organization_id FROM metric_event_user_hour WHERE NOT folded) o LIMIT ${limit}`,
  );
  for (const r of found) await foldMetricRollups(db, r.organization_id);
  return found.length;
}
