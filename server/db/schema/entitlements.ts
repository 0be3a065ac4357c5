// The organizations' entitlement snapshot signing keys (server/billing/entitlements/keys.ts): ES256, the private
// key sealed with the server secret, one signing key per organization (the partial unique index), a rotated one
// published until `retires_at`.
import { bigint, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, org, timestamptz } from "./columns.js";

/** An EC P-256 public key as a JWK (RFC 7517), as the JWKS publishes it. */
export interface PublicEcJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
}

export const entitlementSigningKey = pgTable(
  "entitlement_signing_key",
  {
    /** The JWK thumbprint of the public key (RFC 7638): the `kid` of the snapshots it signs. */
    kid: text("kid").primaryKey(),
    organizationId: org(),
    publicJwk: jsonb("public_jwk").$type<PublicEcJwk>().notNull(),
    /** The private key's JWK, sealed (server/seal.ts, purpose entitlement-key); never in clear. */
    privateKey: text("private_key").notNull(),
    createdAt: createdAt(),
    /** null: the organization's signing key; else when it leaves the JWKS (every snapshot it signed expired). */
    retiresAt: timestamptz("retires_at"),
  },
  (t) => [
    uniqueIndex("entitlement_signing_key_signing_uq").on(t.organizationId).where(sql`${t.retiresAt} IS NULL`),
    index("entitlement_signing_key_org_idx").on(t.organizationId, t.createdAt),
  ],
);

/**
 * A customer's entitlement stamp (customer_id: the customer's id), and the organization's (customer_id: the
 * organization's id), set from a sequence by triggers on every table whose change can alter an entitlement answer
 * (migration 0087): a check that reads the same two stamps reuses the facts read before (entitlements/facts-cache.ts).
 */
export const entitlementStamp = pgTable(
  "entitlement_stamp",
  {
    organizationId: uuid("organization_id").notNull(),
    customerId: uuid("customer_id").notNull(),
    stamp: bigint("stamp", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ name: "entitlement_stamp_pk", columns: [t.organizationId, t.customerId] })],
);
