// till's own `active_customers` (docs/metrics.md): per period, the customers with a paying subscription during it
// or a paid order in it, and the distinct count over the whole range. A distinct count is not a sum of periods, so
// it is read from the source rows, and only when asked for.
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import { inList, orderFilters, type Period, type Scope } from "./repository.js";

const iso = (ms: number) => new Date(ms).toISOString();

/** What a subscription or an order makes a customer active over: [a, z), an order for one instant. */
function spans(s: Scope, from: string, until: string): SQL {
  const subs: SQL[] = [sql`s.organization_id = ${s.organizationId}::uuid`, sql`s.started_at IS NOT NULL`];
  if (s.productIds) subs.push(inList(sql`s.product_id`, s.productIds));
  if (s.customerIds) subs.push(inList(sql`s.customer_id`, s.customerIds));
  // paying from its start, or from its trial's end: a trial that ended unconverted never makes a customer active
  const paidFrom = sql`greatest(s.started_at, coalesce(s.trial_end, s.started_at))`;
  const endsAt = sql`coalesce(s.ended_at, 'infinity'::timestamptz)`;
  const subscriptions = sql`SELECT s.customer_id AS c, ${paidFrom} AS a, least(${endsAt}, ${until}::timestamptz) AS z
      FROM subscription s WHERE ${sql.join(subs, sql` AND `)} AND ${paidFrom} < ${until}::timestamptz
        AND ${endsAt} > ${from}::timestamptz AND ${paidFrom} < ${endsAt}`;
  // an order that took money: a trial's or a free product's order of 0 makes no customer active
  const orders = sql`SELECT o.customer_id, o.created_at, o.created_at + interval '1 microsecond' FROM "order" o
      WHERE ${orderFilters(s)} AND o.net_amount > 0 AND o.created_at >= ${from}::timestamptz AND o.created_at < ${until}::timestamptz`;
  return s.billingType === "one_time" ? orders : sql`${subscriptions} UNION ALL ${orders}`;
}

/**
 * The active customers of each period (in `all`'s order) and over all of them. Each customer's spans become
 * ranges of period indexes, merged where they overlap or touch, and each merged range adds one to its periods: the
 * cost follows the rows, not rows × periods. Nothing after the organization's now counts.
 */
export async function activeCustomers(db: Queryable, s: Scope, all: Period[]): Promise<{ periods: number[]; total: number }> {
  const n = all.length;
  const out = { periods: new Array<number>(n).fill(0), total: 0 };
  const first = all[0];
  const last = all[n - 1];
  if (!first || !last) return out;
  const until = iso(Math.min(last.end, s.now.getTime() + 1));
  if (first.start >= Date.parse(until)) return out;
  const starts = sql`${`{${all.map((p) => iso(p.start)).join(",")}}`}::timestamptz[]`;
  const rows = await rowsOf<{ i: number; d: number }>(
    db,
    sql`WITH sp(c, a, z) AS (${spans(s, iso(first.start), until)}),
      idx AS (SELECT c, greatest(1, width_bucket(a, ${starts})) AS i0, width_bucket(z - interval '1 microsecond', ${starts}) AS i1 FROM sp),
      ord AS (SELECT c, i0, i1, max(i1) OVER (PARTITION BY c ORDER BY i0, i1 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach FROM idx),
      isl AS (SELECT c, i0, i1, sum(CASE WHEN reach IS NULL OR i0 > reach + 1 THEN 1 ELSE 0 END) OVER (PARTITION BY c ORDER BY i0, i1) AS g FROM ord),
      merged AS (SELECT min(i0) AS i0, max(i1) AS i1 FROM isl GROUP BY c, g)
      SELECT i::float8 AS i, sum(d)::float8 AS d FROM (SELECT i0 AS i, 1 AS d FROM merged UNION ALL SELECT i1 + 1, -1 FROM merged) x GROUP BY i
      UNION ALL SELECT 0, count(DISTINCT c)::float8 FROM sp`,
  );
  const delta = new Array<number>(n + 2).fill(0);
  for (const r of rows) {
    if (Number(r.i) === 0) out.total = Number(r.d);
    else delta[Number(r.i)] = Number(r.d);
  }
  let running = 0;
  for (let i = 1; i <= n; i++) {
    running += delta[i] ?? 0;
    out.periods[i - 1] = running;
  }
  return out;
}
