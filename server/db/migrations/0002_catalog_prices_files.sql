ALTER TABLE "file" ADD COLUMN "upload" jsonb;--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "meter_interval" text;--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "meter_interval_count" integer;--> statement-breakpoint
ALTER TABLE "product_price" ADD COLUMN "source" text DEFAULT 'catalog' NOT NULL;--> statement-breakpoint
ALTER TABLE "product_price" ADD COLUMN "tax_behavior" text;