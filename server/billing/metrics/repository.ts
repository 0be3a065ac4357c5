// SQL of the metrics: each source (orders, subscription changes, subscriptions, checkouts, events) summed per
// period of the requested interval in the requested time zone, for one organization. Every function takes the
// organization id and filters by it; money is summed only in the organization's currency (docs/metrics.md).
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";

export type Unit = "hour" | "day" | "week" | "month" | "year";

export interface Scope {
  organizationId: string;
  currency: string;
  unit: Unit;
  timezone: string;
  /** Local dates (YYYY-MM-DD): the first day and the day after the last. */
  startLocal: string;
  endLocal: string;
  productIds?: string[];
  customerIds?: string[];
  /** one_time, recurring or both (undefined). */
  billingType?: "one_time" | "recurring";
  /** The organization's now (its test clock in a sandbox): no change after it counts yet. */
  now: Date;
}

export interface Period {
  start: number;
  end: number;
}

/** The periods (epoch ms) from the local start to the local end, in the time zone. */
export async function periods(db: Queryable, s: Pick<Scope, "unit" | "timezone" | "startLocal" | "endLocal">): Promise<Period[]> {
  const rows =
    s.unit === "hour"
      ? await rowsOf<{ s: number }>(
          db,
          sql`SELECT (extract(epoch FROM p) * 1000)::float8 AS s FROM generate_series(
            ${s.startLocal}::timestamp AT TIME ZONE ${s.timezone},
            (${s.endLocal}::timestamp AT TIME ZONE ${s.timezone}) - interval '1 hour', interval '1 hour') p ORDER BY 1`,
        )
      : await rowsOf<{ s: number; e: number }>(
          db,
          sql`SELECT (extract(epoch FROM p AT TIME ZONE ${s.timezone}) * 1000)::float8 AS s,
              (extract(epoch FROM (p + ${`1 ${s.unit}`}::interval) AT TIME ZONE ${s.timezone}) * 1000)::float8 AS e
            FROM generate_series(date_trunc(${s.unit}, ${s.startLocal}::timestamp),
              ${s.endLocal}::timestamp - interval '1 microsecond', ${`1 ${s.unit}`}::interval) p ORDER BY 1`,
        );
  return rows.map((r) => ({ start: Number(r.s), end: "e" in r ? Number(r.e) : Number(r.s) + 3_600_000 }));
}

const bucket = (s: Scope, column: SQL) => sql`(extract(epoch FROM date_trunc(${s.unit}, ${column}, ${s.timezone})) * 1000)::float8`;
const iso = (ms: number) => new Date(ms).toISOString();

/** Instants [start, end) in epoch ms. */
export type Range = readonly [number, number];

/** The column in [from, to), or (`within`) in one of those ranges only: the rollups' cut hours (rollups.ts). */
function during(column: SQL, from: number, to: number, within?: readonly Range[]): SQL {
  if (!within) return sql`${column} >= ${iso(from)}::timestamptz AND ${column} < ${iso(to)}::timestamptz`;
  if (within.length === 0) return sql`false`;
  return sql`(${sql.join(within.map(([a, b]) => sql`(${column} >= ${iso(a)}::timestamptz AND ${column} < ${iso(b)}::timestamptz)`), sql` OR `)})`;
}
export const inList = (column: SQL, ids: string[]) => sql`${column} IN (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})`;

export function orderFilters(s: Scope): SQL {
  const parts: SQL[] = [sql`o.organization_id = ${s.organizationId}::uuid`, sql`o.status IN ('paid', 'refunded', 'partially_refunded')`];
  if (s.productIds) parts.push(inList(sql`o.product_id`, s.productIds));
  if (s.customerIds) parts.push(inList(sql`o.customer_id`, s.customerIds));
  if (s.billingType === "one_time") parts.push(sql`o.subscription_id IS NULL`);
  if (s.billingType === "recurring") parts.push(sql`o.subscription_id IS NOT NULL`);
  return sql.join(parts, sql` AND `);
}

export interface OrderBucket {
  b: number;
  orders: number;
  money_orders: number;
  revenue: number;
  net_revenue: number;
  one_time: number;
  one_time_revenue: number;
  one_time_net: number;
  new_revenue: number;
  new_net: number;
  renewed: number;
  renewed_revenue: number;
  renewed_net: number;
}

/**
 * Paid orders (refunded ones too: their refunds count against net revenue) per period, and the sums before
 * (`within`: only the rows in those ranges, and no sums before).
 */
