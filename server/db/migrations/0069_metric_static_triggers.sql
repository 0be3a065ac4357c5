-- Faster confirms (bench:checkout): the rollup triggers of order, checkout, subscription and metric_subscription_change
-- (0048, 0061) ran their statements with EXECUTE, so PostgreSQL parsed and planned two INSERT … SELECT … GROUP BY
-- statements on every INSERT or UPDATE statement of those tables, and did so even when the statement changed no
-- row (a one-time purchase's empty subscription insert): about 3 ms of the primary's time per confirm. Each
-- (table, operation) now has its own trigger function whose body is the same statements written out — generated
-- here from the same `till_metric_*_sql` functions, so the SQL is still written once — which PL/pgSQL plans once
-- per session and keeps; and it returns at once when the statement changed no row.
-- A later migration that changes one of the `till_metric_*_sql` functions runs `SELECT till_metric_static_triggers()`
-- to write the bodies again. The event table keeps 0060's triggers (its DELETE path is more than the two statements).
CREATE FUNCTION "till_metric_static_triggers"() RETURNS void LANGUAGE plpgsql AS $fn$
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
END $fn$;
--> statement-breakpoint
SELECT till_metric_static_triggers();
