-- Team customers: the members of a customer (Polar's Member) with their role — exactly one owner
-- per customer (a partial unique index), emails and external ids unique within the customer. A portal session and
-- a sign-in code may be a member's; a seat may be assigned to a member.
CREATE TABLE "customer_member" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
	"customer_id" uuid NOT NULL REFERENCES "customer"("id") ON DELETE cascade,
	"email" text NOT NULL,
	"name" text,
	"external_id" text,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	CONSTRAINT "customer_member_role" CHECK ("role" IN ('owner', 'billing_manager', 'member'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "customer_member_email_uq" ON "customer_member" USING btree ("customer_id", "email");
--> statement-breakpoint
CREATE UNIQUE INDEX "customer_member_external_uq" ON "customer_member" USING btree ("customer_id", "external_id") WHERE "external_id" IS NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX "customer_member_one_owner_uq" ON "customer_member" USING btree ("customer_id") WHERE "role" = 'owner';
--> statement-breakpoint
CREATE INDEX "customer_member_org_created_idx" ON "customer_member" USING btree ("organization_id", "created_at");
--> statement-breakpoint
CREATE INDEX "customer_member_org_email_idx" ON "customer_member" USING btree ("organization_id", "email");
--> statement-breakpoint
ALTER TABLE "customer_session" ADD COLUMN "member_id" uuid REFERENCES "customer_member"("id") ON DELETE cascade;
--> statement-breakpoint
ALTER TABLE "customer_session_code" ADD COLUMN "member_id" uuid REFERENCES "customer_member"("id") ON DELETE cascade;
--> statement-breakpoint
ALTER TABLE "customer_seat" ADD COLUMN "member_id" uuid REFERENCES "customer_member"("id") ON DELETE set null;