export async function orderBuckets(db: Queryable, s: Scope, from: number, to: number, within?: readonly Range[]) {
  const cur = sql`o.currency = ${s.currency}`;
  const net = sql`(o.net_amount - o.refunded_amount - o.platform_fee_amount)`;
  const buckets = await rowsOf<OrderBucket>(
    db,
    sql`SELECT ${bucket(s, sql`o.created_at`)} AS b,
        count(*)::float8 AS orders,
        count(*) FILTER (WHERE ${cur})::float8 AS money_orders,
        coalesce(sum(o.net_amount) FILTER (WHERE ${cur}), 0)::float8 AS revenue,
        coalesce(sum(${net}) FILTER (WHERE ${cur}), 0)::float8 AS net_revenue,
        count(*) FILTER (WHERE o.billing_reason = 'purchase')::float8 AS one_time,
        coalesce(sum(o.net_amount) FILTER (WHERE ${cur} AND o.billing_reason = 'purchase'), 0)::float8 AS one_time_revenue,
        coalesce(sum(${net}) FILTER (WHERE ${cur} AND o.billing_reason = 'purchase'), 0)::float8 AS one_time_net,
        coalesce(sum(o.net_amount) FILTER (WHERE ${cur} AND o.billing_reason = 'subscription_create'), 0)::float8 AS new_revenue,
        coalesce(sum(${net}) FILTER (WHERE ${cur} AND o.billing_reason = 'subscription_create'), 0)::float8 AS new_net,
        count(*) FILTER (WHERE o.billing_reason = 'subscription_cycle')::float8 AS renewed,
        coalesce(sum(o.net_amount) FILTER (WHERE ${cur} AND o.billing_reason = 'subscription_cycle'), 0)::float8 AS renewed_revenue,
        coalesce(sum(${net}) FILTER (WHERE ${cur} AND o.billing_reason = 'subscription_cycle'), 0)::float8 AS renewed_net
      FROM "order" o
      WHERE ${orderFilters(s)} AND ${during(sql`o.created_at`, from, to, within)}
      GROUP BY 1`,
  );
  if (within) return { buckets, before: { revenue: 0, net_revenue: 0 } };
  const [before] = await rowsOf<{ revenue: number; net_revenue: number }>(
    db,
    sql`SELECT coalesce(sum(o.net_amount), 0)::float8 AS revenue, coalesce(sum(${net}), 0)::float8 AS net_revenue
      FROM "order" o WHERE ${orderFilters(s)} AND ${cur} AND o.created_at < ${iso(from)}::timestamptz`,
  );
  return { buckets, before: before ?? { revenue: 0, net_revenue: 0 } };
}

export interface LevelBucket {
  b: number;
  active: number;
  /** Active in the organization's currency (ARPU's denominator). */
  money_active: number;
  committed: number;
  trialing: number;
  mrr: number;
  committed_mrr: number;
  trial_mrr: number;
  trial_committed_mrr: number;
}

/**
 * The subscription changes per period (their sums are the levels' moves), and the levels before `from` (`within`: as
 * orderBuckets).
 */
export async function levelBuckets(db: Queryable, s: Scope, from: number, to: number, within?: readonly Range[]) {
  const parts: SQL[] = [sql`c.organization_id = ${s.organizationId}::uuid`, sql`c.at <= ${s.now.toISOString()}::timestamptz`];
  if (s.productIds) parts.push(inList(sql`c.product_id`, s.productIds));
  if (s.customerIds) parts.push(inList(sql`c.customer_id`, s.customerIds));
  if (s.billingType === "one_time") parts.push(sql`false`);
  const where = sql.join(parts, sql` AND `);
  const cur = sql`c.currency = ${s.currency}`;
  const sums = sql`coalesce(sum(c.active), 0)::float8 AS active,
      coalesce(sum(c.active) FILTER (WHERE ${cur}), 0)::float8 AS money_active,
      coalesce(sum(c.committed), 0)::float8 AS committed,
      coalesce(sum(c.trialing), 0)::float8 AS trialing,
      coalesce(sum(c.mrr) FILTER (WHERE ${cur}), 0)::float8 AS mrr,
      coalesce(sum(c.committed_mrr) FILTER (WHERE ${cur}), 0)::float8 AS committed_mrr,
      coalesce(sum(c.trial_mrr) FILTER (WHERE ${cur}), 0)::float8 AS trial_mrr,
      coalesce(sum(c.trial_committed_mrr) FILTER (WHERE ${cur}), 0)::float8 AS trial_committed_mrr`;
  const buckets = await rowsOf<LevelBucket>(
    db,
    sql`SELECT ${bucket(s, sql`c.at`)} AS b, ${sums} FROM metric_subscription_change c
      WHERE ${where} AND ${during(sql`c.at`, from, to, within)} GROUP BY 1`,
  );
  if (within) return { buckets, before: undefined };
  const [before] = await rowsOf<Omit<LevelBucket, "b">>(
    db,
    sql`SELECT ${sums} FROM metric_subscription_change c WHERE ${where} AND c.at < ${iso(from)}::timestamptz`,
  );
  return { buckets, before };
}

export interface SubscriptionEventBucket {
  kind: "new" | "churned" | "canceled";
  b: number;
  reason: string | null;
  n: number;
}

