-- Stripe's events processed by the worker: each recorded event is taken through the outbox and
-- leased like a delivery; disputes (Polar's Dispute) from Stripe's charge.dispute.* events; one refund per
-- processor refund id (a refund made in Stripe's dashboard is recorded once).
ALTER TABLE "stripe_event" ADD COLUMN "object_id" text;
--> statement-breakpoint
ALTER TABLE "stripe_event" ADD COLUMN "payload" jsonb;
--> statement-breakpoint
ALTER TABLE "stripe_event" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "stripe_event" ADD COLUMN "next_attempt_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "stripe_event" ADD COLUMN "locked_until" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "stripe_event" ADD COLUMN "locked_by" text;
--> statement-breakpoint
ALTER TABLE "stripe_event" ADD COLUMN "processed_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "stripe_event" ADD COLUMN "outcome" text;
--> statement-breakpoint
ALTER TABLE "stripe_event" ADD COLUMN "error" text;
--> statement-breakpoint
CREATE INDEX "stripe_event_due_idx" ON "stripe_event" USING btree ("next_attempt_at") WHERE "processed_at" IS NULL AND "next_attempt_at" IS NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX "refund_org_processor_uq" ON "refund" USING btree ("organization_id", "processor_refund_id") WHERE "processor_refund_id" IS NOT NULL;
--> statement-breakpoint
CREATE TABLE "dispute" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
	"order_id" uuid NOT NULL REFERENCES "order"("id") ON DELETE cascade,
	"payment_id" uuid NOT NULL REFERENCES "payment"("id") ON DELETE cascade,
	"customer_id" uuid REFERENCES "customer"("id") ON DELETE set null,
	"status" text NOT NULL,
	"amount" integer NOT NULL,
	"tax_amount" integer NOT NULL,
	"currency" text NOT NULL,
	"reason" text,
	"evidence_due_by" timestamp with time zone,
	"processor" text NOT NULL,
	"processor_dispute_id" text NOT NULL,
	"charge_id" text NOT NULL,
	"settled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "dispute_org_processor_uq" ON "dispute" USING btree ("organization_id", "processor_dispute_id");
--> statement-breakpoint
CREATE INDEX "dispute_org_created_idx" ON "dispute" USING btree ("organization_id", "created_at");
--> statement-breakpoint
CREATE INDEX "dispute_order_idx" ON "dispute" USING btree ("order_id");
