-- A charge whose answer was lost (the connection dropped after the processor may have taken the money) keeps its
-- Idempotency-Key, description and metadata: the order's next charge is sent again exactly so, under the same key,
-- and the processor answers what it did the first time (Stripe keeps a key's answer for at least 24 hours)
-- instead of charging again.
ALTER TABLE "payment" ADD COLUMN "unanswered_charge" jsonb;
