-- The event table's INSERT trigger (0048, 0060) ran its two rollup statements (costs, active users) with EXECUTE,
-- so PostgreSQL parsed and planned both again for every INSERT statement on "event": most of the database's time
-- for a one-event ingest (3,000 one-row INSERTs: 0.87 s with them, 0.26 s with the statements written out). As
-- 0069 did for order, checkout, subscription and metric_subscription_change, the INSERT now has a trigger function
-- of its own, `till_metric_event_ins`, whose body is the same statements written out (generated from the same
-- `till_metric_*_sql` functions), which PL/pgSQL plans once per session. `till_metric_static_triggers()` writes it
-- too, so a later migration that changes one of those functions still runs only that.
CREATE OR REPLACE FUNCTION "till_metric_static_triggers"() RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
	t record;
	op record;
	fname text;
	src text;
	body text;
BEGIN
	FOR t IN SELECT * FROM (VALUES
		('order', 'till_metric_orders_sql', 'till_metric_product_orders_sql'),
		('checkout', 'till_metric_checkouts_sql', 'till_metric_product_checkouts_sql'),
		('subscription', 'till_metric_subscriptions_sql', 'till_metric_product_subscriptions_sql'),
		('metric_subscription_change', 'till_metric_levels_sql', 'till_metric_product_levels_sql')) AS v(tbl, plain, by_product)
	LOOP
		FOR op IN SELECT * FROM (VALUES ('INSERT', 'ins', 'new_rows'), ('UPDATE', 'upd', 'new_rows'), ('DELETE', 'del', 'old_rows')) AS o(name, suffix, probe)
		LOOP
			fname := format('till_metric_%s_%s', t.tbl, op.suffix);
			src := till_metric_changed(op.name, 'new_rows', 'old_rows');
			EXECUTE format('SELECT %I(%L) || %L || %I(%L)', t.plain, src, E';\n\t', t.by_product, src) INTO body;
			EXECUTE format($f$CREATE OR REPLACE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS %L$f$, fname,
				format(E'BEGIN\n\tIF NOT EXISTS (SELECT 1 FROM %s) THEN RETURN NULL; END IF;\n\t%s;\n\tRETURN NULL;\nEND', op.probe, body));
			EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER %s ON %I REFERENCING %s FOR EACH STATEMENT EXECUTE FUNCTION %I()',
				format('%s_metric_hour_%s', t.tbl, op.suffix), op.name, t.tbl,
				CASE op.name WHEN 'INSERT' THEN 'NEW TABLE AS new_rows' WHEN 'DELETE' THEN 'OLD TABLE AS old_rows'
					ELSE 'OLD TABLE AS old_rows NEW TABLE AS new_rows' END, fname);
		END LOOP;
	END LOOP;
	-- the event table's INSERT (its DELETE and TRUNCATE keep 0060's functions: the DELETE path is more than these two)
	src := till_metric_changed('INSERT', 'new_rows', 'old_rows');
	body := till_metric_costs_sql(src) || E';\n\t' || till_metric_users_sql(src);
	EXECUTE format($f$CREATE OR REPLACE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS %L$f$, 'till_metric_event_ins',
		format(E'BEGIN\n\tIF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;\n\t%s;\n\tRETURN NULL;\nEND', body));
	CREATE OR REPLACE TRIGGER "event_metric_hour_ins" AFTER INSERT ON "event" REFERENCING NEW TABLE AS new_rows
		FOR EACH STATEMENT EXECUTE FUNCTION "till_metric_event_ins"();
END $fn$;
--> statement-breakpoint
SELECT till_metric_static_triggers();
