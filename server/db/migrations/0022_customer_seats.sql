CREATE TABLE "customer_seat" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"subscription_id" uuid,
	"order_id" uuid,
	"status" text DEFAULT 'pending' NOT NULL,
	"email" text,
	"customer_id" uuid,
	"invitation_token_hash" text,
	"invitation_token_expires_at" timestamp with time zone,
	"invitation_id" uuid,
	"claimed_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"seat_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	CONSTRAINT "customer_seat_one_owner" CHECK (("subscription_id" IS NULL) <> ("order_id" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "customer_seat" ADD CONSTRAINT "customer_seat_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_seat" ADD CONSTRAINT "customer_seat_subscription_id_subscription_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscription"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_seat" ADD CONSTRAINT "customer_seat_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_seat" ADD CONSTRAINT "customer_seat_customer_id_customer_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customer"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_seat_token_uq" ON "customer_seat" USING btree ("invitation_token_hash") WHERE "customer_seat"."invitation_token_hash" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_seat_active_email_uq" ON "customer_seat" USING btree (coalesce("subscription_id", "order_id"),"email") WHERE "customer_seat"."status" <> 'revoked' AND "customer_seat"."email" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "customer_seat_subscription_idx" ON "customer_seat" USING btree ("subscription_id");--> statement-breakpoint
CREATE INDEX "customer_seat_order_idx" ON "customer_seat" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "customer_seat_customer_idx" ON "customer_seat" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "customer_seat_org_created_idx" ON "customer_seat" USING btree ("organization_id","created_at");--> statement-breakpoint
ALTER TABLE "benefit_grant" ADD COLUMN "customer_seat_id" uuid;--> statement-breakpoint
CREATE INDEX "benefit_grant_seat_idx" ON "benefit_grant" USING btree ("customer_seat_id") WHERE "benefit_grant"."customer_seat_id" IS NOT NULL;
--> statement-breakpoint
-- existing keys keep what they could do: customer_seats as their customers permission allows
UPDATE "apikey" SET "permissions" = (("permissions"::jsonb) || jsonb_build_object('customer_seats', ("permissions"::jsonb) -> 'customers'))::text WHERE "permissions" IS NOT NULL AND ("permissions"::jsonb) ? 'customers' AND NOT (("permissions"::jsonb) ? 'customer_seats');
