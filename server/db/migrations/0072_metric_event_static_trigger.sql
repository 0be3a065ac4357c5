-- The event table's INSERT trigger (0048, 0060) ran its two rollup statements (costs, active users) with EXECUTE,
-- so PostgreSQL parsed and planned both again for every INSERT statement on "event": most of the database's time
-- for a one-event ingest (3,000 one-row INSERTs: 0.87 s with them, 0.26 s with the statements written out). As
-- 0069 did for order, checkout, subscription and metric_subscription_change, the INSERT now has a trigger function
-- of its own, `till_metric_event_ins`, whose body is the same statements written out (generated from the same
-- `till_metric_*_sql` functions), which PL/pgSQL plans once per session. 0069's generator keeps its body under a
-- new name, and `till_metric_static_triggers()` now runs it and writes the event table's function too, so a later
-- migration that changes one of those functions still runs only that. The event table's DELETE and TRUNCATE keep
-- 0060's functions (the DELETE path is more than these two statements).
ALTER FUNCTION "till_metric_static_triggers"() RENAME TO "till_metric_static_table_triggers";
--> statement-breakpoint
CREATE FUNCTION "till_metric_static_triggers"() RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
	src text := till_metric_changed('INSERT', 'new_rows', 'old_rows');
	body text := till_metric_costs_sql(src) || E';\n\t' || till_metric_users_sql(src);
BEGIN
	PERFORM till_metric_static_table_triggers();
	EXECUTE format($f$CREATE OR REPLACE FUNCTION "till_metric_event_ins"() RETURNS trigger LANGUAGE plpgsql AS %L$f$,
		format(E'BEGIN\n\tIF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;\n\t%s;\n\tRETURN NULL;\nEND', body));
	CREATE OR REPLACE TRIGGER "event_metric_hour_ins" AFTER INSERT ON "event" REFERENCING NEW TABLE AS new_rows
		FOR EACH STATEMENT EXECUTE FUNCTION "till_metric_event_ins"();
END $fn$;
--> statement-breakpoint
SELECT till_metric_static_triggers();
