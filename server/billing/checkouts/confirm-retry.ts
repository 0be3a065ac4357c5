// A confirm retried after its answer was lost. Only a provably identical request gets the first answer again:
// one that sends the same Idempotency-Key (server/http/idempotency.ts replays the stored answer), or the same
// confirm — its payment confirmation token and every other field — again within RETRY_WINDOW_MS. A processor's token is
// unguessable and made for one payment (the test processor's carries a random part, like Stripe's ids), so holding it
// proves the request came from the page that paid; the buyer's email, name and card details prove nothing (they may be
// known to whoever found the checkout's URL). The retry gets the first answer's portal session token, never a new one:
// it is kept in the checkout's `confirmation_hash`, sealed with a key derived from the confirmation token, which is
// stored only as its hash — the row alone opens nothing.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { CheckoutConfirmInput } from "./input.js";
import type { CheckoutRow } from "./wire.js";

/** How long after the first confirm the same token is answered with it. */
export const RETRY_WINDOW_MS = 5 * 60 * 1000;

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const keyOf = (checkoutId: string, confirmationToken: string) =>
  createHmac("sha256", confirmationToken).update(`till confirm answer\0${checkoutId}`).digest();

/** The confirm request as parsed (token and fields, in the schema's key order): what a retry repeats. */
const requestHash = (input: CheckoutConfirmInput) => sha256(JSON.stringify(input));

/**
 * What `confirmation_hash` stores for a confirm that completed a checkout: the request's hash (its token
 * included) and the portal session token it answered, sealed. Null for a confirm without a token (a free
 * checkout): only an Idempotency-Key makes its retry.
 */
export function confirmationRecord(checkoutId: string, input: CheckoutConfirmInput, sessionToken: string | null): string | null {
  const confirmationToken = input.confirmation_token_id;
  if (!confirmationToken) return null;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(checkoutId, confirmationToken), iv);
  const body = Buffer.concat([cipher.update(sessionToken ?? "", "utf8"), cipher.final()]);
  return `${requestHash(input)}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

/**
 * A retry of the confirm that completed `row`: its answer's session token (null when it had none); undefined when not
 * one.
 */
export function retriedAnswer(row: CheckoutRow, input: CheckoutConfirmInput, wallNow: Date): { sessionToken: string | null } | undefined {
  const confirmationToken = input.confirmation_token_id;
  if (!confirmationToken || !row.confirmationHash) return undefined;
  if (row.status !== "succeeded" && row.status !== "confirmed") return undefined;
  if (row.modifiedAt === null || wallNow.getTime() - row.modifiedAt.getTime() >= RETRY_WINDOW_MS) return undefined;
  const [hash, sealed] = row.confirmationHash.split(".");
  if (!hash || !sealed || hash.length !== 64) return undefined;
  if (!timingSafeEqual(Buffer.from(hash), Buffer.from(requestHash(input)))) return undefined;
  try {
    const raw = Buffer.from(sealed, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", keyOf(row.id, confirmationToken), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const token = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    return { sessionToken: token === "" ? null : token };
  } catch {
    return undefined;
  }
}
