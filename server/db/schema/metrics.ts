// Metrics (issue 28 §1, docs/metrics.md): the seller's saved dashboards, and the history MRR and active
// subscriptions are read from — delta rows a trigger on "subscription" writes (migration 0040), never the app.
import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, numeric, pgTable, text, uuid } from "drizzle-orm/pg-core";

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
    index("metric_subscription_change_scheduled_idx").on(t.subscriptionId).where(sql`${t.scheduled}`),
  ],
);
