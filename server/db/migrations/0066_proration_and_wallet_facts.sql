-- What a proration line and a wallet's usage movement say, kept as facts beside their English text so
-- that the invoice, the receipt email and the portal say them in the reader's language.
-- A proration line's kind (unused / remaining), product, seats and prorated span: on the order item, and on the
-- line a plan change carries to the next renewal. NULL on other lines and on lines made before 0066, whose
-- documents print the stored English label as before.
ALTER TABLE "order_item" ADD COLUMN "proration_facts" jsonb;--> statement-breakpoint
ALTER TABLE "subscription_proration" ADD COLUMN "facts" jsonb;--> statement-breakpoint
-- The product a wallet's usage movement paid for (its description stays "Usage: {product}" for the API); the
-- movements made before 0066 take it from that description.
ALTER TABLE "customer_balance_entry" ADD COLUMN "product_name" text;--> statement-breakpoint
UPDATE "customer_balance_entry" SET "product_name" = substr("description", 8)
  WHERE "reason" = 'usage' AND "description" LIKE 'Usage: %';--> statement-breakpoint
-- The movement's event carries it too, as GET /v1/wallets/{id}/transactions shows the movement (0057's function,
-- with `product_name`).
CREATE OR REPLACE FUNCTION "till_wallet_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  w "customer_wallet";
  kind text;
  at timestamptz := clock_timestamp();
BEGIN
  INSERT INTO "customer_wallet" ("organization_id", "customer_id", "currency", "balance", "created_at")
    VALUES (NEW."organization_id", NEW."customer_id", NEW."currency", NEW."amount", NEW."created_at")
    ON CONFLICT ("organization_id", "customer_id", "currency")
    DO UPDATE SET "balance" = "customer_wallet"."balance" + EXCLUDED."balance", "modified_at" = NEW."created_at"
    RETURNING * INTO w;
  kind := CASE NEW."reason" WHEN 'order_applied' THEN 'order_payment' ELSE NEW."reason" END;
  INSERT INTO "outbox" ("id", "organization_id", "type", "payload", "created_at", "available_at") VALUES
    (gen_random_uuid(), NEW."organization_id", 'till.wallet.transaction.created', jsonb_build_object(
      'id', NEW."id",
      'created_at', to_char(NEW."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'wallet_id', w."id",
      'type', kind,
      'amount', NEW."amount",
      'currency', NEW."currency",
      'description', COALESCE(NEW."description", CASE kind
        WHEN 'top_up' THEN 'Top-up' WHEN 'auto_recharge' THEN 'Auto-recharge' WHEN 'credit_purchase' THEN 'Credits purchased'
        WHEN 'order_payment' THEN 'Paid an order' WHEN 'usage' THEN 'Usage' WHEN 'refund' THEN 'Refund'
        WHEN 'adjustment' THEN 'Adjustment' WHEN 'proration_credit' THEN 'Plan change credit' ELSE kind END),
      'product_name', NEW."product_name",
      'order_id', NEW."order_id",
      'customer_id', NEW."customer_id",
      'balance_after', w."balance"), at, at),
    (gen_random_uuid(), NEW."organization_id", 'till.wallet.updated', jsonb_build_object(
      'id', w."id",
      'created_at', to_char(w."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'modified_at', to_char(w."modified_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'customer_id', w."customer_id",
      'balance', w."balance",
      'currency', w."currency"), at + interval '1 millisecond', at);
  RETURN NULL;
END
$$;
