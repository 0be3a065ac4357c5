CREATE TABLE "checkout" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"client_secret" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"payment_processor" text DEFAULT 'stripe' NOT NULL,
	"payment_processor_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"success_url" text,
	"return_url" text,
	"embed_origin" text,
	"locale" text,
	"allow_discount_codes" boolean DEFAULT true NOT NULL,
	"require_billing_address" boolean DEFAULT false NOT NULL,
	"allow_trial" boolean DEFAULT true NOT NULL,
	"trial_interval" text,
	"trial_interval_count" integer,
	"trial_end" timestamp with time zone,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"seats" integer,
	"min_seats" integer,
	"max_seats" integer,
	"tax_amount" integer,
	"product_ids" uuid[] NOT NULL,
	"product_id" uuid,
	"product_price_id" uuid,
	"discount_id" uuid,
	"customer_id" uuid,
	"subscription_id" uuid,
	"is_business_customer" boolean DEFAULT false NOT NULL,
	"external_customer_id" text,
	"customer_name" text,
	"customer_email" text,
	"customer_ip_address" text,
	"customer_billing_name" text,
	"customer_billing_address" jsonb,
	"customer_tax_id" jsonb,
	"customer_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"custom_field_data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "invoice_counter" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"prefix" text NOT NULL,
	"last_number" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"status" text NOT NULL,
	"subtotal_amount" integer NOT NULL,
	"discount_amount" integer DEFAULT 0 NOT NULL,
	"net_amount" integer NOT NULL,
	"tax_amount" integer DEFAULT 0 NOT NULL,
	"total_amount" integer NOT NULL,
	"applied_balance_amount" integer DEFAULT 0 NOT NULL,
	"refunded_amount" integer DEFAULT 0 NOT NULL,
	"refunded_tax_amount" integer DEFAULT 0 NOT NULL,
	"platform_fee_amount" integer DEFAULT 0 NOT NULL,
	"platform_fee_currency" text,
	"currency" text NOT NULL,
	"billing_reason" text NOT NULL,
	"billing_name" text,
	"billing_address" jsonb,
	"invoice_number" text NOT NULL,
	"is_invoice_generated" boolean DEFAULT false NOT NULL,
	"seats" integer,
	"customer_id" uuid NOT NULL,
	"product_id" uuid,
	"discount_id" uuid,
	"subscription_id" uuid,
	"checkout_id" uuid,
	"custom_field_data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "order_item" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"label" text NOT NULL,
	"amount" integer NOT NULL,
	"tax_amount" integer DEFAULT 0 NOT NULL,
	"proration" boolean DEFAULT false NOT NULL,
	"product_price_id" uuid,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"available_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"processed_at" timestamp with time zone,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "subscription" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"status" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"recurring_interval" text NOT NULL,
	"recurring_interval_count" integer DEFAULT 1 NOT NULL,
	"current_period_start" timestamp with time zone NOT NULL,
	"current_period_end" timestamp with time zone NOT NULL,
	"trial_start" timestamp with time zone,
	"trial_end" timestamp with time zone,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"canceled_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"ends_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"customer_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"price_ids" uuid[] NOT NULL,
	"discount_id" uuid,
	"checkout_id" uuid,
	"seats" integer,
	"customer_cancellation_reason" text,
	"customer_cancellation_comment" text,
	"custom_field_data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "checkout" ADD CONSTRAINT "checkout_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkout" ADD CONSTRAINT "checkout_customer_id_customer_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customer"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_counter" ADD CONSTRAINT "invoice_counter_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order" ADD CONSTRAINT "order_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order" ADD CONSTRAINT "order_customer_id_customer_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customer"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order" ADD CONSTRAINT "order_subscription_id_subscription_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscription"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order" ADD CONSTRAINT "order_checkout_id_checkout_id_fk" FOREIGN KEY ("checkout_id") REFERENCES "public"."checkout"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_item" ADD CONSTRAINT "order_item_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_item" ADD CONSTRAINT "order_item_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription" ADD CONSTRAINT "subscription_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription" ADD CONSTRAINT "subscription_customer_id_customer_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customer"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_client_secret_uq" ON "checkout" USING btree ("client_secret");--> statement-breakpoint
CREATE INDEX "checkout_org_created_idx" ON "checkout" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "order_org_created_idx" ON "order" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "order_org_customer_idx" ON "order" USING btree ("organization_id","customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "order_org_invoice_number_uq" ON "order" USING btree ("organization_id","invoice_number");--> statement-breakpoint
CREATE UNIQUE INDEX "order_checkout_uq" ON "order" USING btree ("checkout_id") WHERE "order"."checkout_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "order_item_order_idx" ON "order_item" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "outbox" USING btree ("available_at") WHERE "outbox"."processed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "outbox_org_created_idx" ON "outbox" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "subscription_org_created_idx" ON "subscription" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "subscription_org_customer_idx" ON "subscription" USING btree ("organization_id","customer_id");