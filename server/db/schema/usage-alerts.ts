// Usage alerts: a seller's thresholds on a meter (for every customer or one), and each crossing
// of one — at most one per alert, customer and period (the unique key), recorded in the transaction that
// enqueues its webhook and emails.
import { index, jsonb, numeric, pgTable, text, timestamp, uniqueIndex, boolean, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.js";
import { customer, meter } from "./billing.js";

const timestamptz = (name: string) => timestamp(name, { withTimezone: true });

export const usageAlert = pgTable(
  "usage_alert",
  {
    id: uuid("id").defaultRandom().primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    meterId: uuid("meter_id")
      .notNull()
      .references(() => meter.id, { onDelete: "cascade" }),
    /** null: every customer of the organization. */
    customerId: uuid("customer_id").references(() => customer.id, { onDelete: "cascade" }),
    /** units | amount | credits_percent | cap_percent | balance (server/billing/usage-alerts/wire.ts) */
    kind: text("kind").notNull(),
    threshold: numeric("threshold").notNull(),
    notifyCustomer: boolean("notify_customer").default(false).notNull(),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    modifiedAt: timestamptz("modified_at"),
  },
  (t) => [index("usage_alert_org_meter_idx").on(t.organizationId, t.meterId)],
);

export const usageAlertCrossing = pgTable(
  "usage_alert_crossing",
  {
    id: uuid("id").defaultRandom().primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    alertId: uuid("alert_id")
      .notNull()
      .references(() => usageAlert.id, { onDelete: "cascade" }),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customer.id, { onDelete: "cascade" }),
    subscriptionId: uuid("subscription_id"),
    periodStart: timestamptz("period_start").notNull(),
    periodEnd: timestamptz("period_end").notNull(),
    /** What the alert measured when it was crossed (the webhook's payload). */
    measured: jsonb("measured").$type<Record<string, unknown>>().notNull(),
    crossedAt: timestamptz("crossed_at").defaultNow().notNull(),
  },
  (t) => [uniqueIndex("usage_alert_crossing_key").on(t.alertId, t.customerId, t.periodStart)],
);
