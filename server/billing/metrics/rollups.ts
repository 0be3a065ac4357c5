// The metrics read from their hourly rollups (migrations 0048, 0061) instead of the source rows: the same sums as
// repository.ts, in the same shapes, from about one row per UTC hour (per product, for a product or billing-type
// filter: metric_product_hour). A UTC hour that a period boundary cuts (a zone with a half- or quarter-hour
// offset: Asia/Kolkata, Asia/Kathmandu) is read from its source rows instead, by the scan restricted to those hours;
// every other hour from the rollups. A customer filter is answered by the scan alone, through the indexes by
// customer (`plan` says which; docs/metrics.md, "Rollups").
//
// The rollups are append-only delta rows, folded on read past a threshold and by the worker (fold.ts).
import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import { CANCELLATION_REASONS } from "../../../shared/cancellation-reasons.js";
import type { LevelBucket, OrderBucket, Period, Range, Scope, SubscriptionEventBucket } from "./repository.js";
import { foldDue, foldMetricRollups } from "./fold.js";
import { cutHours } from "./cut-hours.js";
import { userCounts, zonedUserCounts } from "./users.js";

const HOUR_MS = 3_600_000;

/** How the rollups answer a query: from which table, and which UTC hours (cut by a period boundary) are scanned. */
export interface Plan {
  byProduct: boolean;
  /** The starts (epoch ms) of the UTC hours a period boundary cuts, ascending. */
  cut: number[];
}

/** The rollups' plan for the query; null when the scan answers it (a customer filter). */
export function plan(s: Scope, periods: Period[]): Plan | null {
  if (s.customerIds) return null;
  const cut = new Set<number>();
  for (const p of periods) {
    for (const t of [p.start, p.end]) if (t % HOUR_MS !== 0) cut.add(Math.floor(t / HOUR_MS) * HOUR_MS);
  }
  return { byProduct: Boolean(s.productIds || s.billingType), cut: [...cut].sort((a, b) => a - b) };
}

const iso = (ms: number) => new Date(ms).toISOString();
const both = (...parts: Array<SQL | undefined>): SQL | undefined => {
  const present = parts.filter((p): p is SQL => p !== undefined);
  return present.length === 0 ? undefined : sql.join(present, sql` AND `);
};

/**
 * Sums of the rollup's columns: money in the organization's currency only (costs without one count in it). On
 * metric_product_hour (`byProduct`), the billing type picks orders by their `recurring` key, checkouts by their
 * product (joined as `p`), and subscriptions only when recurring; no costs (read from metric_hour).
 */
function sums(s: Scope, cutoff: string, byProduct: boolean): SQL {
  const cur = sql`h.currency = ${s.currency}`;
  // levels and subscription starts/ends count up to the organization's now (its hour; the rest of it is taken off)
  const upToNow = sql`h.hour <= ${cutoff}::timestamptz`;
  const bt = byProduct ? s.billingType : undefined;
  const orderBt = bt ? sql`h.recurring = ${bt === "recurring"}` : undefined;
  const checkoutBt = bt === "recurring" ? sql`p.recurring_interval IS NOT NULL` : bt === "one_time" ? sql`p.recurring_interval IS NULL` : undefined;
  const subBt = bt === "one_time" ? sql`false` : undefined;
  const n = (c: string, ...where: Array<SQL | undefined>) => {
    const w = both(...where);
    return sql`coalesce(sum(h.${sql.raw(c)})${w ? sql` FILTER (WHERE ${w})` : sql``}, 0)::float8 AS ${sql.raw(c)}`;
  };
  const moneyCols = ["revenue", "net_revenue", "one_time_revenue", "one_time_net", "new_revenue", "new_net", "renewed_revenue", "renewed_net"];
  const subCols = ["new_subscriptions", "churned", "canceled", ...CANCELLATION_REASONS.map((r) => `canceled_${r}`)];
  const levelCounts = ["committed", "trialing"];
  const levelMoney = ["mrr", "committed_mrr", "trial_mrr", "trial_committed_mrr"];
  return sql.join(
    [
      n("orders", orderBt),
      sql`coalesce(sum(h.orders) FILTER (WHERE ${both(cur, orderBt)}), 0)::float8 AS money_orders`,
      n("one_time", orderBt),
      n("renewed", orderBt),
      ...moneyCols.map((c) => n(c, cur, orderBt)),
      n("checkouts", checkoutBt),
      n("succeeded_checkouts", checkoutBt),
      ...subCols.map((c) => n(c, upToNow, subBt)),
      ...(byProduct ? [] : [n("costs", sql`h.currency IN (${s.currency}, '')`)]),
      n("active", upToNow, subBt),
      sql`coalesce(sum(h.active) FILTER (WHERE ${both(upToNow, cur, subBt)}), 0)::float8 AS money_active`,
      ...levelCounts.map((c) => n(c, upToNow, subBt)),
      ...levelMoney.map((c) => n(c, upToNow, cur, subBt)),
    ],
    sql`, `,
  );
}

