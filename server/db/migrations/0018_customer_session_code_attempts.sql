ALTER TABLE "customer_session_code" ADD COLUMN "selector" text;--> statement-breakpoint
ALTER TABLE "customer_session_code" ADD COLUMN "failed_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "customer_session_code_selector_idx" ON "customer_session_code" USING btree ("selector");