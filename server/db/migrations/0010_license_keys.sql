CREATE TABLE "license_key" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"benefit_id" uuid NOT NULL,
	"benefit_grant_id" uuid,
	"key" text NOT NULL,
	"status" text DEFAULT 'granted' NOT NULL,
	"limit_activations" integer,
	"usage" integer DEFAULT 0 NOT NULL,
	"limit_usage" integer,
	"validations" integer DEFAULT 0 NOT NULL,
	"last_validated_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "license_key_activation" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"license_key_id" uuid NOT NULL,
	"label" text NOT NULL,
	"conditions" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"meta" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "license_key" ADD CONSTRAINT "license_key_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_key" ADD CONSTRAINT "license_key_customer_id_customer_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customer"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_key" ADD CONSTRAINT "license_key_benefit_id_benefit_id_fk" FOREIGN KEY ("benefit_id") REFERENCES "public"."benefit"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_key_activation" ADD CONSTRAINT "license_key_activation_license_key_id_license_key_id_fk" FOREIGN KEY ("license_key_id") REFERENCES "public"."license_key"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "license_key_org_key_idx" ON "license_key" USING btree ("organization_id","key");--> statement-breakpoint
CREATE INDEX "license_key_org_created_idx" ON "license_key" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "license_key_grant_idx" ON "license_key" USING btree ("benefit_grant_id");--> statement-breakpoint
CREATE INDEX "license_key_customer_idx" ON "license_key" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "license_key_activation_key_idx" ON "license_key_activation" USING btree ("license_key_id","created_at");