type Row = Record<string, number> & { b: number };

/** The level moves dated after the organization's now within its hour (the rollup counted the whole hour). */
async function levelTail(db: Queryable, s: Scope, cutoff: string): Promise<Row[]> {
  if (s.billingType === "one_time") return [];
  const cur = sql`c.currency = ${s.currency}`;
  const products = s.productIds ? sql`AND c.product_id IN (${sql.join(s.productIds.map((id) => sql`${id}::uuid`), sql`, `)})` : sql``;
  return rowsOf<Row>(
    db,
    sql`SELECT (extract(epoch FROM date_trunc(${s.unit}, c.at, ${s.timezone})) * 1000)::float8 AS b, coalesce(sum(c.active), 0)::float8 AS active,
        coalesce(sum(c.active) FILTER (WHERE ${cur}), 0)::float8 AS money_active,
        coalesce(sum(c.committed), 0)::float8 AS committed, coalesce(sum(c.trialing), 0)::float8 AS trialing,
        coalesce(sum(c.mrr) FILTER (WHERE ${cur}), 0)::float8 AS mrr,
        coalesce(sum(c.committed_mrr) FILTER (WHERE ${cur}), 0)::float8 AS committed_mrr,
        coalesce(sum(c.trial_mrr) FILTER (WHERE ${cur}), 0)::float8 AS trial_mrr,
        coalesce(sum(c.trial_committed_mrr) FILTER (WHERE ${cur}), 0)::float8 AS trial_committed_mrr
      FROM metric_subscription_change c WHERE c.organization_id = ${s.organizationId}::uuid ${products}
        AND c.at > ${s.now.toISOString()}::timestamptz AND c.at < ${cutoff}::timestamptz + interval '1 hour' GROUP BY 1`,
  );
}

const LEVEL_KEYS = ["active", "money_active", "committed", "trialing", "mrr", "committed_mrr", "trial_mrr", "trial_committed_mrr"] as const;

/** The rollup rows per period (`b`: the period's 1-based index) and the sums before the first, of one table. */
function readTable(db: Queryable, s: Scope, p: Plan, all: Period[], starts: SQL, cutoff: string) {
  const from = all[0]?.start ?? 0;
  const to = all[all.length - 1]?.end ?? 0;
  const table = p.byProduct ? sql`metric_product_hour h LEFT JOIN product p ON p.id = h.product_id` : sql`metric_hour h`;
  const products = s.productIds && p.byProduct ? sql`AND h.product_id IN (${sql.join(s.productIds.map((id) => sql`${id}::uuid`), sql`, `)})` : sql``;
  const uncut = p.cut.length > 0 ? sql`AND h.hour <> ALL(${`{${p.cut.map(iso).join(",")}}`}::timestamptz[])` : sql``;
  const where = sql`h.organization_id = ${s.organizationId}::uuid ${products} ${uncut}`;
  const columns = sums(s, cutoff, p.byProduct);
  const costs = sql`coalesce(sum(h.costs) FILTER (WHERE h.currency IN (${s.currency}, '')), 0)::float8 AS costs`;
  const org = sql`h.organization_id = ${s.organizationId}::uuid ${uncut}`;
  const periodOf = sql`width_bucket(h.hour, ${starts})`;
  const inRange = sql`h.hour >= ${iso(from)}::timestamptz AND h.hour < ${iso(to)}::timestamptz`;
  return Promise.all([
    rowsOf<Row>(db, sql`SELECT ${periodOf} AS b, ${columns} FROM ${table} WHERE ${where} AND ${inRange} GROUP BY 1`),
    rowsOf<Omit<Row, "b">>(db, sql`SELECT ${columns} FROM ${table} WHERE ${where} AND h.hour < ${iso(from)}::timestamptz`),
    // events have no product: their costs stay in metric_hour
    p.byProduct ? rowsOf<Row>(db, sql`SELECT ${periodOf} AS b, ${costs} FROM metric_hour h WHERE ${org} AND ${inRange} GROUP BY 1`) : [],
    p.byProduct ? rowsOf<Omit<Row, "b">>(db, sql`SELECT ${costs} FROM metric_hour h WHERE ${org} AND h.hour < ${iso(from)}::timestamptz`) : [],
  ]);
}

