-- Plan changes that wait for the period's end, and trials without a card: the subscription's
-- pending change (product and/or seats with their terms, applied by the renewal), and when the customer was
-- reminded that a trial is ending.
ALTER TABLE "subscription" ADD COLUMN "pending_update" jsonb;
--> statement-breakpoint
ALTER TABLE "subscription" ADD COLUMN "trial_reminded_at" timestamp with time zone;
