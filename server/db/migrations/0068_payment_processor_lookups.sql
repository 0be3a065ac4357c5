-- A payment is looked up by the processor's id (Stripe's pi_… or ch_…: its events, a late bank answer,
-- settlePendingCharge) and a wallet asks for its customer's charge still on its way (processingChargeOf); both
-- scanned the organization's payments. The first index covers the processor's id; the second, partial, holds only
-- the few charges still processing (a bank debit waiting for the bank), by customer.
CREATE INDEX IF NOT EXISTS "payment_processor_payment_idx" ON "payment" USING btree ("organization_id", "processor_payment_id") WHERE "processor_payment_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "payment_processing_idx" ON "payment" USING btree ("organization_id", "customer_id") WHERE "status" = 'pending' AND "decline_reason" = 'processing';
