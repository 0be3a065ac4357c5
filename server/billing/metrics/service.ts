// Rules for metrics (docs/metrics.md): the query's periods in the caller's time zone, every metric of each
// period from the sums the repository reads, the totals over the range, Polar's range limits, and the saved
// dashboards of an organization.
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../db/client.js";
import { metricDashboard } from "../../db/schema/index.js";
import { orgNow } from "../clock.js";
import { invalid, notFound, validationError, type ValidationIssue } from "../errors.js";
import * as repo from "./repository.js";
import * as rollups from "./rollups.js";
import { activeCustomers } from "./customers.js";
import { CANCELLATION_REASONS } from "../../../shared/cancellation-reasons.js";
import {
  DEFAULT_METRICS,
  METRIC_SLUGS,
  METRICS,
  metricsWire,
  toDashboardWire,
  type MetricDefinition,
  type MetricsResponseWire,
  type Values,
} from "./wire.js";

export type Unit = repo.Unit;
export const UNITS = ["hour", "day", "week", "month", "year"] as const;

/** The first day a query may start on (Polar's). */
export const MIN_DATE = "2023-01-01";
const MAX_DATE = "9000-12-31";
/** Polar's span limits per interval, in days between start_date and end_date. */
export const INTERVAL_LIMITS: Record<Unit, { min_days: number; max_days: number }> = {
  hour: { min_days: 0, max_days: 7 },
  day: { min_days: 0, max_days: 366 },
  week: { min_days: 14, max_days: 371 },
  month: { min_days: 60, max_days: 365 * 4 },
  year: { min_days: 366, max_days: 365 * 10 },
};

export function limits() {
  return { min_date: MIN_DATE, intervals: INTERVAL_LIMITS };
}

/** Churn is measured over the trailing 30 days for hourly and daily charts, over the period itself otherwise. */
const WINDOW_DAYS: Partial<Record<Unit, number>> = { hour: 30, day: 30 };
/** How many months the churn window is (LTV = ARPU ÷ monthly churn). */
const WINDOW_MONTHS: Record<Unit, number> = { hour: (30 * 12) / 365, day: (30 * 12) / 365, week: (7 * 12) / 365, month: 1, year: 12 };

export interface MetricsQuery {
  startDate: string;
  endDate: string;
  interval: Unit;
  timezone: string;
  productIds?: string[];
  customerIds?: string[];
  billingTypes?: Array<"one_time" | "recurring">;
  /** The organization_id filter left the caller's organization out: every metric is 0. */
  empty: boolean;
  metrics?: string[];
}

const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;
const dateOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

/** The query's checks beyond its fields' own: dates in order, within the interval's limits, known metrics. */
export function checkQuery(q: MetricsQuery): MetricDefinition[] {
  const issues: ValidationIssue[] = [];
  if (q.startDate < MIN_DATE) issues.push({ loc: ["query", "start_date"], msg: `Input should be greater than or equal to ${MIN_DATE}`, type: "greater_than_equal" });
  // beyond any calendar the database's timestamps (and the periods' ends) can hold
  if (q.endDate > MAX_DATE) issues.push({ loc: ["query", "end_date"], msg: `Input should be less than or equal to ${MAX_DATE}`, type: "less_than_equal" });
  const span = dayNumber(q.endDate) - dayNumber(q.startDate);
  if (span < 0) issues.push({ loc: ["query", "end_date"], msg: "End date must be after start date.", type: "value_error" });
  else {
    const limit = INTERVAL_LIMITS[q.interval];
    // named for what is wrong with the interval: too many periods of a small one, less than one of a large one
    if (span > limit.max_days) {
      const msg = `The interval is too small for the date range: by ${q.interval}, a range covers at most ${limit.max_days} days. Use a larger interval or reduce the date range.`;
      issues.push({ loc: ["query", "interval"], msg, type: "value_error" });
    } else if (span < limit.min_days) {
      const msg = `The interval is too large for the date range: by ${q.interval}, a range covers at least ${limit.min_days} days. Use a smaller interval or increase the date range.`;
      issues.push({ loc: ["query", "interval"], msg, type: "value_error" });
    }
  }
  (q.metrics ?? []).forEach((slug, i) => {
    if (!METRIC_SLUGS.has(slug)) issues.push({ loc: ["query", "metrics", i], msg: `Unknown metric: ${slug.slice(0, 100)}`, type: "value_error" });
  });
  if (issues.length > 0) throw validationError(issues);
  return q.metrics ? METRICS.filter((d) => q.metrics?.includes(d.slug)) : [...DEFAULT_METRICS];
}

