-- The payment processor's own customer for a till customer (Stripe's cus_…): made once, at the first payment, and
-- charged again for renewals and the portal's payment methods.
CREATE TABLE "processor_customer" (
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
	"customer_id" uuid NOT NULL REFERENCES "customer"("id") ON DELETE cascade,
	"processor" text NOT NULL,
	"processor_customer_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	PRIMARY KEY ("customer_id", "processor")
);
