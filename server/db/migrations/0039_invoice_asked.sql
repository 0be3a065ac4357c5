-- An invoice asked for (POST …/orders/{id}/invoice, by the seller or in the portal) is announced with
-- order.updated once made, as Polar announces each generate_invoice; one till makes by itself for a paid order
-- with billing details (Polar makes none unasked) is not: its event would come at a time no flow controls.
ALTER TABLE "invoice" ADD COLUMN "asked" boolean DEFAULT false NOT NULL;