const NIL_ORGANIZATION = "00000000-0000-0000-0000-000000000000";

function isBadTimezone(err: unknown): boolean {
  const cause = (err as { cause?: unknown }).cause ?? err;
  return typeof cause === "object" && cause !== null && (cause as { code?: unknown }).code === "22023";
}

/**
 * `metrics.get`: every period of the range with the selected metrics, and their totals (`scan`: never from the
 * rollups).
 */
export async function getMetrics(db: Db, organizationId: string, q: MetricsQuery, opts: { scan?: boolean } = {}): Promise<MetricsResponseWire> {
  const selected = checkQuery(q);
  try {
    return await compute(db, organizationId, q, selected, opts.scan === true);
  } catch (err) {
    // a zone name the runtime knows and PostgreSQL does not
    if (isBadTimezone(err)) throw invalid(["query", "timezone"], "Input should be a valid IANA time zone name");
    throw err;
  }
}

/**
 * The sums of every period of the range (and of the churn window's lookback before it), each source's placed by
 * period, with what the sources summed before the first.
 */
async function periodSums(db: Db, organizationId: string, q: MetricsQuery, selected: MetricDefinition[], scan: boolean) {
  const lookback = WINDOW_DAYS[q.interval] ?? 0;
  const where = {
    organizationId: q.empty ? NIL_ORGANIZATION : organizationId,
    unit: q.interval,
    timezone: q.timezone,
    startLocal: dateOf(dayNumber(q.startDate) - lookback),
    endLocal: dateOf(dayNumber(q.endDate) + 1),
    productIds: q.productIds,
    customerIds: q.customerIds,
    billingType: q.billingTypes && new Set(q.billingTypes).size === 1 ? q.billingTypes[0] : undefined,
  };
  // the currency, the organization's now and the periods are independent: read at once (one round trip's wait)
  const [currency, now, all, visible] = await Promise.all([
    repo.organizationCurrency(db, organizationId),
    orgNow(db, organizationId),
    repo.periods(db, where),
    lookback ? repo.periods(db, { ...where, startLocal: q.startDate }) : undefined,
  ]);
  const scope: repo.Scope = { ...where, currency, now };
  const [firstVisible] = visible ?? all;
  const visibleFrom = Math.max(0, all.findIndex((p) => p.start === firstVisible?.start));
  const from = all[0]?.start ?? 0;
  const to = all[all.length - 1]?.end ?? 0;
  const users = selected.some((d) => d.slug === "active_user_by_event" || d.slug === "cost_per_user");
  const [orders, levels, subs, checkouts, events] = await sources(db, scope, all, from, to, scan, users);
  const index = new Map(all.map((p, i) => [p.start, i]));
  const at = <T extends { b: number }>(rows: T[]) => {
    const out = new Array<T | undefined>(all.length);
    for (const r of rows) {
      const i = index.get(Number(r.b));
      if (i !== undefined) out[i] = r;
    }
    return out;
  };
  const orderAt = at(orders.buckets);
  const levelAt = at(levels.buckets);
  const checkoutAt = at(checkouts);
  const eventAt = at(events.buckets);
  const subCount = (kind: string, reason?: string | null) => {
    const out = new Array<number>(all.length).fill(0);
    for (const r of subs) {
      if (r.kind !== kind || (reason !== undefined && r.reason !== reason)) continue;
      const i = index.get(Number(r.b));
      if (i !== undefined) out[i] = (out[i] ?? 0) + Number(r.n);
    }
    return out;
  };
  const started = subCount("new");
  const churned = subCount("churned");
  const canceled = subCount("canceled");
  const byReason = Object.fromEntries(CANCELLATION_REASONS.map((r) => [r, subCount("canceled", r)]));
  const placed = { orderAt, levelAt, checkoutAt, eventAt, started, churned, canceled, byReason };
  // a distinct count over the visible periods, read only when asked for
  const customers = selected.some((d) => d.slug === "active_customers") ? await activeCustomers(db, scope, all.slice(visibleFrom)) : undefined;
  return { all, visibleFrom, lookback, orders, levels, events, customers, ...placed };
}

