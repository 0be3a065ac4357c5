-- The unfiltered lists' total_count (orders, customers, subscriptions, events) read from a maintained
-- count instead of count(*) over the organization's rows. The count is append-only delta rows: every INSERT,
-- DELETE (and, for customers, UPDATE: a soft delete leaves the list) statement adds one row per organization it
-- touched, from a statement-level trigger over its transition tables, in the causing transaction. Nothing is
-- updated in place, so concurrent writers never wait on a counter row; the total is sum(n), and compaction
-- (list-counts.ts: on read past a threshold, and in the worker's hourly cleanup) folds the rows it can lock
-- (SKIP LOCKED) into one.
CREATE TABLE "list_count" (
	"organization_id" uuid NOT NULL,
	"list" text NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "list_count_org_list_idx" ON "list_count" USING btree ("organization_id","list");
--> statement-breakpoint
CREATE FUNCTION "list_count_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO list_count (organization_id, list, n)
		SELECT organization_id, TG_TABLE_NAME, count(*) FROM new_rows GROUP BY organization_id;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO list_count (organization_id, list, n)
		SELECT organization_id, TG_TABLE_NAME, -count(*) FROM old_rows GROUP BY organization_id;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
-- customers: the list holds the rows without deleted_at (a soft delete, or a restore, moves a row out or in)
CREATE FUNCTION "list_count_customers"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO list_count (organization_id, list, n)
		SELECT organization_id, 'customer', count(*) FROM new_rows WHERE deleted_at IS NULL GROUP BY organization_id;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO list_count (organization_id, list, n)
		SELECT organization_id, 'customer', -count(*) FROM old_rows WHERE deleted_at IS NULL GROUP BY organization_id;
	ELSE
		INSERT INTO list_count (organization_id, list, n)
		SELECT organization_id, 'customer', sum(d) FROM (
			SELECT organization_id, 1 AS d FROM new_rows WHERE deleted_at IS NULL
			UNION ALL
			SELECT organization_id, -1 AS d FROM old_rows WHERE deleted_at IS NULL
		) moved GROUP BY organization_id HAVING sum(d) <> 0;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "order_list_count_ins" AFTER INSERT ON "order" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_rows();
--> statement-breakpoint
CREATE TRIGGER "order_list_count_del" AFTER DELETE ON "order" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_rows();
--> statement-breakpoint
CREATE TRIGGER "subscription_list_count_ins" AFTER INSERT ON "subscription" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_rows();
--> statement-breakpoint
CREATE TRIGGER "subscription_list_count_del" AFTER DELETE ON "subscription" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_rows();
--> statement-breakpoint
CREATE TRIGGER "event_list_count_ins" AFTER INSERT ON "event" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_rows();
--> statement-breakpoint
CREATE TRIGGER "event_list_count_del" AFTER DELETE ON "event" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_rows();
--> statement-breakpoint
CREATE TRIGGER "customer_list_count_ins" AFTER INSERT ON "customer" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_customers();
--> statement-breakpoint
CREATE TRIGGER "customer_list_count_upd" AFTER UPDATE ON "customer" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_customers();
--> statement-breakpoint
CREATE TRIGGER "customer_list_count_del" AFTER DELETE ON "customer" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_count_customers();
--> statement-breakpoint
-- TRUNCATE has no transition table: it empties the table, so it empties that list's counts
CREATE FUNCTION "list_count_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM list_count WHERE list = TG_TABLE_NAME;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "order_list_count_trunc" AFTER TRUNCATE ON "order" FOR EACH STATEMENT EXECUTE FUNCTION list_count_truncate();
--> statement-breakpoint
CREATE TRIGGER "subscription_list_count_trunc" AFTER TRUNCATE ON "subscription" FOR EACH STATEMENT EXECUTE FUNCTION list_count_truncate();
--> statement-breakpoint
CREATE TRIGGER "event_list_count_trunc" AFTER TRUNCATE ON "event" FOR EACH STATEMENT EXECUTE FUNCTION list_count_truncate();
--> statement-breakpoint
CREATE TRIGGER "customer_list_count_trunc" AFTER TRUNCATE ON "customer" FOR EACH STATEMENT EXECUTE FUNCTION list_count_truncate();
--> statement-breakpoint
-- the backfill: rows that exist now (the triggers above hold each table's lock until this migration commits)
INSERT INTO "list_count" ("organization_id", "list", "n")
SELECT "organization_id", 'order', count(*) FROM "order" GROUP BY "organization_id";
--> statement-breakpoint
INSERT INTO "list_count" ("organization_id", "list", "n")
SELECT "organization_id", 'subscription', count(*) FROM "subscription" GROUP BY "organization_id";
--> statement-breakpoint
INSERT INTO "list_count" ("organization_id", "list", "n")
SELECT "organization_id", 'event', count(*) FROM "event" GROUP BY "organization_id";
--> statement-breakpoint
INSERT INTO "list_count" ("organization_id", "list", "n")
SELECT "organization_id", 'customer', count(*) FROM "customer" WHERE "deleted_at" IS NULL GROUP BY "organization_id";
--> statement-breakpoint
-- the lists' default orders, whole, in an index: the first page reads 10 entries instead of sorting the
-- organization's rows, and a deep page skips its offset in the index alone (an index-only scan of the ids; the
-- repositories' deferred join): events by timestamp then id (both descending), subscriptions by started_at
-- (newest first, nulls last) then id, orders and live customers by created_at (newest first) then id
CREATE INDEX "event_org_ts_idx" ON "event" USING btree ("organization_id","timestamp","id");
--> statement-breakpoint
DROP INDEX "order_org_created_idx";
--> statement-breakpoint
CREATE INDEX "order_org_created_idx" ON "order" USING btree ("organization_id","created_at" DESC,"id");
--> statement-breakpoint
CREATE INDEX "customer_org_live_created_idx" ON "customer" USING btree ("organization_id","created_at" DESC,"id") WHERE "deleted_at" IS NULL;
--> statement-breakpoint
CREATE INDEX "subscription_org_started_idx" ON "subscription" USING btree ("organization_id","started_at" DESC NULLS LAST,"id");
--> statement-breakpoint
-- child_count of listed events (it read every event of the organization)
CREATE INDEX "event_parent_idx" ON "event" USING btree ("parent_id") WHERE "parent_id" IS NOT NULL;
