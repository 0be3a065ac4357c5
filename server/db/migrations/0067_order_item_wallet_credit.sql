-- Which credit a wallet top-up order's one line is ('top_up' or 'auto_recharge'), so that the invoice,
-- the order's email and the portal say it in the reader's language; its label stays "Wallet top-up" / "Wallet
-- auto-recharge" for the API. NULL on every other line.
ALTER TABLE "order_item" ADD COLUMN "wallet_credit" text;--> statement-breakpoint
-- The top-ups made before 0067 take it from their wallet movement, which names the order and its reason.
UPDATE "order_item" SET "wallet_credit" = e."reason"
  FROM "customer_balance_entry" e
  WHERE e."order_id" = "order_item"."order_id" AND e."organization_id" = "order_item"."organization_id"
    AND e."reason" IN ('top_up', 'auto_recharge') AND "order_item"."product_price_id" IS NULL;
