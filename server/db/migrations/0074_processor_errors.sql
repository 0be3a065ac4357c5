-- A payment the processor could not process (not the customer's decline) is the seller's to see and is retried
-- without dunning: the connection keeps the last such error, a renewal's dunning row counts them apart from declines.
ALTER TABLE "stripe_connection" ADD COLUMN "last_error_code" text;--> statement-breakpoint
ALTER TABLE "stripe_connection" ADD COLUMN "last_error_detail" text;--> statement-breakpoint
ALTER TABLE "stripe_connection" ADD COLUMN "last_error_at" timestamptz;--> statement-breakpoint
ALTER TABLE "stripe_connection" ADD COLUMN "last_error_mailed_at" timestamptz;--> statement-breakpoint
ALTER TABLE "order_dunning" ADD COLUMN "processor_errors" integer DEFAULT 0 NOT NULL;
