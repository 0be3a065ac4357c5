// Credentials at rest (customer OAuth tokens, seller integration secrets, Stripe keys, PKCE verifiers, webhook
// signing secrets, checkout client secrets, license keys, entitlement signing keys): AES-256-GCM with a key derived
// from the server secret and a purpose, so a database dump alone reads none of them; a value found by what it is (a
// client secret, a license key) is also stored as a keyed hash, looked up with one HMAC.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

export type SealPurpose = "oauth-token" | "integration" | "pkce" | "stripe" | StoredSecretPurpose;
/** The billing tables' secrets, sealed with the secret the process serves with (`useServerSecret`). */
export type StoredSecretPurpose = "webhook-secret" | "checkout-secret" | "license-key" | "entitlement-key" | "pay-link";

const SEALED_PREFIX = "v1.";

// derived once per (secret, purpose): a lookup costs one HMAC, not two
const derived = new Map<string, Buffer>();
function derive(secret: string, label: string): Buffer {
  const id = `${label}\0${secret}`;
  let key = derived.get(id);
  if (!key) {
    key = createHmac("sha256", secret).update(label).digest();
    derived.set(id, key);
  }
  return key;
}

const keyOf = (secret: string, purpose: SealPurpose) => derive(secret, `till benefit delivery\0${purpose}`);

export function seal(secret: string, purpose: SealPurpose, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `${SEALED_PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

/** The plain text, or null when it was sealed with another secret or purpose (or is damaged). */
export function unseal(secret: string, purpose: SealPurpose, sealed: string): string | null {
  if (!sealed.startsWith(SEALED_PREFIX)) return null;
  try {
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url");
    const decipher = createDecipheriv("aes-256-gcm", keyOf(secret, purpose), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

/**
 * HMAC-SHA256 (base64url) of `plain` under a key derived from the server secret: finds a row without storing its
 * secret.
 */
export function lookupHash(secret: string, purpose: SealPurpose, plain: string): string {
  return createHmac("sha256", derive(secret, `till lookup\0${purpose}`)).update(plain, "utf8").digest("base64url");
}

// ---- the billing tables' secrets ----------------------------------------------------------------------
// They are written and read deep in domain code (a license key is issued by the grant engine, which every
// purchase, renewal and seat claim reaches), so the secret is registered once for the process rather than
// passed through every caller. One process serves one server secret.

let serverSecret: string | undefined;

/** Registers the server secret the billing tables' secrets are sealed with (buildApp, at start). */
export function useServerSecret(secret: string): void {
  if (serverSecret !== undefined && serverSecret !== secret) {
    throw new Error("till: this process already serves another server secret (one secret per process).");
  }
  serverSecret = secret;
}

function registered(): string {
  if (serverSecret === undefined) throw new Error("till: no server secret registered (useServerSecret) before a stored secret was used.");
  return serverSecret;
}

/** Whether a stored value is sealed (anything else is a clear value written before sealing). */
export const isSealed = (stored: string) => stored.startsWith(SEALED_PREFIX);

export const sealStored = (purpose: StoredSecretPurpose, plain: string) => seal(registered(), purpose, plain);

export const storedLookup = (purpose: StoredSecretPurpose, plain: string) => lookupHash(registered(), purpose, plain);

/**
 * The plain value of a stored secret. A clear one (a row from before sealing, not sealed yet at start) is
 * itself; one that does not open was sealed with another server secret, which start-up refuses (sealed-secrets.ts).
 */
export function openStored(purpose: StoredSecretPurpose, stored: string): string {
  if (!isSealed(stored)) return stored;
  const plain = unseal(registered(), purpose, stored);
  if (plain === null) throw new Error(`till: a ${purpose} sealed with another server secret cannot be read (was TILL_AUTH_SECRET changed?).`);
  return plain;
}
