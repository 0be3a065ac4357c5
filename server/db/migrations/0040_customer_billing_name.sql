-- The name a business buyer's invoices are made out to ("Martin Conseil SARL"), kept on the customer from the
-- checkout that collected it, so renewals and the portal use it instead of the person's name.
ALTER TABLE "customer" ADD COLUMN "billing_name" text;
