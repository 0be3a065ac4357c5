-- The add-ons a checkout sells with its subscription product (till's own `add_ons`): each chosen add-on's product,
-- price, quantity and amount per period, priced by the checkout's changes and written to the subscription it starts.
ALTER TABLE "checkout" ADD COLUMN "add_ons" jsonb DEFAULT '[]'::jsonb NOT NULL;
