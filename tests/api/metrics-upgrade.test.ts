// The metrics migration (0040) on a database that already has subscriptions: each enters the history as it stands,
// from its start (and out at its end), so MRR and active subscriptions read right after the upgrade.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, type Database } from "../../server/db/client.js";
import { getMetrics } from "../../server/billing/metrics/service.js";
import { migrationsBefore, upgradedDatabase } from "../helpers/db.js";

let database: Database | undefined;
afterAll(async () => {
  await database?.close();
});

describe("upgrading to the metrics migration", () => {
  it("enters the existing subscriptions: MRR and active subscriptions month by month", async () => {
    const org = randomUUID();
    database = await upgradedDatabase(migrationsBefore("_metric_dashboards"), async (db) => {
      await db.execute(sql`INSERT INTO organization (id, name, slug, created_at) VALUES (${org}::uuid, 'Old', ${`old-${org}`}, now())`);
      const [c] = await rowsOf<{ id: string }>(db, sql`INSERT INTO customer (organization_id, email) VALUES (${org}::uuid, 'old@example.com') RETURNING id`);
      const [p] = await rowsOf<{ id: string }>(db, sql`INSERT INTO product (organization_id, name, recurring_interval) VALUES (${org}::uuid, 'Old', 'month') RETURNING id`);
      const sub = (status: string, amount: number, interval: string, started: string, ended: string | null) =>
        db.execute(sql`INSERT INTO subscription (organization_id, status, amount, currency, recurring_interval, current_period_start,
            current_period_end, started_at, ended_at, customer_id, product_id, price_ids)
          VALUES (${org}::uuid, ${status}, ${amount}, 'usd', ${interval}, ${started}::timestamptz, ${started}::timestamptz + interval '1 month',
            ${started}::timestamptz, ${ended}::timestamptz, ${c?.id ?? ""}::uuid, ${p?.id ?? ""}::uuid, '{}'::uuid[])`);
      await sub("active", 1000, "month", "2026-01-10T00:00:00Z", null);
      await sub("active", 12000, "year", "2026-02-01T00:00:00Z", null);
      await sub("canceled", 2000, "month", "2026-01-05T00:00:00Z", "2026-03-05T00:00:00Z");
      await sub("trialing", 5000, "month", "2026-04-20T00:00:00Z", null);
    });
    const res = await getMetrics(database.db, org, {
      startDate: "2026-01-01",
      endDate: "2026-04-30",
      interval: "month",
      timezone: "UTC",
      empty: false,
      metrics: ["monthly_recurring_revenue", "active_subscriptions", "trial_monthly_recurring_revenue", "churned_subscriptions"],
    });
    expect(res.periods.map((p) => [p.monthly_recurring_revenue, p.active_subscriptions, p.trial_monthly_recurring_revenue, p.churned_subscriptions])).toEqual([
      [1000 + 2000, 2, 0, 0],
      [1000 + 2000 + 1000, 3, 0, 0],
      [1000 + 1000, 2, 0, 1],
      [1000 + 1000, 2, 5000, 0],
    ]);
  }, 120_000);
});
