-- Webhook endpoints' signing secrets, checkouts' client secrets and license keys are sealed with the server secret
-- (server/seal.ts); the two found by their value get a keyed hash to be found by, unique where the value was.
-- SQL cannot seal with the app's key: the server seals the rows still in clear when it starts
-- (server/db/sealed-secrets.ts), before it serves a request.
ALTER TABLE "license_key" ADD COLUMN "key_hash" text;--> statement-breakpoint
DROP INDEX IF EXISTS "license_key_org_key_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "license_key_org_key_hash_idx" ON "license_key" ("organization_id", "key_hash");--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "client_secret_hash" text;--> statement-breakpoint
DROP INDEX IF EXISTS "checkout_client_secret_uq";--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_client_secret_hash_uq" ON "checkout" ("client_secret_hash");
