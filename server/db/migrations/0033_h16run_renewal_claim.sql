-- The renewal schedule's claim (server/billing/subscriptions/renewal-repository.ts: claimDueSubscriptions): the
-- renewing subscriptions by period end, so a claim reads the due ones in order instead of sorting every
-- subscription. The claim spells the same status list as literals (a partial index serves only a query whose
-- filter implies its predicate).
CREATE INDEX IF NOT EXISTS "subscription_renewal_due_idx" ON "subscription" USING btree ("current_period_end","id") WHERE "status" IN ('trialing', 'active');
