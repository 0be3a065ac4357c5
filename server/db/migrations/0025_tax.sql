ALTER TABLE "billing_organization" ADD COLUMN "tax_settings" jsonb;--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "tax_inclusive" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "tax_note" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "billing_tax_id" jsonb;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN "tax" jsonb;
