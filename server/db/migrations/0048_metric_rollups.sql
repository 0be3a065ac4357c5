-- Fast metrics: the metrics' sources summed per organization, UTC hour and currency, so a year by day reads
-- about 9,000 rows instead of every order (docs/metrics.md, "Rollups"). Kept like list_count (0032): append-only
-- delta rows written by statement-level triggers over the transition tables, in the causing transaction, so
-- concurrent writers never wait on a shared row; reads sum them, and billing/metrics/rollups.ts folds an
-- organization's unfolded rows into one per (hour, currency) on read past a threshold and in the worker's
-- hourly cleanup. `currency` is '' for sources without one (checkouts, subscription starts and ends) and for
-- costs whose event names none (they count in the organization's currency, as the scan does).
CREATE TABLE "metric_hour" (
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE CASCADE,
	"hour" timestamp with time zone NOT NULL,
	"currency" text NOT NULL,
	"folded" boolean DEFAULT false NOT NULL,
	"orders" integer DEFAULT 0 NOT NULL,
	"revenue" numeric DEFAULT 0 NOT NULL,
	"net_revenue" numeric DEFAULT 0 NOT NULL,
	"one_time" integer DEFAULT 0 NOT NULL,
	"one_time_revenue" numeric DEFAULT 0 NOT NULL,
	"one_time_net" numeric DEFAULT 0 NOT NULL,
	"new_revenue" numeric DEFAULT 0 NOT NULL,
	"new_net" numeric DEFAULT 0 NOT NULL,
	"renewed" integer DEFAULT 0 NOT NULL,
	"renewed_revenue" numeric DEFAULT 0 NOT NULL,
	"renewed_net" numeric DEFAULT 0 NOT NULL,
	"checkouts" integer DEFAULT 0 NOT NULL,
	"succeeded_checkouts" integer DEFAULT 0 NOT NULL,
	"new_subscriptions" integer DEFAULT 0 NOT NULL,
	"churned" integer DEFAULT 0 NOT NULL,
	"canceled" integer DEFAULT 0 NOT NULL,
	"canceled_customer_service" integer DEFAULT 0 NOT NULL,
	"canceled_low_quality" integer DEFAULT 0 NOT NULL,
	"canceled_missing_features" integer DEFAULT 0 NOT NULL,
	"canceled_switched_service" integer DEFAULT 0 NOT NULL,
	"canceled_too_complex" integer DEFAULT 0 NOT NULL,
	"canceled_too_expensive" integer DEFAULT 0 NOT NULL,
	"canceled_unused" integer DEFAULT 0 NOT NULL,
	"canceled_other" integer DEFAULT 0 NOT NULL,
	"costs" numeric DEFAULT 0 NOT NULL,
	"active" integer DEFAULT 0 NOT NULL,
	"committed" integer DEFAULT 0 NOT NULL,
	"trialing" integer DEFAULT 0 NOT NULL,
	"mrr" numeric DEFAULT 0 NOT NULL,
	"committed_mrr" numeric DEFAULT 0 NOT NULL,
	"trial_mrr" numeric DEFAULT 0 NOT NULL,
	"trial_committed_mrr" numeric DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "metric_hour_org_hour_idx" ON "metric_hour" USING btree ("organization_id","hour");
--> statement-breakpoint
CREATE INDEX "metric_hour_unfolded_idx" ON "metric_hour" USING btree ("organization_id") WHERE NOT "folded";
--> statement-breakpoint
-- the customers with events per UTC hour (active_user_by_event is a distinct count: not a sum of hours);
-- duplicates are allowed (append-only) and removed by the fold
CREATE TABLE "metric_event_user_hour" (
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE CASCADE,
	"hour" timestamp with time zone NOT NULL,
	"user_key" text NOT NULL,
	"folded" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX "metric_event_user_hour_org_hour_idx" ON "metric_event_user_hour" USING btree ("organization_id","hour","user_key");
--> statement-breakpoint
CREATE INDEX "metric_event_user_hour_unfolded_idx" ON "metric_event_user_hour" USING btree ("organization_id") WHERE NOT "folded";
--> statement-breakpoint
-- The rows a statement changed, signed: +1 for the new, -1 for the old (an UPDATE is both). Transition tables
-- are visible only to the trigger function's own queries, so each function EXECUTEs the text built here.
CREATE FUNCTION "till_metric_changed"(op text, new_src text, old_src text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE op
		WHEN 'INSERT' THEN format('SELECT 1 AS s, r.* FROM %s r', new_src)
		WHEN 'DELETE' THEN format('SELECT -1 AS s, r.* FROM %s r', old_src)
		ELSE format('SELECT 1 AS s, r.* FROM %s r UNION ALL SELECT -1 AS s, r.* FROM %s r', new_src, old_src) END
$$;
--> statement-breakpoint
-- paid orders (refunded ones too), as the scan counts them (billing/metrics/repository.ts orderBuckets)
CREATE FUNCTION "till_metric_orders_sql"(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format($q$
	INSERT INTO metric_hour (organization_id, hour, currency, orders, revenue, net_revenue, one_time, one_time_revenue,
		one_time_net, new_revenue, new_net, renewed, renewed_revenue, renewed_net)
	SELECT * FROM (
		SELECT x.organization_id, date_trunc('hour', x.created_at, 'UTC') AS hour, x.currency,
			sum(x.s) AS orders, sum(x.s * x.net_amount) AS revenue, sum(x.s * x.net) AS net_revenue,
			coalesce(sum(x.s) FILTER (WHERE x.billing_reason = 'purchase'), 0) AS one_time,
			coalesce(sum(x.s * x.net_amount) FILTER (WHERE x.billing_reason = 'purchase'), 0) AS a,
			coalesce(sum(x.s * x.net) FILTER (WHERE x.billing_reason = 'purchase'), 0) AS b,
			coalesce(sum(x.s * x.net_amount) FILTER (WHERE x.billing_reason = 'subscription_create'), 0) AS c,
			coalesce(sum(x.s * x.net) FILTER (WHERE x.billing_reason = 'subscription_create'), 0) AS d,
			coalesce(sum(x.s) FILTER (WHERE x.billing_reason = 'subscription_cycle'), 0) AS e,
			coalesce(sum(x.s * x.net_amount) FILTER (WHERE x.billing_reason = 'subscription_cycle'), 0) AS f,
			coalesce(sum(x.s * x.net) FILTER (WHERE x.billing_reason = 'subscription_cycle'), 0) AS g
		FROM (SELECT c.s, c.organization_id, c.created_at, c.currency, c.billing_reason, c.net_amount::numeric AS net_amount,
				(c.net_amount - c.refunded_amount - c.platform_fee_amount)::numeric AS net
			FROM (%s) c WHERE c.status IN ('paid', 'refunded', 'partially_refunded')) x
		GROUP BY 1, 2, 3) d
	WHERE (d.orders, d.revenue, d.net_revenue, d.one_time, d.a, d.b, d.c, d.d, d.e, d.f, d.g) <> (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)$q$, src)
$$;
--> statement-breakpoint
CREATE FUNCTION "till_metric_checkouts_sql"(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format($q$
	INSERT INTO metric_hour (organization_id, hour, currency, checkouts, succeeded_checkouts)
	SELECT * FROM (
		SELECT c.organization_id, date_trunc('hour', c.created_at, 'UTC') AS hour, '' AS currency, sum(c.s) AS n,
			coalesce(sum(c.s) FILTER (WHERE c.status = 'succeeded'), 0) AS succeeded
		FROM (%s) c GROUP BY 1, 2) d
	WHERE (d.n, d.succeeded) <> (0, 0)$q$, src)
$$;
--> statement-breakpoint
-- a subscription's start, its churn (ended after being paid for) and its cancellation (by reason)
CREATE FUNCTION "till_metric_subscriptions_sql"(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format($q$
	INSERT INTO metric_hour (organization_id, hour, currency, new_subscriptions, churned, canceled, canceled_customer_service,
		canceled_low_quality, canceled_missing_features, canceled_switched_service, canceled_too_complex,
		canceled_too_expensive, canceled_unused, canceled_other)
	SELECT * FROM (
		SELECT c.organization_id, date_trunc('hour', v.t, 'UTC') AS hour, '' AS currency,
			sum(c.s * v.started) AS started, sum(c.s * v.churned) AS churned, sum(c.s * v.canceled) AS canceled,
			coalesce(sum(c.s * v.canceled) FILTER (WHERE v.reason = 'customer_service'), 0),
			coalesce(sum(c.s * v.canceled) FILTER (WHERE v.reason = 'low_quality'), 0),
			coalesce(sum(c.s * v.canceled) FILTER (WHERE v.reason = 'missing_features'), 0),
			coalesce(sum(c.s * v.canceled) FILTER (WHERE v.reason = 'switched_service'), 0),
			coalesce(sum(c.s * v.canceled) FILTER (WHERE v.reason = 'too_complex'), 0),
			coalesce(sum(c.s * v.canceled) FILTER (WHERE v.reason = 'too_expensive'), 0),
			coalesce(sum(c.s * v.canceled) FILTER (WHERE v.reason = 'unused'), 0),
			coalesce(sum(c.s * v.canceled) FILTER (WHERE v.reason = 'other'), 0)
		FROM (%s) c CROSS JOIN LATERAL (VALUES
			(c.started_at, 1, 0, 0, NULL::text),
			(CASE WHEN c.started_at IS NOT NULL AND (c.trial_end IS NULL OR c.ended_at > c.trial_end) THEN c.ended_at END, 0, 1, 0, NULL),
			(c.canceled_at, 0, 0, 1, c.customer_cancellation_reason)) v(t, started, churned, canceled, reason)
		WHERE v.t IS NOT NULL GROUP BY 1, 2) d
	WHERE (d.started, d.churned, d.canceled) <> (0, 0, 0)$q$, src)
$$;
--> statement-breakpoint
-- the subscription history's deltas (0042), per hour: the levels' moves
CREATE FUNCTION "till_metric_levels_sql"(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format($q$
	INSERT INTO metric_hour (organization_id, hour, currency, active, committed, trialing, mrr, committed_mrr, trial_mrr, trial_committed_mrr)
	SELECT * FROM (
		SELECT c.organization_id, date_trunc('hour', c.at, 'UTC') AS hour, c.currency, sum(c.s * c.active) AS active,
			sum(c.s * c.committed) AS committed, sum(c.s * c.trialing) AS trialing, sum(c.s * c.mrr) AS mrr,
			sum(c.s * c.committed_mrr) AS committed_mrr, sum(c.s * c.trial_mrr) AS trial_mrr,
			sum(c.s * c.trial_committed_mrr) AS trial_committed_mrr
		FROM (%s) c GROUP BY 1, 2, 3) d
	WHERE (d.active, d.committed, d.trialing, d.mrr, d.committed_mrr, d.trial_mrr, d.trial_committed_mrr) <> (0, 0, 0, 0, 0, 0, 0)$q$, src)
$$;
--> statement-breakpoint
-- events' `_cost` (an amount that is a plain decimal; '' currency: the organization's)
CREATE FUNCTION "till_metric_costs_sql"(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format($q$
	INSERT INTO metric_hour (organization_id, hour, currency, costs)
	SELECT * FROM (
		SELECT c.organization_id, date_trunc('hour', c.timestamp, 'UTC') AS hour,
			lower(coalesce(c.metadata -> '_cost' ->> 'currency', '')) AS currency,
			sum(c.s * (c.metadata -> '_cost' ->> 'amount')::numeric) AS costs
		FROM (%s) c WHERE c.metadata -> '_cost' ->> 'amount' ~ '^-?[0-9]{1,30}(\.[0-9]{1,30})?$'
		GROUP BY 1, 2, 3) d
	WHERE d.costs <> 0$q$, src)
$$;
--> statement-breakpoint
CREATE FUNCTION "till_metric_users_sql"(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format($q$
	INSERT INTO metric_event_user_hour (organization_id, hour, user_key)
	SELECT DISTINCT c.organization_id, date_trunc('hour', c.timestamp, 'UTC'), coalesce(c.customer_id::text, c.external_customer_id)
	FROM (%s) c WHERE coalesce(c.customer_id::text, c.external_customer_id) IS NOT NULL$q$, src)
$$;
--> statement-breakpoint
CREATE FUNCTION "till_metric_hour_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
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
		END IF;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "order_metric_hour_ins" AFTER INSERT ON "order" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "order_metric_hour_upd" AFTER UPDATE ON "order" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "order_metric_hour_del" AFTER DELETE ON "order" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "checkout_metric_hour_ins" AFTER INSERT ON "checkout" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "checkout_metric_hour_upd" AFTER UPDATE ON "checkout" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "checkout_metric_hour_del" AFTER DELETE ON "checkout" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "subscription_metric_hour_ins" AFTER INSERT ON "subscription" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "subscription_metric_hour_upd" AFTER UPDATE ON "subscription" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "subscription_metric_hour_del" AFTER DELETE ON "subscription" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "metric_subscription_change_metric_hour_ins" AFTER INSERT ON "metric_subscription_change" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "metric_subscription_change_metric_hour_upd" AFTER UPDATE ON "metric_subscription_change" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "metric_subscription_change_metric_hour_del" AFTER DELETE ON "metric_subscription_change" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "event_metric_hour_ins" AFTER INSERT ON "event" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
CREATE TRIGGER "event_metric_hour_del" AFTER DELETE ON "event" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();
--> statement-breakpoint
-- TRUNCATE has no transition table: the rollups of a truncated source are rebuilt from what is left
CREATE FUNCTION "till_metric_hour_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM metric_hour;
	DELETE FROM metric_event_user_hour;
	EXECUTE till_metric_orders_sql('SELECT 1 AS s, r.* FROM "order" r');
	EXECUTE till_metric_checkouts_sql('SELECT 1 AS s, r.* FROM checkout r');
	EXECUTE till_metric_subscriptions_sql('SELECT 1 AS s, r.* FROM subscription r');
	EXECUTE till_metric_levels_sql('SELECT 1 AS s, r.* FROM metric_subscription_change r');
	EXECUTE till_metric_costs_sql('SELECT 1 AS s, r.* FROM event r');
	EXECUTE till_metric_users_sql('SELECT 1 AS s, r.* FROM event r');
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "order_metric_hour_trunc" AFTER TRUNCATE ON "order" FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_truncate();
--> statement-breakpoint
CREATE TRIGGER "checkout_metric_hour_trunc" AFTER TRUNCATE ON "checkout" FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_truncate();
--> statement-breakpoint
CREATE TRIGGER "subscription_metric_hour_trunc" AFTER TRUNCATE ON "subscription" FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_truncate();
--> statement-breakpoint
CREATE TRIGGER "metric_subscription_change_metric_hour_trunc" AFTER TRUNCATE ON "metric_subscription_change" FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_truncate();
--> statement-breakpoint
CREATE TRIGGER "event_metric_hour_trunc" AFTER TRUNCATE ON "event" FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_truncate();
--> statement-breakpoint
-- the backfill: what exists now (the triggers above hold each table's lock until this migration commits); the
-- first read (or the worker) folds it
DO $$
BEGIN
	EXECUTE till_metric_orders_sql('SELECT 1 AS s, r.* FROM "order" r');
	EXECUTE till_metric_checkouts_sql('SELECT 1 AS s, r.* FROM checkout r');
	EXECUTE till_metric_subscriptions_sql('SELECT 1 AS s, r.* FROM subscription r');
	EXECUTE till_metric_levels_sql('SELECT 1 AS s, r.* FROM metric_subscription_change r');
	EXECUTE till_metric_costs_sql('SELECT 1 AS s, r.* FROM event r');
	EXECUTE till_metric_users_sql('SELECT 1 AS s, r.* FROM event r');
END $$;
