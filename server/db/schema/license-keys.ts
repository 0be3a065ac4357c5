// License keys: what a `license_keys` benefit grants. One key per grant, made in the granting transaction; the
// grant's properties name it (license_key_id, display_key). Revoking the grant revokes the key. Activations are
// the machines a key is in use on, up to its limit; a deactivated one keeps its row (deleted_at).
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";

import { benefit, customer } from "./billing.js";
import { id, org, cascadeRef, createdAt, modifiedAt, timestamptz } from "./columns.js";

/**
 * The values an activation's `conditions` and `meta` hold (Polar's Record<string, string | int | number | boolean>).
 */
export type LicenseKeyScalars = Record<string, string | number | boolean>;

export const licenseKey = pgTable(
  "license_key",
  {
    id: id(),
    organizationId: org(),
    customerId: cascadeRef("customer_id", () => customer.id),
    benefitId: cascadeRef("benefit_id", () => benefit.id),
    /** The grant that made it (no foreign key: both are inserted by one statement of the confirm). */
    benefitGrantId: uuid("benefit_grant_id"),
    /**
     * The key, sealed with the server secret (server/seal.ts); a row from before sealing holds it in clear until start.
     */
    key: text("key").notNull(),
    /** The key's keyed hash (seal.ts, lookupHash): validate/activate find the key by it. */
    keyHash: text("key_hash"),
    /** granted | revoked | disabled */
    status: text("status").default("granted").notNull(),
    limitActivations: integer("limit_activations"),
    usage: integer("usage").default(0).notNull(),
    limitUsage: integer("limit_usage"),
    validations: integer("validations").default(0).notNull(),
    lastValidatedAt: timestamptz("last_validated_at"),
    expiresAt: timestamptz("expires_at"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    uniqueIndex("license_key_org_key_hash_idx").on(t.organizationId, t.keyHash),
    index("license_key_org_created_idx").on(t.organizationId, t.createdAt),
    index("license_key_grant_idx").on(t.benefitGrantId),
    index("license_key_customer_idx").on(t.customerId),
  ],
);

export const licenseKeyActivation = pgTable(
  "license_key_activation",
  {
    id: id(),
    licenseKeyId: cascadeRef("license_key_id", () => licenseKey.id),
    label: text("label").notNull(),
    /** What a validation naming this activation must send again, exactly. */
    conditions: jsonb("conditions").$type<LicenseKeyScalars>().default({}).notNull(),
    meta: jsonb("meta").$type<LicenseKeyScalars>().default({}).notNull(),
    deletedAt: timestamptz("deleted_at"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("license_key_activation_key_idx").on(t.licenseKeyId, t.createdAt)],
);
