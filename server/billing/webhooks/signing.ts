// Standard Webhooks signatures (webhook-id, webhook-timestamp, webhook-signature) for outbound deliveries
// and the inbound Polar endpoint. Polar's SDK 0.x derives the HMAC key from the UTF-8 bytes of the whole secret,
// while Standard Webhooks libraries (and SDK 1.x) base64-decode what follows `whsec_`: till signs with both keys,
// space-separated, so every receiver finds its signature.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SECRET_PREFIX = "whsec_";
/** Receivers refuse timestamps further than this from their clock (the product spec's limit). */
export const TIMESTAMP_TOLERANCE_S = 300;

/** A new endpoint secret: `whsec_` + 32 random bytes in base64, valid under both key derivations. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

/**
 * The HMAC keys a receiver may derive from `secret`: its UTF-8 bytes, and the base64 after `whsec_` if it is base64.
 */
export function signingKeys(secret: string): Buffer[] {
  const keys = [Buffer.from(secret, "utf8")];
  const rest = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : "";
  if (rest && BASE64.test(rest)) {
    const decoded = Buffer.from(rest, "base64");
    if (decoded.length > 0) keys.push(decoded);
  }
  return keys;
}

function hmac(key: Buffer, id: string, timestamp: number, body: Buffer | string): Buffer {
  return createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
}

export interface WebhookHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** The three headers of one attempt; the timestamp is the attempt's own (receivers check it against their clock). */
export function signHeaders(keys: Buffer[], id: string, body: string, now = Date.now()): WebhookHeaders {
  const timestamp = Math.floor(now / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": keys.map((k) => `v1,${hmac(k, id, timestamp, body).toString("base64")}`).join(" "),
  };
}

/** The messages of Standard Webhooks' verify (the product spec's errors), each with the status till answers it with. */
export const VERIFY_ERRORS = {
  missingHeaders: { status: 400, message: "Missing required headers" },
  invalidHeaders: { status: 400, message: "Invalid Signature Headers" },
  tooOld: { status: 401, message: "Message timestamp too old" },
  tooNew: { status: 401, message: "Message timestamp too new" },
  noMatch: { status: 401, message: "No matching signature found" },
} as const;
export type VerifyError = (typeof VERIFY_ERRORS)[keyof typeof VERIFY_ERRORS];

export type VerifyResult = { ok: true; id: string; timestamp: number } | { ok: false; error: VerifyError };

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Verifies a received webhook like Standard Webhooks does, accepting a signature under either key derivation. */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  nowMs = Date.now(),
): VerifyResult {
  const id = header(headers, "webhook-id");
  const timestampHeader = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestampHeader || !signatures) return { ok: false, error: VERIFY_ERRORS.missingHeaders };
  if (!/^\d{1,15}$/.test(timestampHeader.trim())) return { ok: false, error: VERIFY_ERRORS.invalidHeaders };
  const timestamp = Number(timestampHeader.trim());
  const now = Math.floor(nowMs / 1000);
  if (now - timestamp > TIMESTAMP_TOLERANCE_S) return { ok: false, error: VERIFY_ERRORS.tooOld };
  if (timestamp > now + TIMESTAMP_TOLERANCE_S) return { ok: false, error: VERIFY_ERRORS.tooNew };
  const expected = signingKeys(secret).map((k) => hmac(k, id, timestamp, body));
  for (const versioned of signatures.split(" ")) {
    const [version, signature] = versioned.split(",");
    if (version !== "v1" || !signature) continue;
    const given = Buffer.from(signature, "base64");
    if (expected.some((e) => e.length === given.length && timingSafeEqual(e, given))) return { ok: true, id, timestamp };
  }
  return { ok: false, error: VERIFY_ERRORS.noMatch };
}
