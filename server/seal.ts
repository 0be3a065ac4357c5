// Credentials at rest (customer OAuth tokens, seller integration secrets, Stripe keys, PKCE verifiers): AES-256-GCM
// with a key derived from the server secret and a purpose, so a database dump alone reads none of them.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

export type SealPurpose = "oauth-token" | "integration" | "pkce" | "stripe";

const keyOf = (secret: string, purpose: SealPurpose) => createHmac("sha256", secret).update(`till benefit delivery\0${purpose}`).digest();

export function seal(secret: string, purpose: SealPurpose, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

/** The plain text, or null when it was sealed with another secret or purpose (or is damaged). */
export function unseal(secret: string, purpose: SealPurpose, sealed: string): string | null {
  if (!sealed.startsWith("v1.")) return null;
  try {
    const raw = Buffer.from(sealed.slice(3), "base64url");
    const decipher = createDecipheriv("aes-256-gcm", keyOf(secret, purpose), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
