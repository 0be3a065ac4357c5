// License keys: what a `license_keys` benefit grants. One key per grant, made in the granting transaction; the
// grant's properties name it (license_key_id, display_key). Revoking the grant revokes the key. Activations are
// the machines a key is in use on, up to its limit; a deactivated one keeps its row (deleted_at).
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.js";
import { benefit, customer } from "./billing.js";

/** The values an activation's `conditions` and `meta` hold (Polar's Record<string, string | int | number | boolean>). */
export type LicenseKeyScalars = Record<string, string | number | boolean>;

export const licenseKey = pgTable(
  "license_key",
  {
    id: uuid("id").defaultRandom().primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customer.id, { onDelete: "cascade" }),
    benefitId: uuid("benefit_id")
      .notNull()
      .references(() => benefit.id, { onDelete: "cascade" }),
    /** The grant that made it (no foreign key: both are inserted by one statement of the confirm). */
    benefitGrantId: uuid("benefit_grant_id"),
    key: text("key").notNull(),
    /** granted | revoked | disabled */
    status: text("status").default("granted").notNull(),
    limitActivations: integer("limit_activations"),
    usage: integer("usage").default(0).notNull(),
    limitUsage: integer("limit_usage"),
    validations: integer("validations").default(0).notNull(),
    lastValidatedAt: timestamp("last_validated_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).defaultNow().notNull(),
    modifiedAt: timestamp("modified_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("license_key_org_key_idx").on(t.organizationId, t.key),
    index("license_key_org_created_idx").on(t.organizationId, t.createdAt),
    index("license_key_grant_idx").on(t.benefitGrantId),
    index("license_key_customer_idx").on(t.customerId),
  ],
);

export const licenseKeyActivation = pgTable(
  "license_key_activation",
  {
    id: uuid("id").defaultRandom().primaryKey(),
    licenseKeyId: uuid("license_key_id")
      .notNull()
      .references(() => licenseKey.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    /** What a validation naming this activation must send again, exactly. */
    conditions: jsonb("conditions").$type<LicenseKeyScalars>().default({}).notNull(),
    meta: jsonb("meta").$type<LicenseKeyScalars>().default({}).notNull(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).defaultNow().notNull(),
    modifiedAt: timestamp("modified_at", { withTimezone: true }),
  },
  (t) => [index("license_key_activation_key_idx").on(t.licenseKeyId, t.createdAt)],
);
