// The last word on the shape of an error /api/auth answers (the product spec's error catalogue): every JSON error
// carries a `message` and a `code`, the code being the upper-cased form of the message. better-auth answers some
// refusals with a bare status and a body of `null` (a missing session on get-access-token, refresh-token,
// organization/create, admin/list-user-sessions), and some messages without a code ("Email is the same", "No fields to
// update"). "Session is not fresh" is 400 as the spec's table says (better-auth: 403), and so is a bad or expired
// verify-email token without a callback to redirect to (better-auth: 401). Statuses are set here because better-auth
// answers with the endpoint's first status whatever an after hook throws.
import { STATUS_CODES } from "node:http";

/** The spec's code of a message: its upper-cased form, words joined by "_". */
export function codeOf(message: string): string {
  return message
    .replace(/'/g, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** Messages whose upper-cased form would be a sentence rather than a code. */
const CODE_OF_MESSAGE: Record<string, string> = {
  "Too many requests. Please try again later.": "TOO_MANY_REQUESTS",
};

/** better-auth codes answered with another status than the spec's: by code, or by route and code. */
const SPEC_STATUS: Record<string, number> = { SESSION_NOT_FRESH: 400 };
const SPEC_STATUS_OF_ROUTE: Record<string, Record<string, number>> = {
  "/verify-email": { INVALID_TOKEN: 400, TOKEN_EXPIRED: 400 },
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The status and body an error answer of /api/auth goes out with (`route`: the path under /api/auth); null
 * when it stays as it is (not an error, not JSON, or already in the spec's shape).
 */
export function specErrorAnswer(
  route: string,
  status: number,
  contentType: string | null,
  payload: Buffer | null,
): { status: number; payload: Buffer } | null {
  if (status < 400) return null;
  const text = payload?.toString("utf8") ?? "";
  if (text.trim() !== "" && !/json/i.test(contentType ?? "")) return null;
  let parsed: unknown = null;
  try {
    parsed = text.trim() === "" ? null : JSON.parse(text);
  } catch {
    return null;
  }
  if (parsed !== null && !isRecord(parsed)) return null;
  // an OAuth error (RFC 6749 §5.2, RFC 8628 §3.5: the device flow's token endpoint) keeps its own shape
  if (isRecord(parsed) && typeof parsed.error === "string" && parsed.message === undefined) return null;
  const body: Record<string, unknown> = { ...(parsed ?? {}) };
  if (typeof body.message !== "string" || body.message === "") body.message = STATUS_CODES[status] ?? "Error";
  const message = body.message as string;
  if (typeof body.code !== "string" || body.code === "") body.code = CODE_OF_MESSAGE[message] ?? codeOf(message);
  const code = body.code as string;
  const nextStatus = SPEC_STATUS_OF_ROUTE[route]?.[code] ?? SPEC_STATUS[code] ?? status;
  const unchanged = nextStatus === status && isRecord(parsed) && parsed.message === body.message && parsed.code === body.code;
  return unchanged ? null : { status: nextStatus, payload: Buffer.from(JSON.stringify(body)) };
}
