CREATE TABLE "customer_email" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"outbox_id" uuid NOT NULL,
	"type" text NOT NULL,
	"recipient" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"locked_by" text,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"failed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "mail" text;--> statement-breakpoint
ALTER TABLE "customer_email" ADD CONSTRAINT "customer_email_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_email_key" ON "customer_email" USING btree ("outbox_id","type","recipient");--> statement-breakpoint
CREATE INDEX "customer_email_due_idx" ON "customer_email" USING btree ("next_attempt_at") WHERE "customer_email"."sent_at" IS NULL AND "customer_email"."failed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "customer_email_org_idx" ON "customer_email" USING btree ("organization_id","created_at");