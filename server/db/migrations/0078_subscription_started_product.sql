-- A subscription counts as new under the product it started on, not under the one it has now: filtered by
-- product, a subscription that changed plan was new under its current product (with no MRR there yet) and never
-- under its first. `started_product_id` keeps the first product once the product changes (NULL while it never
-- did: the current one is the first), set by a row trigger that runs only when product_id changes; the rollup of
-- subscription starts by product (0061) and the scan (billing/metrics/repository.ts) read it. Churn and
-- cancellations stay under the product the subscription had then (its current one); levels move between
-- products with metric_subscription_change (0042).
ALTER TABLE "subscription" ADD COLUMN "started_product_id" uuid;
--> statement-breakpoint
CREATE FUNCTION "till_subscription_started_product"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.started_product_id := OLD.product_id;
	RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "subscription_started_product" BEFORE UPDATE OF "product_id" ON "subscription" FOR EACH ROW
	WHEN (OLD.product_id IS DISTINCT FROM NEW.product_id AND OLD.started_product_id IS NULL AND NEW.started_product_id IS NULL)
	EXECUTE FUNCTION till_subscription_started_product();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "till_metric_product_subscriptions_sql"(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format($q$
	INSERT INTO metric_product_hour (organization_id, product_id, recurring, hour, currency, new_subscriptions, churned, canceled,
		canceled_customer_service, canceled_low_quality, canceled_missing_features, canceled_switched_service, canceled_too_complex,
		canceled_too_expensive, canceled_unused, canceled_other)
	SELECT * FROM (
		SELECT c.organization_id, v.product_id, true, date_trunc('hour', v.t, 'UTC') AS hour, '' AS currency,
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
			(c.started_at, coalesce(c.started_product_id, c.product_id), 1, 0, 0, NULL::text),
			(CASE WHEN c.started_at IS NOT NULL AND (c.trial_end IS NULL OR c.ended_at > c.trial_end) THEN c.ended_at END, c.product_id, 0, 1, 0, NULL),
			(c.canceled_at, c.product_id, 0, 0, 1, c.customer_cancellation_reason)) v(t, product_id, started, churned, canceled, reason)
		WHERE v.t IS NOT NULL GROUP BY 1, 2, 4) d
	WHERE (d.started, d.churned, d.canceled) <> (0, 0, 0)$q$, src)
$$;
--> statement-breakpoint
SELECT till_metric_static_triggers();
--> statement-breakpoint
-- the subscriptions that changed product already: their first product is the one their history started with;
-- the rollup triggers move their start from the current product to it (the update's new rows minus its old)
UPDATE "subscription" s SET "started_product_id" = f.product_id
	FROM (SELECT DISTINCT ON (c.subscription_id) c.subscription_id, c.product_id FROM "metric_subscription_change" c
		WHERE NOT c.scheduled ORDER BY c.subscription_id, c.at, c.id) f
	WHERE f.subscription_id = s.id AND f.product_id <> s.product_id;
