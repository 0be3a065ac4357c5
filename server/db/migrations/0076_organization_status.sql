-- The organization's lifecycle (billing_organization.status: created, onboarding_started, under_review, denied,
-- active) moves with what the seller did; a platform admin's review of the submitted details is kept beside it.
-- review_status: null (never reviewed), pending, approved or denied; review_reason: the denial's reason, shown to
-- the seller.
ALTER TABLE "billing_organization" ADD COLUMN "review_status" text;--> statement-breakpoint
ALTER TABLE "billing_organization" ADD COLUMN "review_reason" text;--> statement-breakpoint
ALTER TABLE "billing_organization" ADD COLUMN "reviewed_at" timestamp with time zone;--> statement-breakpoint
-- every sandbox twin is active from its first day: a billing row for the twins that had none
INSERT INTO "billing_organization" ("organization_id", "status")
  SELECT "organization_id", 'active' FROM "organization_sandbox"
  ON CONFLICT ("organization_id") DO UPDATE SET "status" = 'active';--> statement-breakpoint
-- live organizations as far as they got: details submitted and Stripe connected, or begun
UPDATE "billing_organization" b SET "status" = CASE
    WHEN b."details_submitted_at" IS NOT NULL AND EXISTS (SELECT 1 FROM "stripe_connection" c WHERE c."organization_id" = b."organization_id") THEN 'active'
    ELSE 'onboarding_started'
  END
  WHERE b."status" = 'created'
    AND NOT EXISTS (SELECT 1 FROM "organization_sandbox" s WHERE s."organization_id" = b."organization_id")
    AND (b."details_submitted_at" IS NOT NULL
      OR b."details" -> 'invoice_details' IS NOT NULL
      OR EXISTS (SELECT 1 FROM "stripe_connection" c WHERE c."organization_id" = b."organization_id"));
