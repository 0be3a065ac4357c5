-- Wallets: a customer's balance per currency as a row with an id (Polar's CustomerWallet), kept in
-- step with the ledger (customer_balance_entry) by a trigger, so every path that writes a movement (renewals,
-- checkouts, prorations, top-ups, credit packs) moves the wallet's balance in the same statement. A movement may
-- carry an idempotency key: one movement per key and organization (a credit pack's order, a top-up, a recharge).
CREATE TABLE "customer_wallet" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
	"customer_id" uuid NOT NULL REFERENCES "customer"("id") ON DELETE cascade,
	"currency" text NOT NULL,
	"balance" integer DEFAULT 0 NOT NULL,
	"auto_recharge_enabled" boolean DEFAULT false NOT NULL,
	"auto_recharge_threshold" integer DEFAULT 0 NOT NULL,
	"auto_recharge_amount" integer DEFAULT 0 NOT NULL,
	"recharge_blocked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "customer_wallet_customer_currency" ON "customer_wallet" USING btree ("organization_id", "customer_id", "currency");
--> statement-breakpoint
ALTER TABLE "customer_balance_entry" ADD COLUMN "idempotency_key" text;
--> statement-breakpoint
ALTER TABLE "customer_balance_entry" ADD COLUMN "description" text;
--> statement-breakpoint
CREATE UNIQUE INDEX "customer_balance_entry_key" ON "customer_balance_entry" USING btree ("organization_id", "idempotency_key") WHERE "idempotency_key" IS NOT NULL;
--> statement-breakpoint
INSERT INTO "customer_wallet" ("organization_id", "customer_id", "currency", "balance", "created_at")
  SELECT "organization_id", "customer_id", "currency", sum("amount")::integer, min("created_at")
  FROM "customer_balance_entry" GROUP BY "organization_id", "customer_id", "currency";
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "till_wallet_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "customer_wallet" ("organization_id", "customer_id", "currency", "balance", "created_at")
    VALUES (NEW."organization_id", NEW."customer_id", NEW."currency", NEW."amount", NEW."created_at")
    ON CONFLICT ("organization_id", "customer_id", "currency")
    DO UPDATE SET "balance" = "customer_wallet"."balance" + EXCLUDED."balance", "modified_at" = NEW."created_at";
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "customer_balance_entry_moved" AFTER INSERT ON "customer_balance_entry" FOR EACH ROW
  EXECUTE FUNCTION "till_wallet_moved"();