/** Every metric of each visible period from the sums, and their totals over the range. */
async function compute(db: Db, organizationId: string, q: MetricsQuery, selected: MetricDefinition[], scan: boolean): Promise<MetricsResponseWire> {
  const sums = await periodSums(db, organizationId, q, selected, scan);
  const { all, visibleFrom, lookback, orders, levels, events, customers } = sums;
  const { orderAt, levelAt, checkoutAt, eventAt, started, churned, canceled, byReason } = sums;

  // the levels at each period's end
  const level = { ...zeroLevel(), ...(levels.before ?? {}) };
  const levelEnd: Array<typeof level> = [];
  const levelStart = { ...level };
  let cumRevenue = orders.before.revenue;
  let cumNet = orders.before.net_revenue;
  let cumCosts = events.beforeCosts;
  const windowPeriods = q.interval === "hour" ? lookback * 24 : q.interval === "day" ? lookback : 1;
  const periods: MetricsResponseWire["periods"] = [];
  const rows: Values[] = [];
  for (let i = 0; i < all.length; i++) {
    const l = levelAt[i];
    if (l) for (const k of LEVEL_KEYS) level[k] += Number(l[k]);
    levelEnd.push({ ...level });
    const o = orderAt[i];
    const c = checkoutAt[i];
    const e = eventAt[i];
    const revenue = Number(o?.revenue ?? 0);
    const net = Number(o?.net_revenue ?? 0);
    const moneyOrders = Number(o?.money_orders ?? 0);
    const costs = Number(e?.costs ?? 0);
    const users = Number(e?.users ?? 0);
    cumRevenue += revenue;
    cumNet += net;
    cumCosts += costs;
    if (i < visibleFrom) continue;
    // churn over the window ending with this period, over those active at its start
    const w0 = i - windowPeriods;
    const activeAtStart = w0 >= 0 ? (levelEnd[w0]?.active ?? 0) : levelStart.active;
    let churnedInWindow = 0;
    for (let j = Math.max(0, w0 + 1); j <= i; j++) churnedInWindow += churned[j] ?? 0;
    const churnRate = activeAtStart > 0 ? churnedInWindow / activeAtStart : 0;
    const arpu = level.money_active > 0 ? level.mrr / level.money_active : 0;
    const checkoutsN = Number(c?.checkouts ?? 0);
    const succeeded = Number(c?.succeeded ?? 0);
    const grossMargin = net - costs;
    const v: Values = {
      active_subscriptions: level.active,
      committed_subscriptions: level.committed,
      monthly_recurring_revenue: Math.round(level.mrr),
      trial_monthly_recurring_revenue: Math.round(level.trial_mrr),
      committed_monthly_recurring_revenue: Math.round(level.committed_mrr),
      trial_committed_monthly_recurring_revenue: Math.round(level.trial_committed_mrr),
      average_revenue_per_user: Math.round(arpu),
      checkouts: checkoutsN,
      succeeded_checkouts: succeeded,
      churned_subscriptions: churned[i] ?? 0,
      churn_rate: churnRate,
      orders: Number(o?.orders ?? 0),
      revenue,
      net_revenue: net,
      cumulative_revenue: cumRevenue,
      net_cumulative_revenue: cumNet,
      costs,
      cumulative_costs: cumCosts,
      average_order_value: moneyOrders > 0 ? Math.round(revenue / moneyOrders) : 0,
      net_average_order_value: moneyOrders > 0 ? Math.round(net / moneyOrders) : 0,
      cost_per_user: users > 0 ? costs / users : 0,
      active_user_by_event: users,
      one_time_products: Number(o?.one_time ?? 0),
      one_time_products_revenue: Number(o?.one_time_revenue ?? 0),
      one_time_products_net_revenue: Number(o?.one_time_net ?? 0),
      new_subscriptions: started[i] ?? 0,
      new_subscriptions_revenue: Number(o?.new_revenue ?? 0),
      new_subscriptions_net_revenue: Number(o?.new_net ?? 0),
      renewed_subscriptions: Number(o?.renewed ?? 0),
      renewed_subscriptions_revenue: Number(o?.renewed_revenue ?? 0),
      renewed_subscriptions_net_revenue: Number(o?.renewed_net ?? 0),
      canceled_subscriptions: canceled[i] ?? 0,
      ...Object.fromEntries(CANCELLATION_REASONS.map((r) => [`canceled_subscriptions_${r}`, byReason[r]?.[i] ?? 0])),
      annual_recurring_revenue: Math.round(level.mrr * 12),
      committed_annual_recurring_revenue: Math.round(level.committed_mrr * 12),
      checkouts_conversion: checkoutsN > 0 ? succeeded / checkoutsN : 0,
      ltv: churnRate > 0 ? Math.round((arpu * WINDOW_MONTHS[q.interval]) / churnRate) : 0,
      gross_margin: Math.round(grossMargin),
      gross_margin_percentage: net > 0 ? grossMargin / net : 0,
      active_customers: customers?.periods[i - visibleFrom] ?? 0,
      // whether the period has a churn rate (subscriptions at its window's start), and the money orders, for the totals
      _churn_periods: activeAtStart > 0 ? 1 : 0,
      _money_orders: moneyOrders,
      _net_exact: net,
    };
    rows.push(v);
    const period: MetricsResponseWire["periods"][number] = { timestamp: new Date(all[i]?.start ?? 0).toISOString() };
    for (const d of selected) period[d.slug] = v[d.slug] ?? 0;
    periods.push(period);
  }
  const sum = { ...totals(rows), active_customers: customers?.total ?? 0 };
  return { periods, totals: pick(sum, selected), metrics: metricsWire(selected) };
}

