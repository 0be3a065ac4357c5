-- A refund through Stripe may be accepted and fail later (the card closed, the issuer refusing it): the refund is
-- then `failed` or `canceled`, and till keeps Stripe's reason (expired_or_canceled_card, lost_or_stolen_card,
-- insufficient_funds, declined, merchant_request, unknown) for the seller's list and notice.
ALTER TABLE "refund" ADD COLUMN "failure_reason" text;
