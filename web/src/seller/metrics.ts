// The home's figures: the ranges a seller picks from (in the address as `range`), the metrics asked of
// GET /v1/metrics/ for them, and each series' summary (the value now and its change over the range).
import type { Result } from "../api.js";
import { v1, type Scope } from "./api.js";

export const RANGES = [
  { id: "30d", label: "Last 30 days", days: 30, interval: "day" },
  { id: "90d", label: "Last 90 days", days: 90, interval: "week" },
  { id: "12mo", label: "Last 12 months", days: 365, interval: "month" },
  { id: "3y", label: "Last 3 years", days: 3 * 365, interval: "month" },
] as const;

export type RangeId = (typeof RANGES)[number]["id"];
export type Range = (typeof RANGES)[number];

export const rangeOf = (id: string | null): Range => RANGES.find((r) => r.id === id) ?? RANGES[2];

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
  const start = new Date(today);
  start.setDate(start.getDate() - range.days + 1);
  return { start: isoDay(start), end: isoDay(today) };
}

export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** The four series of the home over the range, in the browser's time zone. */
export function loadMetrics(scope: Scope, range: Range): Promise<Result<MetricsAnswer>> {
  const { start, end } = datesOf(range);
  return v1<MetricsAnswer>(scope, "GET", "/metrics/", {
    query: { start_date: start, end_date: end, interval: range.interval, timezone: browserZone(), metrics: CHARTS.map((c) => c.slug) },
  });
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
