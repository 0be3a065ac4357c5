CREATE TABLE "idempotency_key" (
	"scope" text NOT NULL,
	"key_hash" text NOT NULL,
	"request_hash" text NOT NULL,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"status" text NOT NULL,
	"locked_until" timestamp with time zone,
	"response_status" integer,
	"response_headers" jsonb,
	"response_body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_key_scope_key_hash_pk" PRIMARY KEY("scope","key_hash")
);
--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "confirmation_hash" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "renewed_period_start" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "idempotency_key_expires_idx" ON "idempotency_key" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "order_subscription_renewed_period_uq" ON "order" USING btree ("subscription_id","renewed_period_start") WHERE "order"."renewed_period_start" IS NOT NULL;