/** Every source's sums per period: from the hourly rollups (and the hours they cannot split), else from the rows. */
async function sources(db: Db, scope: repo.Scope, all: repo.Period[], from: number, to: number, scan: boolean, users: boolean) {
  const plan = scan ? null : rollups.plan(scope, all);
  if (plan) {
    const r = await rollups.rollupSums(db, scope, all, users, plan);
    return [r.orders, r.levels, r.subscriptions, r.checkouts, r.events] as const;
  }
  return Promise.all([
    repo.orderBuckets(db, scope, from, to),
    repo.levelBuckets(db, scope, from, to),
    repo.subscriptionEvents(db, scope, from, to),
    repo.checkoutBuckets(db, scope, from, to),
    repo.eventBuckets(db, scope, from, to),
  ]);
}

const LEVEL_KEYS = ["active", "money_active", "committed", "trialing", "mrr", "committed_mrr", "trial_mrr", "trial_committed_mrr"] as const;
type Level = Record<(typeof LEVEL_KEYS)[number], number>;
const zeroLevel = (): Level => ({ active: 0, money_active: 0, committed: 0, trialing: 0, mrr: 0, committed_mrr: 0, trial_mrr: 0, trial_committed_mrr: 0 });

function pick(v: Values, selected: readonly MetricDefinition[]): Values {
  const out: Values = {};
  for (const d of selected) out[d.slug] = v[d.slug] ?? 0;
  return out;
}

