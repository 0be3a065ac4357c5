-- A metered order line's figures (consumed, credited and billed units, the tiers they went through, the
-- cap), so that an invoice says the line in its reader's language. NULL on other lines and on lines made before
-- 0064, whose invoices print the stored English label as before.
ALTER TABLE "order_item" ADD COLUMN "usage" jsonb;
