// Metrics (docs/metrics.md): the seller's saved dashboards, and the history MRR and active
// subscriptions are read from — delta rows a trigger on "subscription" writes (migration 0040), never the app.
import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, index, integer, numeric, pgTable, text, uuid } from "drizzle-orm/pg-core";

import { subscription } from "./checkout.js";
import { id, org, cascadeRef, createdAt, modifiedAt, timestamptz } from "./columns.js";

export const metricDashboard = pgTable(
  "metric_dashboard",
  {
    id: id(),
    organizationId: org(),
    name: text("name").notNull(),
    metrics: text("metrics").array().default(sql`'{}'`).notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("metric_dashboard_org_created_idx").on(t.organizationId, t.createdAt)],
);

/** What one change of a subscription added (or took away) at `at`; the state at any time is the sum up to it. */
export const metricSubscriptionChange = pgTable(
  "metric_subscription_change",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    organizationId: org(),
    subscriptionId: cascadeRef("subscription_id", () => subscription.id),
    customerId: uuid("customer_id").notNull(),
    productId: uuid("product_id").notNull(),
    at: timestamptz("at").notNull(),
    currency: text("currency").notNull(),
    active: integer("active").notNull(),
    committed: integer("committed").notNull(),
    trialing: integer("trialing").notNull(),
    /** Minor units per month, unrounded (a yearly plan's twelfth). */
    mrr: numeric("mrr").notNull(),
    committedMrr: numeric("committed_mrr").notNull(),
    trialMrr: numeric("trial_mrr").notNull(),
    trialCommittedMrr: numeric("trial_committed_mrr").notNull(),
    /** A repeating discount's end, dated in advance; replaced when the subscription changes again. */
    scheduled: boolean("scheduled").default(false).notNull(),
  },
  (t) => [
    index("metric_subscription_change_org_at_idx").on(t.organizationId, t.at),
    index("metric_subscription_change_org_customer_idx").on(t.organizationId, t.customerId, t.at),
    index("metric_subscription_change_scheduled_idx").on(t.subscriptionId).where(sql`${t.scheduled}`),
  ],
);

const count = (name: string) => integer(name).default(0).notNull();
const money = (name: string) => numeric(name).default("0").notNull();

/**
 * The figures metric_hour and metric_product_hour both sum per hour (migrations 0048 and 0061; the fold's COUNTS
 * and MONEY in billing/metrics/fold.ts): orders and revenue, checkouts, subscription starts, ends and
 * cancellation reasons, and the subscription state. metric_hour adds the events' costs.
 */
const hourSums = () => ({
  orders: count("orders"),
  revenue: money("revenue"),
  netRevenue: money("net_revenue"),
  oneTime: count("one_time"),
  oneTimeRevenue: money("one_time_revenue"),
  oneTimeNet: money("one_time_net"),
  newRevenue: money("new_revenue"),
  newNet: money("new_net"),
  renewed: count("renewed"),
  renewedRevenue: money("renewed_revenue"),
  renewedNet: money("renewed_net"),
  checkouts: count("checkouts"),
  succeededCheckouts: count("succeeded_checkouts"),
  newSubscriptions: count("new_subscriptions"),
  churned: count("churned"),
  canceled: count("canceled"),
  canceledCustomerService: count("canceled_customer_service"),
  canceledLowQuality: count("canceled_low_quality"),
  canceledMissingFeatures: count("canceled_missing_features"),
  canceledSwitchedService: count("canceled_switched_service"),
  canceledTooComplex: count("canceled_too_complex"),
  canceledTooExpensive: count("canceled_too_expensive"),
  canceledUnused: count("canceled_unused"),
  canceledOther: count("canceled_other"),
  active: count("active"),
  committed: count("committed"),
  trialing: count("trialing"),
  mrr: money("mrr"),
  committedMrr: money("committed_mrr"),
  trialMrr: money("trial_mrr"),
  trialCommittedMrr: money("trial_committed_mrr"),
});

/**
 * The metrics' sources summed per UTC hour and currency (migration 0048): append-only delta rows written by
 * statement triggers on order, checkout, subscription, metric_subscription_change and event, folded by
 * billing/metrics/rollups.ts. `currency` is '' for sources without one.
 */
export const metricHour = pgTable(
  "metric_hour",
  {
    organizationId: org(),
    hour: timestamptz("hour").notNull(),
    currency: text("currency").notNull(),
    folded: boolean("folded").default(false).notNull(),
    ...hourSums(),
    costs: money("costs"),
  },
  (t) => [
    index("metric_hour_org_hour_idx").on(t.organizationId, t.hour),
    index("metric_hour_unfolded_idx").on(t.organizationId).where(sql`NOT ${t.folded}`),
  ],
);

/**
 * metric_hour keyed by product too (migration 0061), for metrics filtered by product or billing type: `productId`
 * is the source row's (null when none), `recurring` an order's subscription (true for subscriptions and their
 * history, false for checkouts, whose billing type is their product's). No costs: events have no product.
 */
export const metricProductHour = pgTable(
  "metric_product_hour",
  {
    organizationId: org(),
    productId: uuid("product_id"),
    recurring: boolean("recurring").notNull(),
    hour: timestamptz("hour").notNull(),
    currency: text("currency").notNull(),
    folded: boolean("folded").default(false).notNull(),
    ...hourSums(),
  },
  (t) => [
    index("metric_product_hour_org_product_hour_idx").on(t.organizationId, t.productId, t.hour),
    index("metric_product_hour_unfolded_idx").on(t.organizationId).where(sql`NOT ${t.folded}`),
  ],
);

/** The customers (id, else external id) with events per UTC hour; duplicates until folded. */
export const metricEventUserHour = pgTable(
  "metric_event_user_hour",
  {
    organizationId: org(),
    hour: timestamptz("hour").notNull(),
    userKey: text("user_key").notNull(),
    folded: boolean("folded").default(false).notNull(),
  },
  (t) => [
    index("metric_event_user_hour_org_hour_idx").on(t.organizationId, t.hour, t.userKey),
    index("metric_event_user_hour_unfolded_idx").on(t.organizationId).where(sql`NOT ${t.folded}`),
    index("metric_event_user_hour_folded_user_idx").on(t.organizationId, t.userKey, t.hour).where(sql`${t.folded}`),
  ],
);

/** Bumped with every change to an organization's folded metric_event_user_hour rows (migration 0054). */
export const metricUserGeneration = pgTable("metric_user_generation", {
  organizationId: uuid("organization_id").primaryKey(),
  generation: bigint("generation", { mode: "number" }).default(0).notNull(),
});
