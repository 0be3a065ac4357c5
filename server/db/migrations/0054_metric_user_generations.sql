-- Fast metrics: active_user_by_event (a distinct count of customers per period) without counting every
-- customer-hour of the range on each read (docs/metrics.md, "Active users"). A read counts the folded rows of
-- metric_event_user_hour once per query shape and keeps the counts in memory, valid while the organization's
-- generation here is unchanged; the unfolded rows are added to them on each read (those whose customer has no
-- folded row in the same period). Every change to an organization's folded rows bumps its generation in the same
-- statement: the fold (billing/metrics/rollups.ts), an event's delete, a truncate. No foreign key: an
-- organization's delete cascades to its events, whose trigger writes here after the organization is gone.
CREATE TABLE "metric_user_generation" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"generation" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- the probe "has this customer a folded row in this period" of each unfolded row
CREATE INDEX "metric_event_user_hour_folded_user_idx" ON "metric_event_user_hour" USING btree ("organization_id","user_key","hour") WHERE "folded";
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "till_metric_hour_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	src text := till_metric_changed(TG_OP, 'new_rows', 'old_rows');
BEGIN
	IF TG_TABLE_NAME = 'order' THEN
		EXECUTE till_metric_orders_sql(src);
	ELSIF TG_TABLE_NAME = 'checkout' THEN
		EXECUTE till_metric_checkouts_sql(src);
	ELSIF TG_TABLE_NAME = 'subscription' THEN
		EXECUTE till_metric_subscriptions_sql(src);
	ELSIF TG_TABLE_NAME = 'metric_subscription_change' THEN
		EXECUTE till_metric_levels_sql(src);
	ELSIF TG_TABLE_NAME = 'event' THEN
		EXECUTE till_metric_costs_sql(src);
		IF TG_OP = 'INSERT' THEN
			EXECUTE till_metric_users_sql(src);
		ELSE
			-- a customer's hour leaves once none of its events is left in it
			DELETE FROM metric_event_user_hour u USING (
				SELECT DISTINCT r.organization_id, date_trunc('hour', r.timestamp, 'UTC') AS hour,
					coalesce(r.customer_id::text, r.external_customer_id) AS user_key FROM old_rows r) d
			WHERE u.organization_id = d.organization_id AND u.hour = d.hour AND u.user_key = d.user_key
				AND NOT EXISTS (SELECT 1 FROM event e WHERE e.organization_id = d.organization_id
					AND e.timestamp >= d.hour AND e.timestamp < d.hour + interval '1 hour'
					AND coalesce(e.customer_id::text, e.external_customer_id) = d.user_key);
			-- the folded rows may have changed: the counts read from them are stale
			INSERT INTO metric_user_generation (organization_id, generation)
			SELECT DISTINCT r.organization_id, 1 FROM old_rows r
			ON CONFLICT (organization_id) DO UPDATE SET generation = metric_user_generation.generation + 1;
		END IF;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "till_metric_hour_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM metric_hour;
	DELETE FROM metric_event_user_hour;
	-- only an organization that was folded has folded rows, and a generation
	UPDATE metric_user_generation SET generation = generation + 1;
	EXECUTE till_metric_orders_sql('SELECT 1 AS s, r.* FROM "order" r');
	EXECUTE till_metric_checkouts_sql('SELECT 1 AS s, r.* FROM checkout r');
	EXECUTE till_metric_subscriptions_sql('SELECT 1 AS s, r.* FROM subscription r');
	EXECUTE till_metric_levels_sql('SELECT 1 AS s, r.* FROM metric_subscription_change r');
	EXECUTE till_metric_costs_sql('SELECT 1 AS s, r.* FROM event r');
	EXECUTE till_metric_users_sql('SELECT 1 AS s, r.* FROM event r');
	RETURN NULL;
END $$;
