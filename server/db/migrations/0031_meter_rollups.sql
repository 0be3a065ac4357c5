CREATE TABLE "meter_rollup_state" (
	"meter_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"status" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"modified_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meter_rollup" (
	"meter_id" uuid NOT NULL,
	"customer_id" text NOT NULL,
	"external_customer_id" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"events" bigint NOT NULL,
	"total" numeric,
	"minimum" double precision,
	"maximum" double precision,
	CONSTRAINT "meter_rollup_meter_id_customer_id_external_customer_id_bucket_pk" PRIMARY KEY("meter_id","customer_id","external_customer_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "meter_rollup_value" (
	"meter_id" uuid NOT NULL,
	"customer_id" text NOT NULL,
	"external_customer_id" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"value" jsonb NOT NULL,
	CONSTRAINT "meter_rollup_value_meter_id_customer_id_external_customer_id_bucket_value_pk" PRIMARY KEY("meter_id","customer_id","external_customer_id","bucket","value")
);
--> statement-breakpoint
ALTER TABLE "meter_rollup_state" ADD CONSTRAINT "meter_rollup_state_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_rollup_state" ADD CONSTRAINT "meter_rollup_state_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_rollup" ADD CONSTRAINT "meter_rollup_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_rollup_value" ADD CONSTRAINT "meter_rollup_value_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "meter_rollup_state_building_idx" ON "meter_rollup_state" USING btree ("status") WHERE "meter_rollup_state"."status" = 'building';--> statement-breakpoint
CREATE INDEX "meter_rollup_external_idx" ON "meter_rollup" USING btree ("meter_id","external_customer_id","bucket");--> statement-breakpoint
CREATE INDEX "meter_rollup_value_external_idx" ON "meter_rollup_value" USING btree ("meter_id","external_customer_id","bucket");--> statement-breakpoint
-- every meter that exists now is built by the worker (archived ones are not kept)
INSERT INTO "meter_rollup_state" ("meter_id", "organization_id", "status")
SELECT "id", "organization_id", CASE WHEN "archived_at" IS NULL THEN 'building' ELSE 'stopped' END FROM "meter";
