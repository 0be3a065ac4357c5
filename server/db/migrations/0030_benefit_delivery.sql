CREATE TABLE "benefit_delivery" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"grant_id" uuid NOT NULL,
	"action" text NOT NULL,
	"outbox_id" uuid,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"locked_by" text,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "benefit_delivery_action" CHECK ("action" IN ('grant', 'revoke')),
	CONSTRAINT "benefit_delivery_status" CHECK ("status" IN ('pending', 'done', 'failed', 'superseded'))
);
--> statement-breakpoint
ALTER TABLE "benefit_delivery" ADD CONSTRAINT "benefit_delivery_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "benefit_delivery" ADD CONSTRAINT "benefit_delivery_grant_id_benefit_grant_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."benefit_grant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "benefit_delivery_cause_key" ON "benefit_delivery" USING btree ("outbox_id","grant_id","action");--> statement-breakpoint
CREATE INDEX "benefit_delivery_due_idx" ON "benefit_delivery" USING btree ("next_attempt_at") WHERE "benefit_delivery"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "benefit_delivery_grant_idx" ON "benefit_delivery" USING btree ("grant_id");--> statement-breakpoint
CREATE TABLE "customer_oauth_account" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"platform" text NOT NULL,
	"account_id" text NOT NULL,
	"account_username" text,
	"access_token" text NOT NULL,
	"refresh_token" text,
	"expires_at" timestamp with time zone,
	"scope" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	CONSTRAINT "customer_oauth_account_platform" CHECK ("platform" IN ('github', 'discord'))
);
--> statement-breakpoint
ALTER TABLE "customer_oauth_account" ADD CONSTRAINT "customer_oauth_account_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_oauth_account" ADD CONSTRAINT "customer_oauth_account_customer_id_customer_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customer"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_oauth_account_key" ON "customer_oauth_account" USING btree ("customer_id","platform");--> statement-breakpoint
CREATE INDEX "customer_oauth_account_org_idx" ON "customer_oauth_account" USING btree ("organization_id");--> statement-breakpoint
CREATE TABLE "customer_oauth_state" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"platform" text NOT NULL,
	"code_verifier" text NOT NULL,
	"return_to" text,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "customer_oauth_state" ADD CONSTRAINT "customer_oauth_state_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_oauth_state" ADD CONSTRAINT "customer_oauth_state_customer_id_customer_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customer"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "benefit_integration" (
	"organization_id" uuid NOT NULL,
	"platform" text NOT NULL,
	"credentials" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	CONSTRAINT "benefit_integration_organization_id_platform_pk" PRIMARY KEY("organization_id","platform"),
	CONSTRAINT "benefit_integration_platform" CHECK ("platform" IN ('github', 'discord'))
);
--> statement-breakpoint
ALTER TABLE "benefit_integration" ADD CONSTRAINT "benefit_integration_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
