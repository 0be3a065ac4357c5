-- Usage events range-partitioned by the month of their `timestamp`: old months are dropped whole
-- (TILL_EVENT_RETENTION) and each month's indexes stay the size of a month. A unique index on a partitioned table
-- must include the partition key, so the deduplication by external_id moves to a table of its own,
-- `event_external_id`, written in the same statement as the events (server/billing/events/rollups.ts). The primary
-- key becomes (id, timestamp); no table references event ids. Months are created ahead by the worker
-- (`till_event_partition`); events outside every month land in `event_default` and move to their month when it is
-- created. This migration copies the table in one transaction: docs/scaling.md says how to do it on a large live
-- database without holding the ingest that long.
CREATE TABLE "event_external_id" (
	"organization_id" uuid NOT NULL,
	"external_id" text NOT NULL,
	CONSTRAINT "event_external_id_pkey" PRIMARY KEY ("organization_id","external_id")
);--> statement-breakpoint
INSERT INTO "event_external_id" SELECT "organization_id", "external_id" FROM "event" WHERE "external_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "event" RENAME TO "event_unpartitioned";--> statement-breakpoint
ALTER TABLE "event_unpartitioned" DROP CONSTRAINT "event_pkey";--> statement-breakpoint
DROP INDEX "event_org_external_uq";--> statement-breakpoint
DROP INDEX "event_org_customer_ts_idx";--> statement-breakpoint
DROP INDEX "event_org_ext_customer_ts_idx";--> statement-breakpoint
DROP INDEX "event_org_name_ts_idx";--> statement-breakpoint
DROP INDEX "event_org_ts_idx";--> statement-breakpoint
DROP INDEX "event_parent_idx";--> statement-breakpoint
CREATE TABLE "event" (LIKE "event_unpartitioned" INCLUDING DEFAULTS, CONSTRAINT "event_pkey" PRIMARY KEY ("id","timestamp")) PARTITION BY RANGE ("timestamp");--> statement-breakpoint
CREATE TABLE "event_default" PARTITION OF "event" DEFAULT;--> statement-breakpoint
CREATE INDEX "event_org_external_idx" ON "event" USING btree ("organization_id","external_id") WHERE "external_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "event_org_customer_ts_idx" ON "event" USING btree ("organization_id","customer_id","timestamp") WHERE "customer_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "event_org_ext_customer_ts_idx" ON "event" USING btree ("organization_id","external_customer_id","timestamp") WHERE "external_customer_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "event_org_name_ts_idx" ON "event" USING btree ("organization_id","name","timestamp");--> statement-breakpoint
CREATE INDEX "event_org_ts_idx" ON "event" USING btree ("organization_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "event_parent_idx" ON "event" USING btree ("parent_id") WHERE "parent_id" IS NOT NULL;--> statement-breakpoint
-- The month holding `month` (UTC) as a partition of its own, its events moved out of the default partition first.
CREATE FUNCTION "till_event_partition"(month timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	lo timestamptz := date_trunc('month', month AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
	hi timestamptz := (date_trunc('month', month AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
	part text := 'event_y' || to_char(lo AT TIME ZONE 'UTC', 'YYYY') || 'm' || to_char(lo AT TIME ZONE 'UTC', 'MM');
BEGIN
	IF to_regclass(part) IS NOT NULL THEN
		RETURN part;
	END IF;
	EXECUTE format('CREATE TABLE %I (LIKE event INCLUDING DEFAULTS)', part);
	-- straight between partitions: the statement triggers on "event" (counts, metric hours) do not fire
	EXECUTE format('WITH moved AS (DELETE FROM event_default WHERE "timestamp" >= %L AND "timestamp" < %L RETURNING *) INSERT INTO %I SELECT * FROM moved', lo, hi, part);
	EXECUTE format('ALTER TABLE event ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
	RETURN part;
END $$;--> statement-breakpoint
-- A month for every month the events name today, and the next three.
DO $$
DECLARE
	m timestamptz;
BEGIN
	FOR m IN
		SELECT DISTINCT date_trunc('month', "timestamp" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' FROM "event_unpartitioned"
		UNION
		SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => g)) AT TIME ZONE 'UTC' FROM generate_series(0, 3) g
	LOOP
		PERFORM till_event_partition(m);
	END LOOP;
END $$;--> statement-breakpoint
INSERT INTO "event" SELECT * FROM "event_unpartitioned";--> statement-breakpoint
DROP TABLE "event_unpartitioned";--> statement-breakpoint
CREATE TRIGGER "event_list_count_ins" AFTER INSERT ON "event" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_rows();--> statement-breakpoint
CREATE TRIGGER "event_list_count_del" AFTER DELETE ON "event" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_rows();--> statement-breakpoint
CREATE TRIGGER "event_list_count_trunc" AFTER TRUNCATE ON "event" FOR EACH STATEMENT EXECUTE FUNCTION list_count_truncate();--> statement-breakpoint
CREATE TRIGGER "event_organization_exists_ins" AFTER INSERT ON "event" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION event_organization_exists();--> statement-breakpoint
CREATE TRIGGER "event_organization_exists_upd" AFTER UPDATE ON "event" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION event_organization_exists();--> statement-breakpoint
CREATE TRIGGER "event_metric_hour_ins" AFTER INSERT ON "event" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();--> statement-breakpoint
CREATE TRIGGER "event_metric_hour_del" AFTER DELETE ON "event" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_rows();--> statement-breakpoint
CREATE TRIGGER "event_metric_hour_trunc" AFTER TRUNCATE ON "event" FOR EACH STATEMENT EXECUTE FUNCTION till_metric_hour_truncate();--> statement-breakpoint
CREATE OR REPLACE FUNCTION "organization_delete_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM event WHERE organization_id = OLD.id;
	DELETE FROM event_external_id WHERE organization_id = OLD.id;
	RETURN OLD;
END $$;
