CREATE TABLE "checkout_link" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"client_secret" text NOT NULL,
	"payment_processor" text DEFAULT 'stripe' NOT NULL,
	"label" text,
	"product_ids" uuid[] NOT NULL,
	"allow_discount_codes" boolean DEFAULT true NOT NULL,
	"require_billing_address" boolean DEFAULT false NOT NULL,
	"discount_id" uuid,
	"success_url" text,
	"return_url" text,
	"trial_interval" text,
	"trial_interval_count" integer,
	"seats" integer,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "checkout_link" ADD CONSTRAINT "checkout_link_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_link_client_secret_uq" ON "checkout_link" USING btree ("client_secret");--> statement-breakpoint
CREATE INDEX "checkout_link_org_created_idx" ON "checkout_link" USING btree ("organization_id","created_at");--> statement-breakpoint
UPDATE "apikey" SET "permissions" = (("permissions"::jsonb) || jsonb_build_object('checkout_links', ("permissions"::jsonb) -> 'checkouts'))::text WHERE "permissions" IS NOT NULL AND ("permissions"::jsonb) ? 'checkouts' AND NOT (("permissions"::jsonb) ? 'checkout_links');
