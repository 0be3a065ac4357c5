-- Reservations of a meter's balance: units held for a customer until committed (a usage event) or released; and
-- what a metered price does at zero balance (credit_only; null is credit_then_invoice).
ALTER TABLE "product_price" ADD COLUMN "overage" text;
--> statement-breakpoint
CREATE TABLE "entitlement_reservation" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
  "customer_id" uuid NOT NULL REFERENCES "customer"("id") ON DELETE cascade,
  "meter_id" uuid NOT NULL REFERENCES "meter"("id") ON DELETE cascade,
  "units" double precision NOT NULL,
  "used_units" double precision,
  "status" text NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "settled_at" timestamp with time zone,
  "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "entitlement_reservation_held_idx" ON "entitlement_reservation" ("organization_id", "customer_id", "meter_id")
  WHERE "status" = 'held';
--> statement-breakpoint
CREATE INDEX "entitlement_reservation_expiry_idx" ON "entitlement_reservation" ("expires_at") WHERE "status" = 'held';
--> statement-breakpoint
CREATE INDEX "entitlement_reservation_org_created_idx" ON "entitlement_reservation" ("organization_id", "created_at" DESC);
