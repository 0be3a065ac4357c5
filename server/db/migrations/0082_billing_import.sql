-- Imports of a Stripe Billing business: runs and their plans, links from Stripe's ids to till's rows, and each
-- subscription's hand-over (till renews it from the end of its Stripe period; while pending, till's is incomplete).
CREATE TABLE "billing_import" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
  "processor" text NOT NULL,
  "dry_run" boolean NOT NULL,
  "status" text NOT NULL,
  "account_id" text,
  "livemode" boolean,
  "counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "blocked" integer DEFAULT 0 NOT NULL,
  "read" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "requests" jsonb DEFAULT '{"sent":0,"throttled":0,"limit":0}'::jsonb NOT NULL,
  "error" text,
  "locked_until" timestamp with time zone,
  "locked_by" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "billing_import_org_created_idx" ON "billing_import" ("organization_id", "created_at" DESC);
--> statement-breakpoint
CREATE UNIQUE INDEX "billing_import_running_uq" ON "billing_import" ("organization_id")
  WHERE "status" IN ('queued', 'reading', 'importing', 'moving', 'undoing');
--> statement-breakpoint
CREATE TABLE "billing_import_item" (
  "import_id" uuid NOT NULL REFERENCES "billing_import"("id") ON DELETE cascade,
  "organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
  "position" integer NOT NULL,
  "kind" text NOT NULL,
  "source_id" text NOT NULL,
  "label" text NOT NULL,
  "action" text NOT NULL,
  "becomes" text,
  "till_id" uuid,
  "reason" text,
  PRIMARY KEY ("import_id", "kind", "source_id")
);
--> statement-breakpoint
CREATE INDEX "billing_import_item_position_idx" ON "billing_import_item" ("import_id", "position");
--> statement-breakpoint
CREATE TABLE "billing_import_link" (
  "organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
  "processor" text NOT NULL,
  "kind" text NOT NULL,
  "source_id" text NOT NULL,
  "till_id" uuid NOT NULL,
  "digest" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  PRIMARY KEY ("organization_id", "processor", "kind", "source_id")
);
--> statement-breakpoint
CREATE TABLE "subscription_handover" (
  "subscription_id" uuid PRIMARY KEY NOT NULL REFERENCES "subscription"("id") ON DELETE cascade,
  "organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
  "import_id" uuid NOT NULL REFERENCES "billing_import"("id") ON DELETE cascade,
  "processor" text NOT NULL,
  "source_subscription_id" text NOT NULL,
  "state" text NOT NULL,
  "source_period_end" timestamp with time zone NOT NULL,
  "detail" text,
  "attempts" integer DEFAULT 0 NOT NULL,
  "next_attempt_at" timestamp with time zone,
  "locked_until" timestamp with time zone,
  "locked_by" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "moved_at" timestamp with time zone,
  "handed_back_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_handover_source_uq" ON "subscription_handover" ("organization_id", "processor", "source_subscription_id")
  WHERE "state" IN ('pending', 'moved', 'handing_back');
--> statement-breakpoint
CREATE INDEX "subscription_handover_due_idx" ON "subscription_handover" ("next_attempt_at") WHERE "state" IN ('pending', 'handing_back');
--> statement-breakpoint
CREATE INDEX "subscription_handover_import_idx" ON "subscription_handover" ("import_id");
