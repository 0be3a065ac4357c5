// The Polar metrics shapes: every metric this server computes (slug, display name, type: the SDK's `Metrics`),
// how its total over a range is formed, the `MetricsResponse` / `MetricsLimits` / `MetricDashboardSchema`
// bodies, and the CSV of `metrics.export`. Definitions of each metric: docs/metrics.md.
import type { InferSelectModel } from "drizzle-orm";
import type { metricDashboard } from "../../db/schema/index.js";

export type MetricType = "scalar" | "currency" | "currency_sub_cent" | "percentage";

/**
 * How a metric's total over the range is formed: `sum` of the periods; `last` period's value (a level, e.g.
 * MRR); `ratio` recomputed from other totals (average order value = revenue ÷ orders over the range).
 */
export type TotalRule = "sum" | "last" | "ratio";

export interface MetricDefinition {
  slug: string;
  display_name: string;
  type: MetricType;
  total: TotalRule;
}

const m = (slug: string, display_name: string, type: MetricType, total: TotalRule): MetricDefinition => ({ slug, display_name, type, total });


/** In the SDK's order (models/components/metrics.js); the seat metrics are not computed (no seat history). */
export const METRICS: readonly MetricDefinition[] = [
  m("active_subscriptions", "Active Subscriptions", "scalar", "last"),
  m("committed_subscriptions", "Committed Subscriptions", "scalar", "last"),
  m("monthly_recurring_revenue", "Monthly Recurring Revenue", "currency", "last"),
  m("trial_monthly_recurring_revenue", "Trial Monthly Recurring Revenue", "currency", "last"),
  m("committed_monthly_recurring_revenue", "Committed Monthly Recurring Revenue", "currency", "last"),
  m("trial_committed_monthly_recurring_revenue", "Trial Committed Monthly Recurring Revenue", "currency", "last"),
  m("average_revenue_per_user", "Average Revenue Per User", "currency", "last"),
  m("checkouts", "Checkouts", "scalar", "sum"),
  m("succeeded_checkouts", "Succeeded Checkouts", "scalar", "sum"),
  m("churned_subscriptions", "Churned Subscriptions", "scalar", "sum"),
  m("churn_rate", "Churn Rate", "percentage", "ratio"),
  m("orders", "Orders", "scalar", "sum"),
  m("revenue", "Revenue", "currency", "sum"),
  m("net_revenue", "Net Revenue", "currency", "sum"),
  m("cumulative_revenue", "Cumulative Revenue", "currency", "last"),
  m("net_cumulative_revenue", "Net Cumulative Revenue", "currency", "last"),
  m("costs", "Costs", "currency_sub_cent", "sum"),
  m("cumulative_costs", "Cumulative Costs", "currency_sub_cent", "last"),
  m("average_order_value", "Average Order Value", "currency", "ratio"),
  m("net_average_order_value", "Net Average Order Value", "currency", "ratio"),
  m("cost_per_user", "Cost Per User", "currency_sub_cent", "ratio"),
  m("active_user_by_event", "Active Users", "scalar", "ratio"),
  m("one_time_products", "One-Time Products", "scalar", "sum"),
  m("one_time_products_revenue", "One-Time Products Revenue", "currency", "sum"),
  m("one_time_products_net_revenue", "One-Time Products Net Revenue", "currency", "sum"),
  m("new_subscriptions", "New Subscriptions", "scalar", "sum"),
  m("new_subscriptions_revenue", "New Subscriptions Revenue", "currency", "sum"),
  m("new_subscriptions_net_revenue", "New Subscriptions Net Revenue", "currency", "sum"),
  m("renewed_subscriptions", "Renewed Subscriptions", "scalar", "sum"),
  m("renewed_subscriptions_revenue", "Renewed Subscriptions Revenue", "currency", "sum"),
  m("renewed_subscriptions_net_revenue", "Renewed Subscriptions Net Revenue", "currency", "sum"),
  m("canceled_subscriptions", "Canceled Subscriptions", "scalar", "sum"),
  m("canceled_subscriptions_customer_service", "Canceled Subscriptions: Customer Service", "scalar", "sum"),
  m("canceled_subscriptions_low_quality", "Canceled Subscriptions: Low Quality", "scalar", "sum"),
  m("canceled_subscriptions_missing_features", "Canceled Subscriptions: Missing Features", "scalar", "sum"),
  m("canceled_subscriptions_switched_service", "Canceled Subscriptions: Switched Service", "scalar", "sum"),
  m("canceled_subscriptions_too_complex", "Canceled Subscriptions: Too Complex", "scalar", "sum"),
  m("canceled_subscriptions_too_expensive", "Canceled Subscriptions: Too Expensive", "scalar", "sum"),
  m("canceled_subscriptions_unused", "Canceled Subscriptions: Unused", "scalar", "sum"),
  m("canceled_subscriptions_other", "Canceled Subscriptions: Other", "scalar", "sum"),
  m("annual_recurring_revenue", "Annual Recurring Revenue", "currency", "last"),
  m("committed_annual_recurring_revenue", "Committed Annual Recurring Revenue", "currency", "last"),
  m("checkouts_conversion", "Checkouts Conversion Rate", "percentage", "ratio"),
  m("ltv", "Lifetime Value", "currency", "last"),
  m("gross_margin", "Gross Margin", "currency", "sum"),
  m("gross_margin_percentage", "Gross Margin %", "percentage", "ratio"),
  // till's own (not in the SDKs' model, which strips it): customers with a paying subscription or a paid order
  m("active_customers", "Active Customers", "scalar", "ratio"),
];

export const METRIC_SLUGS: ReadonlySet<string> = new Set(METRICS.map((d) => d.slug));

/** till's own metrics are answered when named only: a query without `metrics` answers Polar's set at Polar's cost. */
const OWN: ReadonlySet<string> = new Set(["active_customers"]);
export const DEFAULT_METRICS: readonly MetricDefinition[] = METRICS.filter((d) => !OWN.has(d.slug));

export type Values = Record<string, number>;

export interface MetricsResponseWire {
  periods: Array<Record<string, string | number>>;
  totals: Values;
  metrics: Record<string, { slug: string; display_name: string; type: MetricType }>;
}

export function metricsWire(selected: readonly MetricDefinition[]) {
  return Object.fromEntries(selected.map((d) => [d.slug, { slug: d.slug, display_name: d.display_name, type: d.type }]));
}

/** `metrics.export`: one row per period, the timestamp then each selected metric (by slug), as RFC 4180 CSV. */
export function metricsCsv(selected: readonly MetricDefinition[], periods: MetricsResponseWire["periods"]): string {
  const lines = [["timestamp", ...selected.map((d) => d.slug)].join(",")];
  for (const p of periods) lines.push([p.timestamp, ...selected.map((d) => String(p[d.slug] ?? ""))].join(","));
  return `${lines.join("\r\n")}\r\n`;
}

export type DashboardRow = InferSelectModel<typeof metricDashboard>;

export function toDashboardWire(row: DashboardRow) {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    name: row.name,
    metrics: row.metrics,
    organization_id: row.organizationId,
  };
}
