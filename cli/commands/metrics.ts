// `till metrics [metric]`: the organization's numbers from GET /v1/metrics/ (docs/metrics.md). With a metric
// (mrr, revenue, orders, churn, … or any slug) a column chart of its series on a terminal with a summary line
// (the value now, the change over the range, the total of a flow); without one an overview of the main
// metrics with sparklines. Money in the organization's currency. --json/--jq print the API's answer; a pipe
// gets one "<period start>\t<value>" line per period.
import type { Command } from "commander";
import { v1, whoami, organizationLabel, type Whoami } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireCredential, type Context } from "../context.js";
import { UsageError } from "../errors.js";
import { collectCustomer, collectId, oneOf } from "../flags.js";
import { exponent, money } from "../words.js";
import { bucketLabel } from "./meters.js";
import { customerIdOf } from "./customers.js";

const INTERVALS = ["hour", "day", "week", "month", "year"] as const;
type Interval = (typeof INTERVALS)[number];

/** The short names; any other metric is named by its slug (monthly_recurring_revenue, or with dashes). */
export const ALIASES: Readonly<Record<string, string>> = {
  mrr: "monthly_recurring_revenue",
  arr: "annual_recurring_revenue",
  revenue: "revenue",
  "net-revenue": "net_revenue",
  orders: "orders",
  aov: "average_order_value",
  active: "active_subscriptions",
  subscriptions: "active_subscriptions",
  new: "new_subscriptions",
  churn: "churn_rate",
  churned: "churned_subscriptions",
  canceled: "canceled_subscriptions",
  arpu: "average_revenue_per_user",
  ltv: "ltv",
  checkouts: "checkouts",
  conversion: "checkouts_conversion",
  costs: "costs",
  margin: "gross_margin",
};

/** The overview's metrics, in its order. */
const OVERVIEW = ["monthly_recurring_revenue", "revenue", "orders", "active_subscriptions", "new_subscriptions", "churn_rate"];
/** Levels: the value now is the last period's, and grouped periods keep their last. */
const LEVELS = new Set([
  "active_subscriptions", "committed_subscriptions", "monthly_recurring_revenue", "trial_monthly_recurring_revenue",
  "committed_monthly_recurring_revenue", "trial_committed_monthly_recurring_revenue", "average_revenue_per_user",
  "cumulative_revenue", "net_cumulative_revenue", "cumulative_costs", "annual_recurring_revenue",
  "committed_annual_recurring_revenue", "ltv",
]);

export type MetricType = "scalar" | "currency" | "currency_sub_cent" | "percentage";

export interface WireMetrics {
  periods: Array<Record<string, string | number>>;
  totals: Record<string, number>;
  metrics: Record<string, { slug: string; display_name: string; type: MetricType }>;
}

export function slugOf(name: string): string {
  const key = name.trim().toLowerCase();
  const slug = ALIASES[key] ?? key.replaceAll("-", "_");
  if (!/^[a-z_]{1,100}$/.test(slug)) throw new UsageError(`unknown metric: ${name}`, `try one of ${Object.keys(ALIASES).join(", ")}, or a metric's slug`);
  return slug;
}

const DAY_MS = 86_400_000;
const ymd = (d: Date) => d.toISOString().slice(0, 10);

/** Today's date in the time zone (YYYY-MM-DD). */
export function todayIn(timeZone: string, now = new Date()): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(now).map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/**
 * The first date of `--since`: a date, or a span back from `until` — 30d, 8w, 12mo, 1y. Months and years
 * start on the 1st, so `12mo` by month is twelve whole months, the current one last.
 */
export function sinceDate(since: string, until: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(since)) return since;
  const m = /^(\d{1,4})\s*(d|w|mo|m|y)$/i.exec(since.trim());
  if (!m) throw new UsageError(`--since: expected a date (2025-01-31) or a span (30d, 8w, 12mo, 1y), got "${since}"`);
  const n = Number(m[1]);
  const unit = (m[2] ?? "d").toLowerCase();
  if (n < 1) throw new UsageError("--since: the span must be at least 1");
  const end = new Date(`${until}T00:00:00Z`);
  if (unit === "d") return ymd(new Date(end.getTime() - (n - 1) * DAY_MS));
  if (unit === "w") return ymd(new Date(end.getTime() - (7 * n - 1) * DAY_MS));
  const months = unit === "y" ? 12 * n : n;
  return ymd(new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - months + 1, 1)));
}

/** The interval a range reads best in when --interval is not given (within the API's limits). */
export function defaultInterval(start: string, end: string): Interval {
  const days = (Date.parse(end) - Date.parse(start)) / DAY_MS;
  if (days < 60) return "day";
  if (days <= 1460) return "month";
  return "year";
}

