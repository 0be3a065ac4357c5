CREATE TABLE "refund" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"amount" integer NOT NULL,
	"tax_amount" integer NOT NULL,
	"currency" text NOT NULL,
	"comment" text,
	"revoke_benefits" boolean DEFAULT false NOT NULL,
	"order_id" uuid NOT NULL,
	"subscription_id" uuid,
	"customer_id" uuid NOT NULL,
	"processor_refund_id" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "refund" ADD CONSTRAINT "refund_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refund" ADD CONSTRAINT "refund_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refund" ADD CONSTRAINT "refund_customer_id_customer_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customer"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refund_org_created_idx" ON "refund" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "refund_order_idx" ON "refund" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "refund_org_customer_idx" ON "refund" USING btree ("organization_id","customer_id");--> statement-breakpoint
CREATE INDEX "refund_processor_idx" ON "refund" USING btree ("processor_refund_id") WHERE "refund"."processor_refund_id" IS NOT NULL;