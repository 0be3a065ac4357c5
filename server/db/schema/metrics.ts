// Metrics (issue 28 §1, docs/metrics.md): the seller's saved dashboards, and the history MRR and active
// subscriptions are read from — delta rows a trigger on "subscription" writes (migration 0040), never the app.
import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, numeric, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.js";
import { subscription } from "./checkout.js";

export const metricDashboard = pgTable(
  "metric_dashboard",
  {
    id: uuid("id").defaultRandom().primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    metrics: text("metrics").array().default(sql`'{}'`).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).defaultNow().notNull(),
    modifiedAt: timestamp("modified_at", { withTimezone: true }),
  },
  (t) => [index("metric_dashboard_org_created_idx").on(t.organizationId, t.createdAt)],
);

/** What one change of a subscription added (or took away) at `at`; the state at any time is the sum up to it. */
export const metricSubscriptionChange = pgTable(
  "metric_subscription_change",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => subscription.id, { onDelete: "cascade" }),
    customerId: uuid("customer_id").notNull(),
    productId: uuid("product_id").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
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
