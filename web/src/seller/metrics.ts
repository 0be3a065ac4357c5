// The home's figures: the ranges a seller picks from (in the address as `range`), the metrics asked of
// GET /v1/metrics/ for them, and each series' summary (the value now and its change over the range).
import type { Result } from "../api.js";
import { v1, type Scope } from "./api.js";

export type Interval = "day" | "week" | "month" | "year";

export interface Range {
  /** A preset's id, or "custom" (`from` and `to` in the address). */
  id: string;
  label: string;
  interval: Interval;
  /** A preset's length in days, ending today; a custom range names its dates instead; "all time" has neither. */
  days?: number;
  from?: string;
  to?: string;
}

export const RANGES: readonly Range[] = [
  { id: "7d", label: "Last 7 days", days: 7, interval: "day" },
  { id: "30d", label: "Last 30 days", days: 30, interval: "day" },
  { id: "90d", label: "Last 90 days", days: 90, interval: "week" },
  { id: "12mo", label: "Last 12 months", days: 365, interval: "month" },
  { id: "3y", label: "Last 3 years", days: 3 * 365, interval: "month" },
  // from the organization's first day (its interval follows the span, as a custom range's): nothing before to compare
  { id: "all", label: "All time", interval: "month" },
];

/** The range the home opens on. */
export const DEFAULT_RANGE = "12mo";

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** The interval a custom range reads best in, within the API's limits (a month needs 60 days, a year 366). */
export function intervalFor(from: string, to: string): Interval {
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS;
  if (days < 60) return "day";
  if (days <= 1460) return "month";
  return "year";
}

/** The range the address asks for: a preset, a custom `from`–`to` (both dates, in order), else the last 12 months. */
export function rangeOf(id: string | null, from?: string | null, to?: string | null): Range {
  if (id === "custom" && from && to && DAY.test(from) && DAY.test(to) && !Number.isNaN(Date.parse(from)) && !Number.isNaN(Date.parse(to)) && from <= to) {
    return { id: "custom", label: `${from} to ${to}`, interval: intervalFor(from, to), from, to };
  }
  return RANGES.find((r) => r.id === id) ?? RANGES.find((r) => r.id === DEFAULT_RANGE)!;
}

/**
 * The home's figures, in the order a seller reads them: what recurs, what came in, what was won and lost, what
 * is held. `level`: the value at the range's end; `flow`: the range's sum; `ratio`: over the range; `distinct`: each
 * counted once over the range (the API's totals).
 */
export const CHARTS = [
  { slug: "monthly_recurring_revenue", title: "MRR", kind: "level", unit: "money" },
  { slug: "revenue", title: "Revenue", kind: "flow", unit: "money" },
  { slug: "new_subscriptions", title: "New subscriptions", kind: "flow", unit: "count" },
  { slug: "churned_subscriptions", title: "Churned subscriptions", kind: "flow", unit: "count" },
  { slug: "active_subscriptions", title: "Active subscriptions", kind: "level", unit: "count" },
  // till's own metric: customers with a paying subscription or a paid order, distinct over the range
  { slug: "active_customers", title: "Active customers", kind: "distinct", unit: "count" },
  { slug: "churn_rate", title: "Churn rate", kind: "ratio", unit: "ratio" },
] as const;

export type Slug = (typeof CHARTS)[number]["slug"];

export interface MetricsAnswer {
  periods: Array<{ timestamp: string } & Partial<Record<Slug, number>>>;
  totals: Partial<Record<Slug, number>>;
  metrics: Partial<Record<Slug, { slug: string; display_name: string; type: "scalar" | "currency" | "currency_sub_cent" | "percentage" }>>;
}

const DAY_FORMATS = new Map<string, Intl.DateTimeFormat>();

/** The date (YYYY-MM-DD) an instant falls on in a time zone. */
export function dayIn(zone: string, at: Date): string {
  let f = DAY_FORMATS.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" });
    DAY_FORMATS.set(zone, f);
  }
  return f.format(at);
}

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** "All time" covers at least this many days, ending today. */
const ALL_TIME_MIN_DAYS = 7;

/** The API's longest span (by year, 3,650 days): "all time" starts no earlier. */
const MAX_SPAN_DAYS = 3650;

/** The range's dates: a custom range's own; a preset's days ending on `today`; all time from `since` to `today`. */
export function datesOf(range: Range, today: string, since?: string): { start: string; end: string } {
  if (range.from && range.to) return { start: range.from, end: range.to };
  if (range.days === undefined) {
    const first = [since ?? MIN_DATE, MIN_DATE, addDays(today, -MAX_SPAN_DAYS)].reduce((a, b) => (a > b ? a : b));
    // a young organization's all time is at least a week: a chart of one day is one dot
    const week = addDays(today, -(ALL_TIME_MIN_DAYS - 1));
    return { start: first > week ? week : first, end: today };
  }
  return { start: addDays(today, -range.days + 1), end: today };
}

/** The interval a range is asked by: a preset's own; all time's and a custom range's by their span. */
export function intervalOf(range: Range, dates: { start: string; end: string }): Interval {
  return range.id === "all" ? intervalFor(dates.start, dates.end) : range.interval;
}

