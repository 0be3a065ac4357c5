-- How many statements have changed each (meter, customer) pair's rollups: a read of a customer's usage that saw
-- the same count (and the same rollup version of the meter) reads the same quantity, so it can be reused. Kept by
-- triggers, so that every writer of rollups counts — the previous release's processes during a rolling upgrade too.
CREATE TABLE "meter_usage_stamp" (
  "meter_id" uuid NOT NULL REFERENCES "meter"("id") ON DELETE cascade,
  "customer_id" text NOT NULL,
  "external_customer_id" text NOT NULL,
  "writes" bigint DEFAULT 0 NOT NULL,
  CONSTRAINT "meter_usage_stamp_pk" PRIMARY KEY ("meter_id", "customer_id", "external_customer_id")
);
--> statement-breakpoint
CREATE INDEX "meter_usage_stamp_external_idx" ON "meter_usage_stamp" ("meter_id", "external_customer_id");
--> statement-breakpoint
-- in the pairs' order, as the rollups are upserted in theirs: concurrent batches wait instead of deadlocking
CREATE FUNCTION "meter_usage_stamp_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO meter_usage_stamp AS u (meter_id, customer_id, external_customer_id, writes)
    SELECT DISTINCT meter_id, customer_id, external_customer_id, 1::bigint FROM changed_rows ORDER BY 1, 2, 3
    ON CONFLICT (meter_id, customer_id, external_customer_id) DO UPDATE SET writes = u.writes + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "meter_rollup_stamp_ins" AFTER INSERT ON "meter_rollup" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION meter_usage_stamp_rows();
--> statement-breakpoint
CREATE TRIGGER "meter_rollup_stamp_upd" AFTER UPDATE ON "meter_rollup" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION meter_usage_stamp_rows();
