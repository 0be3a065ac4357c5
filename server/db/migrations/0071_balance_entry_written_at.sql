-- A wallet's history lists its movements newest first by created_at. The column defaulted to now(), the time its
-- transaction began: a worker's transaction that began before a debit (the machine busy between its BEGIN and its
-- first statement) then credited the recharge that debit caused with an earlier time, and the history showed the
-- recharge before its cause. A movement now takes the time it is written (clock_timestamp()), so one written after
-- another, seen by it, is always newer.
ALTER TABLE "customer_balance_entry" ALTER COLUMN "created_at" SET DEFAULT clock_timestamp();
