-- Tiers on metered prices (till's own `unit_tiers`), and usage alerts with their crossings.
ALTER TABLE "product_price" ADD COLUMN "unit_tiers" jsonb;
--> statement-breakpoint
CREATE TABLE "usage_alert" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
	"meter_id" uuid NOT NULL REFERENCES "meter"("id") ON DELETE cascade,
	"customer_id" uuid REFERENCES "customer"("id") ON DELETE cascade,
	"kind" text NOT NULL,
	"threshold" numeric NOT NULL,
	"notify_customer" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "usage_alert_org_meter_idx" ON "usage_alert" USING btree ("organization_id", "meter_id");
--> statement-breakpoint
CREATE TABLE "usage_alert_crossing" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
	"alert_id" uuid NOT NULL REFERENCES "usage_alert"("id") ON DELETE cascade,
	"customer_id" uuid NOT NULL REFERENCES "customer"("id") ON DELETE cascade,
	"subscription_id" uuid,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"measured" jsonb NOT NULL,
	"crossed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "usage_alert_crossing_key" ON "usage_alert_crossing" USING btree ("alert_id", "customer_id", "period_start");
