CREATE TABLE "benefit" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"type" text NOT NULL,
	"description" text NOT NULL,
	"selectable" boolean DEFAULT true NOT NULL,
	"deletable" boolean DEFAULT true NOT NULL,
	"is_deleted" boolean DEFAULT false NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "benefit_grant" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"benefit_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"subscription_id" uuid,
	"order_id" uuid,
	"granted_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"previous_properties" jsonb,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "billing_organization" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"email" text,
	"website" text,
	"socials" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"details_submitted_at" timestamp with time zone,
	"feature_settings" jsonb,
	"subscription_settings" jsonb,
	"notification_settings" jsonb,
	"customer_email_settings" jsonb,
	"details" jsonb,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "custom_field" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"type" text NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "customer" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"external_id" text,
	"type" text DEFAULT 'individual' NOT NULL,
	"email" text NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"name" text,
	"billing_address" jsonb,
	"tax_id" jsonb,
	"locale" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "discount" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"code" text,
	"type" text NOT NULL,
	"amount" integer,
	"currency" text,
	"basis_points" integer,
	"duration" text NOT NULL,
	"duration_in_months" integer,
	"starts_at" timestamp with time zone,
	"ends_at" timestamp with time zone,
	"max_redemptions" integer,
	"redemptions_count" integer DEFAULT 0 NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "discount_product" (
	"discount_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	CONSTRAINT "discount_product_discount_id_product_id_pk" PRIMARY KEY("discount_id","product_id")
);
--> statement-breakpoint
CREATE TABLE "event" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"source" text DEFAULT 'user' NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	"customer_id" uuid,
	"external_customer_id" text,
	"external_id" text,
	"parent_id" uuid,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "file" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"path" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" bigint NOT NULL,
	"service" text NOT NULL,
	"version" text,
	"is_uploaded" boolean DEFAULT false NOT NULL,
	"is_enabled" boolean DEFAULT true NOT NULL,
	"storage_version" text,
	"checksum_etag" text,
	"checksum_sha256_base64" text,
	"checksum_sha256_hex" text,
	"last_modified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "meter" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"unit" text DEFAULT 'scalar' NOT NULL,
	"custom_label" text,
	"custom_multiplier" integer,
	"filter" jsonb NOT NULL,
	"aggregation" jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "product" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"visibility" text DEFAULT 'public' NOT NULL,
	"recurring_interval" text,
	"recurring_interval_count" integer,
	"trial_interval" text,
	"trial_interval_count" integer,
	"is_archived" boolean DEFAULT false NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "product_benefit" (
	"product_id" uuid NOT NULL,
	"benefit_id" uuid NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "product_benefit_product_id_benefit_id_pk" PRIMARY KEY("product_id","benefit_id")
);
--> statement-breakpoint
CREATE TABLE "product_custom_field" (
	"product_id" uuid NOT NULL,
	"custom_field_id" uuid NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"required" boolean DEFAULT false NOT NULL,
	CONSTRAINT "product_custom_field_product_id_custom_field_id_pk" PRIMARY KEY("product_id","custom_field_id")
);
--> statement-breakpoint
CREATE TABLE "product_media" (
	"product_id" uuid NOT NULL,
	"file_id" uuid NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "product_media_product_id_file_id_pk" PRIMARY KEY("product_id","file_id")
);
--> statement-breakpoint
CREATE TABLE "product_price" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"amount_type" text NOT NULL,
	"type" text NOT NULL,
	"recurring_interval" text,
	"price_currency" text DEFAULT 'usd' NOT NULL,
	"is_archived" boolean DEFAULT false NOT NULL,
	"legacy" boolean DEFAULT false NOT NULL,
	"price_amount" integer,
	"minimum_amount" integer,
	"maximum_amount" integer,
	"preset_amount" integer,
	"unit_amount" numeric,
	"cap_amount" integer,
	"meter_id" uuid,
	"seat_tiers" jsonb,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "benefit" ADD CONSTRAINT "benefit_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "benefit_grant" ADD CONSTRAINT "benefit_grant_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "benefit_grant" ADD CONSTRAINT "benefit_grant_benefit_id_benefit_id_fk" FOREIGN KEY ("benefit_id") REFERENCES "public"."benefit"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "benefit_grant" ADD CONSTRAINT "benefit_grant_customer_id_customer_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customer"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_organization" ADD CONSTRAINT "billing_organization_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_field" ADD CONSTRAINT "custom_field_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer" ADD CONSTRAINT "customer_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discount" ADD CONSTRAINT "discount_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discount_product" ADD CONSTRAINT "discount_product_discount_id_discount_id_fk" FOREIGN KEY ("discount_id") REFERENCES "public"."discount"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discount_product" ADD CONSTRAINT "discount_product_product_id_product_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."product"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event" ADD CONSTRAINT "event_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file" ADD CONSTRAINT "file_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter" ADD CONSTRAINT "meter_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product" ADD CONSTRAINT "product_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_benefit" ADD CONSTRAINT "product_benefit_product_id_product_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."product"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_benefit" ADD CONSTRAINT "product_benefit_benefit_id_benefit_id_fk" FOREIGN KEY ("benefit_id") REFERENCES "public"."benefit"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_custom_field" ADD CONSTRAINT "product_custom_field_product_id_product_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."product"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_custom_field" ADD CONSTRAINT "product_custom_field_custom_field_id_custom_field_id_fk" FOREIGN KEY ("custom_field_id") REFERENCES "public"."custom_field"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_media" ADD CONSTRAINT "product_media_product_id_product_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."product"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_media" ADD CONSTRAINT "product_media_file_id_file_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."file"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_price" ADD CONSTRAINT "product_price_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_price" ADD CONSTRAINT "product_price_product_id_product_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."product"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "benefit_org_created_idx" ON "benefit" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "benefit_grant_org_created_idx" ON "benefit_grant" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "benefit_grant_benefit_idx" ON "benefit_grant" USING btree ("benefit_id");--> statement-breakpoint
CREATE INDEX "benefit_grant_customer_idx" ON "benefit_grant" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "custom_field_org_created_idx" ON "custom_field" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "custom_field_org_slug_uq" ON "custom_field" USING btree ("organization_id","slug") WHERE "custom_field"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "customer_org_created_idx" ON "customer" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "customer_org_email_uq" ON "customer" USING btree ("organization_id","email") WHERE "customer"."deleted_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_org_external_uq" ON "customer" USING btree ("organization_id","external_id") WHERE "customer"."external_id" IS NOT NULL AND "customer"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "discount_org_created_idx" ON "discount" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "discount_org_code_uq" ON "discount" USING btree ("organization_id",lower("code")) WHERE "discount"."code" IS NOT NULL AND "discount"."deleted_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "event_org_external_uq" ON "event" USING btree ("organization_id","external_id") WHERE "event"."external_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "event_org_customer_ts_idx" ON "event" USING btree ("organization_id","customer_id","timestamp");--> statement-breakpoint
CREATE INDEX "event_org_ext_customer_ts_idx" ON "event" USING btree ("organization_id","external_customer_id","timestamp");--> statement-breakpoint
CREATE INDEX "event_org_name_ts_idx" ON "event" USING btree ("organization_id","name","timestamp");--> statement-breakpoint
CREATE INDEX "file_org_created_idx" ON "file" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "meter_org_created_idx" ON "meter" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "product_org_created_idx" ON "product" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "product_benefit_benefit_idx" ON "product_benefit" USING btree ("benefit_id");--> statement-breakpoint
CREATE INDEX "product_price_product_idx" ON "product_price" USING btree ("product_id");