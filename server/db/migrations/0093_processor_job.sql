-- Calls to the payment processor that an outbox event causes (an open bank transfer canceled, a wallet's auto-recharge
-- charged): the fan-out's transaction records one row per call owed, and a leased job makes the call outside of any
-- transaction, then records its outcome in a short one (server/tasks/processor-jobs.ts). One row per kind and cause.
CREATE TABLE "processor_job" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"cause" text NOT NULL,
	"data" jsonb,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"locked_by" text,
	"started_at" timestamp with time zone,
	"outcome" text,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "processor_job_status" CHECK ("status" IN ('pending', 'done'))
);
--> statement-breakpoint
ALTER TABLE "processor_job" ADD CONSTRAINT "processor_job_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "processor_job_cause_key" ON "processor_job" USING btree ("organization_id","kind","cause");--> statement-breakpoint
CREATE INDEX "processor_job_due_idx" ON "processor_job" USING btree ("kind","next_attempt_at") WHERE "processor_job"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "processor_job_subject_idx" ON "processor_job" USING btree ("organization_id","subject") WHERE "processor_job"."status" = 'pending';
