-- How many times ingest has changed each (meter, customer) pair's rollups: a read of a customer's usage that saw
-- the same count (and the same rollup version of the meter) reads the same quantity, so it can be reused.
CREATE TABLE "meter_usage_stamp" (
  "meter_id" uuid NOT NULL REFERENCES "meter"("id") ON DELETE cascade,
  "customer_id" text NOT NULL,
  "external_customer_id" text NOT NULL,
  "writes" bigint DEFAULT 0 NOT NULL,
  CONSTRAINT "meter_usage_stamp_pk" PRIMARY KEY ("meter_id", "customer_id", "external_customer_id")
);
--> statement-breakpoint
CREATE INDEX "meter_usage_stamp_external_idx" ON "meter_usage_stamp" ("meter_id", "external_customer_id");
