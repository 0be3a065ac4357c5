// Issuing a license key for a grant of a `license_keys` benefit: pure, so the confirm (which writes its rows
// with one hand-written statement) and the grant engine (drizzle) make the same key from the same benefit.
import { randomUUID } from "node:crypto";
import type { licenseKey } from "../../db/schema/index.js";
import { openStored, sealStored, storedLookup } from "../../seal.js";

export type LicenseKeyRow = typeof licenseKey.$inferSelect;

/** What the grant engine knows of a benefit: its type and its properties on the wire. */
export interface GrantedBenefit {
  id: string;
  type: string;
  properties: Record<string, unknown>;
}

/** `****-` and the key's last six characters: how a key is shown where the whole key must not be. */
export const displayKeyOf = (key: string) => `****-${key.slice(-6)}`;

/** The key itself (its row holds it sealed). */
export const plainKeyOf = (row: Pick<LicenseKeyRow, "key">) => openStored("license-key", row.key);

/** What a row stores of a key: sealed, and its keyed hash to be found by (validate, activate). */
export const storedKey = (plain: string) => ({ key: sealStored("license-key", plain), keyHash: keyLookup(plain) });

/** The keyed hash a presented key is looked up by. */
export const keyLookup = (plain: string) => storedLookup("license-key", plain);

const num = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null);
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/**
 * now + ttl days, months or years (calendar arithmetic in UTC; the 31st of a short month rolls over like Date does).
 */
export function expiryOf(expires: Record<string, unknown> | null, now: Date): Date | null {
  const ttl = num(expires?.ttl);
  if (!expires || ttl === null) return null;
  const at = new Date(now);
  if (expires.timeframe === "day") at.setUTCDate(at.getUTCDate() + ttl);
  else if (expires.timeframe === "month") at.setUTCMonth(at.getUTCMonth() + ttl);
  else if (expires.timeframe === "year") at.setUTCFullYear(at.getUTCFullYear() + ttl);
  else return null;
  // a ttl beyond what a timestamp holds: no expiry rather than an invalid date
  return Number.isNaN(at.getTime()) || at.getUTCFullYear() > 9999 ? null : at;
}

/** A fresh key: the benefit's prefix (upper case) and a random UUID, e.g. `ACME-6F1C…`. */
export function newKey(prefix: unknown): string {
  const random = randomUUID().toUpperCase();
  return typeof prefix === "string" && prefix.trim() ? `${prefix.trim().toUpperCase()}-${random}` : random;
}

/**
 * The key a grant of `benefit` gives the customer, or null for other benefit types. The limits are copied
 * from the benefit when granted (changing the benefit later does not change issued keys, as in Polar).
 */
export function issueLicenseKey(
  benefit: GrantedBenefit,
  grant: { id: string; organizationId: string; customerId: string },
  now: Date,
): LicenseKeyRow | null {
  if (benefit.type !== "license_keys") return null;
  const p = benefit.properties;
  return {
    id: randomUUID(),
    organizationId: grant.organizationId,
    customerId: grant.customerId,
    benefitId: benefit.id,
    benefitGrantId: grant.id,
    ...storedKey(newKey(p.prefix)),
    status: "granted",
    limitActivations: num(obj(p.activations)?.limit),
    usage: 0,
    limitUsage: num(p.limit_usage),
    validations: 0,
    lastValidatedAt: null,
    expiresAt: expiryOf(obj(p.expires), now),
    createdAt: now,
    modifiedAt: null,
  };
}

/** The grant's properties naming its key (BenefitGrantLicenseKeysProperties). */
export const grantPropertiesOf = (key: LicenseKeyRow) => ({ license_key_id: key.id, display_key: displayKeyOf(plainKeyOf(key)) });
