-- An organization's Stripe account (keys and the signing secret sealed) and the Stripe events received from it.
CREATE TABLE "stripe_connection" (
	"organization_id" uuid PRIMARY KEY NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
	"account_id" text,
	"livemode" boolean NOT NULL,
	"secret_key" text NOT NULL,
	"publishable_key" text NOT NULL,
	"webhook_endpoint_id" text,
	"webhook_url" text NOT NULL,
	"webhook_secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stripe_event" (
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"livemode" boolean NOT NULL,
	"stripe_created_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	PRIMARY KEY ("organization_id", "id")
);
--> statement-breakpoint
CREATE INDEX "stripe_event_received_idx" ON "stripe_event" USING btree ("organization_id", "received_at");