export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/**
 * The organization's now: in the sandbox, its test clock's (a range ending "today" ends where the sandbox's
 * orders and renewals are); else, or when the clock cannot be read, the wall clock's.
 */
export async function organizationNow(scope: Scope): Promise<Date> {
  if (!scope.sandbox) return new Date();
  const clock = await v1<{ now: string }>(scope, "GET", "/test-clock");
  return clock.ok ? new Date(clock.data.now) : new Date();
}

/** The first day the API answers for (GET /v1/metrics/limits). */
export const MIN_DATE = "2023-01-01";

const dayOf = (iso: string) => new Date(`${iso}T00:00:00Z`);
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/** The period as long as `start`–`end` that ends the day before it; null when it would start before MIN_DATE. */
export function previousOf(start: string, end: string): { start: string; end: string } | null {
  const days = Math.round((dayOf(end).getTime() - dayOf(start).getTime()) / DAY_MS) + 1;
  const prevEnd = new Date(dayOf(start).getTime() - DAY_MS);
  const prevStart = new Date(prevEnd.getTime() - (days - 1) * DAY_MS);
  return utcDay(prevStart) < MIN_DATE ? null : { start: utcDay(prevStart), end: utcDay(prevEnd) };
}

export type Dated = MetricsAnswer & { start: string; end: string; interval: Interval };

export interface HomeMetrics {
  current: Dated;
  /** The period before, as long; absent when not asked, for all time, or before the API's first day. */
  previous?: Dated;
  /** The organization's today (the sandbox's test clock), the day a preset range ends on. */
  today: string;
  /** The zone the days are read in: the organization's (settings), else the browser's. */
  zone: string;
}

interface OrganizationClock {
  created_at?: string;
  default_timezone?: string | null;
}

async function ask(scope: Scope, zone: string, interval: Interval, dates: { start: string; end: string }): Promise<Result<Dated>> {
  const answer = await v1<MetricsAnswer>(scope, "GET", "/metrics/", {
    query: { start_date: dates.start, end_date: dates.end, interval, timezone: zone, metrics: CHARTS.map((c) => c.slug) },
  });
  return answer.ok ? { ok: true, data: { ...answer.data, ...dates, interval } } : answer;
}

/** The home's series over the range, in the organization's time zone, ending on the organization's today. */
export async function loadMetrics(scope: Scope, range: Range): Promise<Result<HomeMetrics>> {
  // the clock and the organization are independent: asked at once (one round trip's wait before the figures)
  const [now, org] = await Promise.all([organizationNow(scope), v1<OrganizationClock>(scope, "GET", `/organizations/${scope.organizationId}`)]);
  const zone = (org.ok && org.data.default_timezone) || browserZone();
  const today = dayIn(zone, now);
  const since = org.ok && org.data.created_at ? dayIn(zone, new Date(org.data.created_at)) : undefined;
  const dates = datesOf(range, today, since);
  const current = await ask(scope, zone, intervalOf(range, dates), dates);
  return current.ok ? { ok: true, data: { current: current.data, today, zone } } : current;
}

/**
 * The same series over the period before `current` (as long, ending the day before it), asked once the range's
 * are drawn so the first paint waits on one metrics query; undefined for all time and before the API's first day.
 */
export async function loadPrevious(scope: Scope, range: Range, m: HomeMetrics): Promise<Result<Dated | undefined>> {
  const before = range.id === "all" ? null : previousOf(m.current.start, m.current.end);
  return before ? ask(scope, m.zone, m.current.interval, before) : { ok: true, data: undefined };
}

/** The change from `before` to `now` as a share of `before` (null when there is nothing to compare with). */
export function changeOf(now: number, before: number | undefined): number | null {
  if (before === undefined) return null;
  if (before === 0) return now === 0 ? 0 : null;
  return (now - before) / Math.abs(before);
}

const cell = (v: string | number) => (/[",\r\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));

/**
 * What the home shows as CSV (RFC 4180): one row per period, its start and each figure in the API's units (minor
 * units of money, ratios as fractions); when comparing, the period before's start and figures beside it.
 */
export function csvOf(m: HomeMetrics): string {
  const slugs = CHARTS.map((c) => c.slug);
  const head = ["period", ...slugs, ...(m.previous ? ["previous_period", ...slugs.map((s) => `previous_${s}`)] : [])];
  const rows = m.current.periods.map((p, i) => {
    const before = m.previous?.periods[i];
    const prev = m.previous ? [before?.timestamp ?? "", ...slugs.map((s) => before?.[s] ?? "")] : [];
    return [p.timestamp, ...slugs.map((s) => p[s] ?? 0), ...prev];
  });
  const totals = ["total", ...slugs.map((s) => m.current.totals[s] ?? 0), ...(m.previous ? ["total", ...slugs.map((s) => m.previous?.totals[s] ?? 0)] : [])];
  return `${[head, ...rows, totals].map((r) => r.map(cell).join(",")).join("\r\n")}\r\n`;
}

