-- The organizations' ES256 keys that sign entitlement snapshots: the public JWK (published in the organization's
-- JWKS) and the private key sealed with the server secret. One signing key per organization (retires_at null);
-- a rotated key gets retires_at, when every snapshot it signed has expired, and leaves the JWKS then.
CREATE TABLE "entitlement_signing_key" (
  "kid" text PRIMARY KEY NOT NULL,
  "organization_id" uuid NOT NULL REFERENCES "organization"("id") ON DELETE cascade,
  "public_jwk" jsonb NOT NULL,
  "private_key" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "retires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "entitlement_signing_key_signing_uq" ON "entitlement_signing_key" ("organization_id") WHERE "retires_at" IS NULL;
--> statement-breakpoint
CREATE INDEX "entitlement_signing_key_org_idx" ON "entitlement_signing_key" ("organization_id", "created_at");
