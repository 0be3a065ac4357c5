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
  /** A preset's length in days, ending today; a custom range names its dates instead. */
  days?: number;
  from?: string;
  to?: string;
}

export const RANGES: readonly Range[] = [
  { id: "30d", label: "Last 30 days", days: 30, interval: "day" },
  { id: "90d", label: "Last 90 days", days: 90, interval: "week" },
  { id: "12mo", label: "Last 12 months", days: 365, interval: "month" },
  { id: "3y", label: "Last 3 years", days: 3 * 365, interval: "month" },
];

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
  return RANGES.find((r) => r.id === id) ?? RANGES[2]!;
}

export const CHARTS = [
  { slug: "monthly_recurring_revenue", title: "MRR", kind: "level" },
  { slug: "revenue", title: "Revenue", kind: "flow" },
  { slug: "active_subscriptions", title: "Active subscriptions", kind: "level" },
  { slug: "churn_rate", title: "Churn rate", kind: "ratio" },
] as const;

export type Slug = (typeof CHARTS)[number]["slug"];

export interface MetricsAnswer {
  periods: Array<{ timestamp: string } & Partial<Record<Slug, number>>>;
  totals: Partial<Record<Slug, number>>;
  metrics: Partial<Record<Slug, { slug: string; display_name: string; type: "scalar" | "currency" | "currency_sub_cent" | "percentage" }>>;
}

/** A local date as YYYY-MM-DD. */
const isoDay = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

export function datesOf(range: Range, today = new Date()): { start: string; end: string } {
  if (range.from && range.to) return { start: range.from, end: range.to };
  const start = new Date(today);
  start.setDate(start.getDate() - (range.days ?? 1) + 1);
  return { start: isoDay(start), end: isoDay(today) };
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

/** The four series of the home over the range, in the browser's time zone, with the dates asked for. */
export async function loadMetrics(scope: Scope, range: Range): Promise<Result<MetricsAnswer & { start: string; end: string }>> {
  const { start, end } = datesOf(range, range.from ? undefined : await organizationNow(scope));
  const answer = await v1<MetricsAnswer>(scope, "GET", "/metrics/", {
    query: { start_date: start, end_date: end, interval: range.interval, timezone: browserZone(), metrics: CHARTS.map((c) => c.slug) },
  });
  return answer.ok ? { ok: true, data: { ...answer.data, start, end } } : answer;
}

export interface Summary {
  /** The value shown large: the level at the end, the flow's total, the ratio over the range. */
  now: number;
  /** The first period's value, to compare a level with; null for flows and ratios. */
  first: number | null;
}

export function summaryOf(answer: MetricsAnswer, slug: Slug, kind: "level" | "flow" | "ratio"): Summary {
  const values = answer.periods.map((p) => p[slug] ?? 0);
  const total = answer.totals[slug] ?? values[values.length - 1] ?? 0;
  return { now: total, first: kind === "level" ? (values[0] ?? 0) : null };
}
