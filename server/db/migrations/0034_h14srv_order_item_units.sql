-- An invoice prints a metered line as billed units × unit price. The renewal stores both on the line
-- it bills (null on lines without units: a static price, a proration, a checkout's line).
ALTER TABLE "order_item" ADD COLUMN IF NOT EXISTS "quantity" integer;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN IF NOT EXISTS "unit_amount" numeric;
