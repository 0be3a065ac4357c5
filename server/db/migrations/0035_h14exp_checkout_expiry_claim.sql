-- The checkout expiry pass's claim (server/billing/checkouts/repository.ts: claimExpiredCheckouts): the open
-- checkouts by expiry, so the schedule reads the expired ones in order instead of scanning every checkout. The
-- claim spells `status = 'open'` as a literal (a partial index serves only a query whose filter implies its
-- predicate).
CREATE INDEX IF NOT EXISTS "checkout_expiry_due_idx" ON "checkout" USING btree ("expires_at","id") WHERE "status" = 'open';
