-- The service period a subscription's order line covers (an EU invoice's date of supply): the new period for
-- its static prices, the period ended for its usage; null on one-time lines and on lines sold before.
ALTER TABLE "order_item" ADD COLUMN "period_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN "period_end" timestamp with time zone;