/** Subscriptions started, churned (ended after being paid for) and canceled (by reason) per period. */
export async function subscriptionEvents(db: Queryable, s: Scope, from: number, to: number, within?: readonly Range[]): Promise<SubscriptionEventBucket[]> {
  if (s.billingType === "one_time") return [];
  const parts: SQL[] = [sql`s.organization_id = ${s.organizationId}::uuid`];
  if (s.customerIds) parts.push(inList(sql`s.customer_id`, s.customerIds));
  // new under the product it started on (migration 0078); churned and canceled under the one it had then
  const byProduct = (column: SQL) => sql.join(s.productIds ? [...parts, inList(column, s.productIds)] : parts, sql` AND `);
  const where = byProduct(sql`s.product_id`);
  const whereStarted = byProduct(sql`coalesce(s.started_product_id, s.product_id)`);
  const inRange = (c: SQL) => sql`${during(c, from, to, within)} AND ${c} <= ${s.now.toISOString()}::timestamptz`;
  return rowsOf<SubscriptionEventBucket>(
    db,
    sql`SELECT kind, ${bucket(s, sql`t`)} AS b, reason, count(*)::float8 AS n FROM (
        SELECT 'new' AS kind, s.started_at AS t, NULL::text AS reason FROM subscription s WHERE ${whereStarted} AND ${inRange(sql`s.started_at`)}
        UNION ALL
        SELECT 'churned', s.ended_at, NULL FROM subscription s
          WHERE ${where} AND ${inRange(sql`s.ended_at`)} AND s.started_at IS NOT NULL AND (s.trial_end IS NULL OR s.ended_at > s.trial_end)
        UNION ALL
        SELECT 'canceled', s.canceled_at, s.customer_cancellation_reason FROM subscription s WHERE ${where} AND ${inRange(sql`s.canceled_at`)}
      ) x GROUP BY kind, 2, reason`,
  );
}

/** Checkouts created and succeeded per period. */
export async function checkoutBuckets(db: Queryable, s: Scope, from: number, to: number, within?: readonly Range[]) {
  const parts: SQL[] = [sql`c.organization_id = ${s.organizationId}::uuid`];
  if (s.productIds) parts.push(inList(sql`c.product_id`, s.productIds));
  if (s.customerIds) parts.push(inList(sql`c.customer_id`, s.customerIds));
  if (s.billingType) {
    const recurring = sql`EXISTS (SELECT 1 FROM product p WHERE p.id = c.product_id AND p.recurring_interval IS NOT NULL)`;
    parts.push(s.billingType === "recurring" ? recurring : sql`NOT ${recurring}`);
  }
  return rowsOf<{ b: number; checkouts: number; succeeded: number }>(
    db,
    sql`SELECT ${bucket(s, sql`c.created_at`)} AS b, count(*)::float8 AS checkouts,
        count(*) FILTER (WHERE c.status = 'succeeded')::float8 AS succeeded
      FROM checkout c WHERE ${sql.join(parts, sql` AND `)}
        AND ${during(sql`c.created_at`, from, to, within)} GROUP BY 1`,
  );
}

/**
 * Costs (events' `_cost` in the organization's currency) and the customers with events, per period (`within`: as
 * orderBuckets).
 */
export async function eventBuckets(db: Queryable, s: Scope, from: number, to: number, within?: readonly Range[]) {
  const parts: SQL[] = [sql`e.organization_id = ${s.organizationId}::uuid`];
  if (s.customerIds) parts.push(inList(sql`e.customer_id`, s.customerIds));
  const where = sql.join(parts, sql` AND `);
  const amount = sql`e.metadata -> '_cost' ->> 'amount'`;
  const cost = sql`CASE WHEN ${amount} ~ '^-?[0-9]{1,30}(\.[0-9]{1,30})?$'
      AND lower(coalesce(e.metadata -> '_cost' ->> 'currency', ${s.currency})) = ${s.currency} THEN (${amount})::numeric END`;
  const buckets = await rowsOf<{ b: number; costs: number; users: number }>(
    db,
    sql`SELECT ${bucket(s, sql`e.timestamp`)} AS b, coalesce(sum(${cost}), 0)::float8 AS costs,
        count(DISTINCT coalesce(e.customer_id::text, e.external_customer_id))::float8 AS users
      FROM event e WHERE ${where} AND ${during(sql`e.timestamp`, from, to, within)} GROUP BY 1`,
  );
  if (within) return { buckets, beforeCosts: 0 };
  const [before] = await rowsOf<{ costs: number }>(
    db,
    sql`SELECT coalesce(sum(${cost}), 0)::float8 AS costs FROM event e
      WHERE ${where} AND e.metadata ? '_cost' AND e.timestamp < ${iso(from)}::timestamptz`,
  );
  return { buckets, beforeCosts: before?.costs ?? 0 };
}

/** The organization's currency: its default presentment currency (usd unless set). */
export async function organizationCurrency(db: Queryable, organizationId: string): Promise<string> {
  const [row] = await rowsOf<{ c: string | null }>(
    db,
    // a sandbox twin answers in its live organization's currency unless it has its own
    sql`SELECT coalesce(
        (SELECT details ->> 'default_presentment_currency' FROM billing_organization WHERE organization_id = ${organizationId}::uuid),
        (SELECT b.details ->> 'default_presentment_currency' FROM organization_sandbox t
          JOIN billing_organization b ON b.organization_id = t.live_organization_id WHERE t.organization_id = ${organizationId}::uuid)) AS c`,
  );
  return (row?.c ?? "usd").toLowerCase();
}
