-- Issue 30: what a proration line and a wallet's usage movement say, kept as facts beside their English text so
-- that the invoice, the receipt email and the portal say them in the reader's language.
-- A proration line's kind (unused / remaining), product, seats and prorated span: on the order item, and on the
-- line a plan change carries to the next renewal. NULL on other lines and on lines made before 0065, whose
-- documents print the stored English label as before.
ALTER TABLE "order_item" ADD COLUMN "proration_facts" jsonb;--> statement-breakpoint
ALTER TABLE "subscription_proration" ADD COLUMN "facts" jsonb;--> statement-breakpoint
-- The product a wallet's usage movement paid for (its description stays "Usage: {product}" for the API); the
-- movements made before 0065 take it from that description.
ALTER TABLE "customer_balance_entry" ADD COLUMN "product_name" text;--> statement-breakpoint
UPDATE "customer_balance_entry" SET "product_name" = substr("description", 8)
  WHERE "reason" = 'usage' AND "description" LIKE 'Usage: %';