/** A value as its metric's type reads: money in the currency, ratios as percentages. */
export function formatValue(value: number, type: MetricType, currency: string): string {
  if (type === "currency") return money(Math.round(value), currency);
  if (type === "currency_sub_cent") return money(String(Number(value.toFixed(6))), currency);
  if (type === "percentage") return `${(value * 100).toFixed(1)}%`;
  return value.toLocaleString("en", { maximumFractionDigits: 2 });
}

/** An axis label: compact ("$1.5K", "12%", "3.4K"). */
export function formatAxis(value: number, type: MetricType, currency: string): string {
  if (type === "percentage") return `${Number((value * 100).toFixed(1))}%`;
  if (type === "currency" || type === "currency_sub_cent") {
    try {
      return new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase(), notation: "compact", minimumFractionDigits: 0, maximumFractionDigits: 1 }).format(
        value / 10 ** exponent(currency),
      );
    } catch {
      return `${value}`;
    }
  }
  return new Intl.NumberFormat("en", { notation: "compact", minimumFractionDigits: 0, maximumFractionDigits: 1 }).format(value);
}

/** "+$234.00 (+23.4%)", "−1.2 pts" for a ratio, "no change". */
export function describeChange(first: number, last: number, type: MetricType, currency: string): string {
  const delta = last - first;
  if (Math.abs(delta) < 1e-9) return "no change";
  const sign = delta > 0 ? "+" : "−";
  if (type === "percentage") return `${sign}${Math.abs(delta * 100).toFixed(1)} pts`;
  const shown = `${sign}${formatValue(Math.abs(delta), type, currency)}`;
  return first !== 0 ? `${shown} (${sign}${Math.abs((delta / first) * 100).toFixed(1)}%)` : shown;
}

export interface Series {
  slug: string;
  name: string;
  type: MetricType;
  level: boolean;
  points: Array<{ timestamp: string; value: number }>;
  total: number;
}

export function seriesOf(res: WireMetrics, slug: string): Series {
  const def = res.metrics[slug];
  return {
    slug,
    name: def?.display_name ?? slug,
    type: def?.type ?? "scalar",
    level: LEVELS.has(slug),
    points: res.periods.map((p) => ({ timestamp: String(p.timestamp), value: Number(p[slug] ?? 0) })),
    total: Number(res.totals[slug] ?? 0),
  };
}

/** The summary line: the value now (the last period), the change since the first period, a flow's total. */
export function summaryLine(s: Series, currency: string, label: (iso: string) => string): string {
  const first = s.points[0];
  const last = s.points[s.points.length - 1];
  if (!first || !last) return `${s.name}: no periods`;
  const now = formatValue(last.value, s.type, currency);
  const parts = [`${s.name}: ${now}${s.level ? " now" : ` in ${label(last.timestamp)}`}`, `${describeChange(first.value, last.value, s.type, currency)} since ${label(first.timestamp)}`];
  if (!s.level && s.type !== "percentage") parts.push(`${formatValue(s.total, s.type, currency)} in all`);
  return parts.join(" · ");
}

interface MetricsFlags {
  since: string;
  until?: string;
  interval?: Interval;
  timezone: string;
  product?: string[];
  customer?: string[];
}

async function organization(ctx: Context, known?: Whoami): Promise<{ label: string; currency: string }> {
  const who = known ?? (await whoami(ctx, requireCredential(ctx)));
  if (!who.organization_id) return { label: ctx.server, currency: "usd" };
  const org = await v1(ctx).get<{ name: string; slug: string; default_presentment_currency?: string }>(`/organizations/${who.organization_id}`);
  return { label: organizationLabel(org, who.sandbox), currency: (org.default_presentment_currency ?? "usd").toLowerCase() };
}

/**
 * The organization's now: in a sandbox, its test clock's (GET /v1/test-clock), so a range that ends "today" ends
 * where the sandbox's orders and renewals are; else, or when the key may not read the clock, the wall clock's.
 */
async function organizationNow(ctx: Context, who: Whoami): Promise<Date> {
  if (!who.sandbox) return new Date();
  try {
    return new Date((await v1(ctx).get<{ now: string }>("/test-clock")).now);
  } catch {
    return new Date();
  }
}

