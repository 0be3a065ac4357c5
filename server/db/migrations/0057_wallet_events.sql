-- Wallet events and usage paid from the wallet. Every movement of a wallet (a row inserted into the
-- ledger, by whichever path: renewals, checkouts, prorations, top-ups, credit packs, usage, refunds, adjustments)
-- records, in the same statement and so in the causing transaction, two outbox events of till's own:
-- `till.wallet.transaction.created` (the movement as GET /v1/wallets/{id}/transactions shows it, with the
-- customer and the balance after it) and `till.wallet.updated` (the wallet, Polar's Wallet shape). The labels
-- are those of billing/wallets/service.ts's LABEL (tests/api/wallet-events.test.ts compares them).
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
--> statement-breakpoint
-- the usage a prepaid subscription's wallet paid in its current period, not yet on a renewal order
CREATE INDEX "customer_balance_entry_usage_idx" ON "customer_balance_entry" USING btree ("organization_id", "subscription_id") WHERE "reason" = 'usage' AND "order_id" IS NULL;