function totals(rows: Values[]): Values {
  // every key's sum in one pass over the rows
  const sums = new Map<string, number>();
  for (const r of rows) for (const k in r) sums.set(k, (sums.get(k) ?? 0) + (r[k] ?? 0));
  const sum = (k: string) => sums.get(k) ?? 0;
  const last = rows[rows.length - 1] ?? {};
  const out: Values = {};
  for (const d of METRICS) {
    if (d.total === "sum") out[d.slug] = sum(d.slug);
    else if (d.total === "last") out[d.slug] = last[d.slug] ?? 0;
  }
  const moneyOrders = sum("_money_orders");
  const churnPeriods = sum("_churn_periods");
  const users = rows.reduce((a, r) => Math.max(a, r.active_user_by_event ?? 0), 0);
  const net = sum("_net_exact");
  // the mean of the periods' rates, over the periods that have one: a range that starts before the first
  // subscription (nothing to churn from) still says how fast subscriptions churn once there are some
  out.churn_rate = churnPeriods > 0 ? sum("churn_rate") / churnPeriods : 0;
  out.average_order_value = moneyOrders > 0 ? Math.round(sum("revenue") / moneyOrders) : 0;
  out.net_average_order_value = moneyOrders > 0 ? Math.round(net / moneyOrders) : 0;
  out.active_user_by_event = users;
  out.cost_per_user = users > 0 ? sum("costs") / users : 0;
  out.checkouts_conversion = sum("checkouts") > 0 ? sum("succeeded_checkouts") / sum("checkouts") : 0;
  out.gross_margin_percentage = net > 0 ? sum("gross_margin") / net : 0;
  return out;
}

// ---- dashboards ---------------------------------------------------------------------------------

const NOT_FOUND = "Dashboard not found.";
const slugs = z.array(z.string().refine((s) => METRIC_SLUGS.has(s), { message: "Unknown metric" })).max(100);

export const DashboardCreateInput = z.object({
  name: z.string().trim().min(1).max(255),
  metrics: slugs.default([]),
  organization_id: z.uuid().nullish(),
});
export const DashboardUpdateInput = z.object({
  name: z.string().trim().min(1).max(255).nullish(),
  metrics: slugs.nullish(),
});

export async function listDashboards(db: Db, organizationId: string) {
  const rows = await db
    .select()
    .from(metricDashboard)
    .where(eq(metricDashboard.organizationId, organizationId))
    .orderBy(asc(metricDashboard.createdAt), asc(metricDashboard.id))
    .limit(1000);
  return rows.map(toDashboardWire);
}

async function ownDashboard(db: Db, organizationId: string, id: string) {
  const [row] = await db
    .select()
    .from(metricDashboard)
    .where(and(eq(metricDashboard.organizationId, organizationId), eq(metricDashboard.id, id)))
    .limit(1);
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

export async function getDashboard(db: Db, organizationId: string, id: string) {
  return toDashboardWire(await ownDashboard(db, organizationId, id));
}

export async function createDashboard(db: Db, organizationId: string, input: z.output<typeof DashboardCreateInput>) {
  const [row] = await db.insert(metricDashboard).values({ organizationId, name: input.name, metrics: input.metrics }).returning();
  if (!row) throw new Error("dashboard insert returned nothing");
  return toDashboardWire(row);
}

export async function updateDashboard(db: Db, organizationId: string, id: string, input: z.output<typeof DashboardUpdateInput>) {
  await ownDashboard(db, organizationId, id);
  const [row] = await db
    .update(metricDashboard)
    .set({ ...(input.name ? { name: input.name } : {}), ...(input.metrics ? { metrics: input.metrics } : {}), modifiedAt: new Date() })
    .where(and(eq(metricDashboard.organizationId, organizationId), eq(metricDashboard.id, id)))
    .returning();
  if (!row) throw notFound(NOT_FOUND);
  return toDashboardWire(row);
}

export async function deleteDashboard(db: Db, organizationId: string, id: string): Promise<void> {
  const deleted = await db
    .delete(metricDashboard)
    .where(and(eq(metricDashboard.organizationId, organizationId), eq(metricDashboard.id, id)))
    .returning({ id: metricDashboard.id });
  if (deleted.length === 0) throw notFound(NOT_FOUND);
}