/** An overview row's figure and what it is: a level now, a flow's total over the range, a ratio's for the range. */
export function overviewRow(s: Series, currency: string, label: (iso: string) => string) {
  const first = s.points[0]?.value ?? 0;
  const last = s.points[s.points.length - 1];
  const value = (v: number) => formatValue(v, s.type, currency);
  const combine = s.level ? ("last" as const) : s.type === "percentage" ? ("mean" as const) : ("sum" as const);
  const values = s.points.map((p) => p.value);
  if (s.level) return { name: s.name, now: `${value(last?.value ?? 0)} now`, change: describeChange(first, last?.value ?? 0, s.type, currency), values, combine };
  // a flow's figure is the range's total, a ratio's the range's (docs/metrics.md); the last period is named beside
  const lastPeriod = last ? `${value(last.value)} in ${label(last.timestamp)}` : "";
  return { name: s.name, now: `${value(s.total)} ${s.type === "percentage" ? "for the range" : "in all"}`, change: lastPeriod, values, combine };
}

async function show(ctx: Context, opts: MetricsFlags, [name]: string[]) {
  const slug = name === undefined ? undefined : slugOf(name);
  const who = opts.until ? undefined : await whoami(ctx, requireCredential(ctx));
  const until = opts.until ?? todayIn(opts.timezone, who ? await organizationNow(ctx, who) : undefined);
  const start = sinceDate(opts.since, until);
  if (start > until) throw new UsageError("--since: must be on or before --until");
  const interval = opts.interval ?? defaultInterval(start, until);
  const qs = new URLSearchParams({ start_date: start, end_date: until, interval, timezone: opts.timezone });
  for (const m of slug ? [slug] : OVERVIEW) qs.append("metrics", m);
  for (const p of opts.product ?? []) qs.append("product_id", p);
  for (const c of opts.customer ?? []) qs.append("customer_id", await customerIdOf(ctx, c));
  const [res, org] = await ctx.out.loading("Loading metrics", Promise.all([v1(ctx).get<WireMetrics>(`/metrics/?${qs}`), ctx.out.json ? undefined : organization(ctx, who)]));
  if (ctx.out.json || !org) return ctx.out.printJson(res);
  const label = (iso: string) => bucketLabel(iso, interval, opts.timezone);
  const span = `by ${interval}, ${start} → ${until} (${opts.timezone})`;
  if (!ctx.out.interactive) {
    // a pipe: one "timestamp<TAB>value…" line per period, for sort/awk/gnuplot
    const slugs = slug ? [slug] : OVERVIEW;
    return ctx.out.done(res, res.periods.map((p) => [p.timestamp, ...slugs.map((s) => p[s] ?? 0)].join("\t")).join("\n"));
  }
  await ctx.out.ui();
  const chart = await import("../ui/ColumnChart.js");
  const columns = Math.min(process.stdout.columns || 80, 120);
  if (!slug) {
    const rows = OVERVIEW.map((m) => overviewRow(seriesOf(res, m), org.currency, label));
    return ctx.out.done(res, chart.renderOverview([`Metrics, ${span}`, org.label], rows, columns));
  }
  const s = seriesOf(res, slug);
  const text = chart.renderColumnChart(
    [`${s.name}, ${span}`, org.label, summaryLine(s, org.currency, label)],
    s.points.map((p) => ({ label: label(p.timestamp), value: p.value })),
    { columns, axis: (v) => formatAxis(v, s.type, org.currency), combine: s.level ? "last" : s.type === "percentage" ? "mean" : "sum" },
  );
  ctx.out.done(res, text);
}

export function register(program: Command): void {
  program
    .command("metrics")
    .description("revenue, MRR, churn and the other metrics over time: a chart on a terminal, the API's JSON with --json")
    .argument("[metric]", `${Object.keys(ALIASES).join(", ")}, or any metric's slug; none: an overview`)
    .option("--since <span|date>", "from this date, or this far back: 30d, 8w, 12mo, 1y", "12mo")
    .option("--until <date>", "until this date, included (default today; in a sandbox, the test clock's today)")
    .option("--interval <interval>", `one period per ${INTERVALS.join(", ")} (default: day under 60 days, else month)`, oneOf(INTERVALS))
    .option("--timezone <zone>", "periods start at midnight in this IANA time zone", "UTC")
    .option("--product <id>", "only this product's orders and subscriptions, repeatable", collectId)
    .option("--customer <id|email>", "only this customer's, repeatable", collectCustomer)
    .addHelpText(
      "after",
      examples([
        "till metrics",
        "till metrics mrr",
        "till metrics revenue --since 12mo --interval month",
        "till metrics orders --since 30d --timezone Europe/Berlin",
        "till metrics churn --since 2025-01-01 --until 2025-06-30",
        "till metrics mrr --json --jq '.totals.monthly_recurring_revenue'",
      ]) +
        "\nAmounts are in the organization's currency, for the mode you are in (till sandbox on|off).\n" +
        "On a pipe: one \"<period start>\\t<value>\" line per period. Definitions: docs/metrics.md.\n",
    )
    .action(withContext(show));
}