/**
 * Every source's sums per period, and what the cumulative ones and the levels were before the first. `users`:
 * also the customers with events per period (a distinct count, read from one row per customer and hour with
 * events — the one part whose cost grows with the data; skipped when no selected metric needs it).
 */
export async function rollupSums(db: Queryable, s: Scope, all: Period[], users = true, p: Plan = { byProduct: false, cut: [] }) {
  const from = all[0]?.start ?? 0;
  const to = all[all.length - 1]?.end ?? 0;
  // each hour's period by a binary search of the periods' starts (cheaper than date_trunc in a zone per row)
  const starts = sql`${`{${all.map((x) => iso(x.start)).join(",")}}`}::timestamptz[]`;
  const startOf = (i: number) => all[i - 1]?.start ?? 0;
  const cutoff = iso(Math.floor(s.now.getTime() / HOUR_MS) * HOUR_MS);
  const ranges = cutRanges(p.cut, to);
  // the reads at once, on as many connections; the fold (when due) after them: the rows sum the same either way
  const [due, [buckets, [before], costRows, [costsBefore]], userRows, tail, scanned] = await Promise.all([
    foldDue(db, s.organizationId),
    readTable(db, s, p, all, starts, cutoff),
    users ? (p.cut.length > 0 ? zonedUserCounts(db, s, all, starts, p.cut, clip(ranges, from)) : userCounts(db, s, all, starts)) : [],
    // the hour of now, when cut, is scanned (up to now) instead
    p.cut.includes(Number(new Date(cutoff))) ? [] : levelTail(db, s, cutoff),
    ranges.length > 0 ? cutHours(db, s, from, to, ranges) : undefined,
  ]);
  if (due) await foldMetricRollups(db, s.organizationId);
  for (const r of buckets) r.b = startOf(Number(r.b));
  for (const u of userRows) u.b = startOf(Number(u.b));
  const byBucket = new Map(buckets.map((r) => [Number(r.b), r]));
  const prior: Record<string, number> = { ...(before ?? {}), ...(costsBefore ?? {}) };
  for (const c of costRows) {
    const r = byBucket.get(startOf(Number(c.b)));
    if (r) r.costs = Number(c.costs);
    else if (Number(c.costs)) add(buckets, byBucket, startOf(Number(c.b)), { costs: Number(c.costs) });
  }
  for (const t of tail) {
    const target = Number(t.b) < from ? prior : byBucket.get(Number(t.b));
    if (target) for (const k of LEVEL_KEYS) target[k] = Number(target[k] ?? 0) - Number(t[k]);
  }
  // the cut hours' scanned sums join their periods (those before the first: the sums before)
  for (const r of scanned ?? []) {
    if (r.b < from) for (const k of ["revenue", "net_revenue", "costs", ...LEVEL_KEYS]) prior[k] = Number(prior[k] ?? 0) + Number(r.sums[k] ?? 0);
    else add(buckets, byBucket, r.b, r.sums);
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

const ROW_KEYS = [
  "orders", "money_orders", "one_time", "renewed", "revenue", "net_revenue", "one_time_revenue", "one_time_net", "new_revenue", "new_net",
  "renewed_revenue", "renewed_net", "checkouts", "succeeded_checkouts", "new_subscriptions", "churned", "canceled",
  ...CANCELLATION_REASONS.map((r) => `canceled_${r}`), "costs", ...LEVEL_KEYS,
];

/** Adds sums to the period's row (made when the rollups had none). */
function add(buckets: Row[], byBucket: Map<number, Row>, b: number, sums: Record<string, number>) {
  let row = byBucket.get(b);
  if (!row) {
    row = { b } as Row;
    for (const k of ROW_KEYS) row[k] = 0;
    byBucket.set(b, row);
    buckets.push(row);
  }
  for (const k in sums) row[k] = Number(row[k] ?? 0) + Number(sums[k] ?? 0);
}

/** The cut hours as ranges (adjacent ones joined), up to the range's end. */
function cutRanges(cut: number[], to: number): Range[] {
  const out: Array<[number, number]> = [];
  for (const h of cut) {
    const end = Math.min(h + HOUR_MS, to);
    if (end <= h) continue;
    const last = out[out.length - 1];
    if (last && last[1] === h) last[1] = end;
    else out.push([h, end]);
  }
  return out;
}

const clip = (ranges: Range[], from: number): Range[] =>
  ranges.map(([a, b]): Range => [Math.max(a, from), b]).filter(([a, b]) => a < b);

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
