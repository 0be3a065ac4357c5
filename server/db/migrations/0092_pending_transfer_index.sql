-- Bank transfers still awaiting the money (a pending customer_balance payment): an order paid another way has the
-- intent of its transfer canceled at the processor (billing/dunning/transfer-cancel.ts), found through this index by
-- the outbox's subscriber and the schedule's pass alike.
CREATE INDEX "payment_pending_transfer_idx" ON "payment" ("organization_id", "order_id") WHERE "status" = 'pending' AND "method" = 'customer_balance';
