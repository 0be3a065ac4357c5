// A snapshot verified with the platform's WebCrypto alone, and checks answered from it with the same `answer` the
// server's check uses (shared/entitlements.ts). A token is refused, with a typed code, unless it is a compact JWS,
// ES256, of a key of the given JWKS, its signature valid, and its time (iat, exp), organization and issuer as asked.
import { answer, type EntitlementAnswer, type SnapshotPayload } from "../../../shared/entitlements.js";

/** Why a snapshot was refused. */
export type SnapshotErrorCode =
  | "malformed"
  | "unsupported_alg"
  | "wrong_type"
  | "unknown_kid"
  | "bad_signature"
  | "expired"
  | "not_yet_valid"
  | "wrong_organization"
  | "wrong_issuer"
  | "jwks_unavailable";

export class SnapshotError extends Error {
  override readonly name = "SnapshotError";
  constructor(
    readonly code: SnapshotErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A public key of a JWKS (only EC P-256 keys are used). */
export interface Jwk {
  kty: string;
  kid?: string;
  crv?: string;
  x?: string;
  y?: string;
  alg?: string;
  use?: string;
}

export interface Jwks {
  keys: Jwk[];
}

export interface VerifyOptions {
  /** The time to judge by, in milliseconds since the epoch (default: Date.now()). */
  now?: number;
  /** Allowed clock difference between till's server and this one, in seconds (default 30). */
  clockToleranceSeconds?: number;
  /** The till server's URL the snapshot must name as `iss`. */
  issuer?: string;
  /** The organization the snapshot must be of (`org`). */
  organizationId?: string;
  /**
   * Fail open, bounded: a snapshot expired less than this many seconds ago is still accepted, marked `stale`
   * (default 0: an expired snapshot is refused).
   */
  maxStaleSeconds?: number;
}

export interface VerifiedSnapshot {
  payload: SnapshotPayload;
  /** Expired (accepted within `maxStaleSeconds`). */
  stale: boolean;
  /** When it expires, in milliseconds since the epoch. */
  expiresAt: number;
  /** May the customer use `feature` (and `units` of it)? What the server's check answered when it signed. */
  check(feature: string, units?: number | null): EntitlementAnswer;
}

/** The media type of a snapshot's JWS (its `typ` header). */
export const SNAPSHOT_TYP = "till-entitlements+jwt";
const DEFAULT_TOLERANCE_SECONDS = 30;
const B64URL = /^[A-Za-z0-9_-]*$/;

function base64url(part: string): Uint8Array<ArrayBuffer> {
  if (!B64URL.test(part) || part.length % 4 === 1) throw new SnapshotError("malformed", "The token is not base64url.");
  const binary = atob(part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "="));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function jsonPart(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(base64url(part)));
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError("malformed", `The token's ${what} is not JSON.`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new SnapshotError("malformed", `The token's ${what} is not an object.`);
  return value as Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function checkPayload(p: Record<string, unknown>): SnapshotPayload {
  const ent = p.ent;
  const ok =
    typeof p.iss === "string" &&
    typeof p.sub === "string" &&
    typeof p.org === "string" &&
    (p.ext === null || typeof p.ext === "string") &&
    Number.isFinite(p.iat) &&
    Number.isFinite(p.exp) &&
    isObject(ent) &&
    Array.isArray(ent.features) &&
    Array.isArray(ent.meters);
  if (!ok) throw new SnapshotError("malformed", "The token's payload is not an entitlement snapshot.");
  return p as unknown as SnapshotPayload;
}

async function verifySignature(jwk: Jwk, input: string, signature: Uint8Array<ArrayBuffer>): Promise<boolean> {
  if (signature.length !== 64) return false;
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, ext: true }, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
  } catch {
    throw new SnapshotError("unknown_kid", `The JWKS's key ${jwk.kid ?? ""} is not a usable P-256 key.`);
  }
  return crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, signature, new TextEncoder().encode(input));
}

function findKey(jwks: Jwks, kid: string): Jwk {
  const keys = isObject(jwks) && Array.isArray(jwks.keys) ? jwks.keys : [];
  const jwk = keys.find((k) => isObject(k) && k.kid === kid && k.kty === "EC" && k.crv === "P-256" && (k.alg === undefined || k.alg === "ES256") && (k.use === undefined || k.use === "sig"));
  if (!jwk) throw new SnapshotError("unknown_kid", `No key ${kid} in the JWKS.`);
  return jwk;
}

/** The header's `kid`, after checking the token's form, algorithm and type (no signature checked). */
export function snapshotKid(token: string): string {
  if (typeof token !== "string") throw new SnapshotError("malformed", "The token is not a string.");
  const parts = token.split(".");
  if (parts.length !== 3) throw new SnapshotError("malformed", "The token is not a compact JWS (three parts).");
  const header = jsonPart(parts[0]!, "header");
  if (header.alg !== "ES256") throw new SnapshotError("unsupported_alg", `The token's alg ${JSON.stringify(header.alg)} is not ES256.`);
  if (header.crit !== undefined) throw new SnapshotError("malformed", "The token names critical extensions.");
  if (header.typ !== undefined && header.typ !== SNAPSHOT_TYP) throw new SnapshotError("wrong_type", `The token's typ is not ${SNAPSHOT_TYP}.`);
  if (typeof header.kid !== "string" || header.kid === "") throw new SnapshotError("malformed", "The token's header has no kid.");
  return header.kid;
}

function checkClaims(payload: SnapshotPayload, options: VerifyOptions): boolean {
  const now = (options.now ?? Date.now()) / 1000;
  const tolerance = options.clockToleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (options.organizationId !== undefined && payload.org.toLowerCase() !== options.organizationId.toLowerCase()) {
    throw new SnapshotError("wrong_organization", "The snapshot is of another organization.");
  }
  if (options.issuer !== undefined && payload.iss.replace(/\/+$/, "") !== options.issuer.replace(/\/+$/, "")) {
    throw new SnapshotError("wrong_issuer", "The snapshot was signed by another server.");
  }
  if (payload.iat > now + tolerance) throw new SnapshotError("not_yet_valid", "The snapshot was issued in the future (check the clock).");
  if (payload.exp + tolerance > now) return false;
  if (payload.exp + tolerance + (options.maxStaleSeconds ?? 0) > now) return true;
  throw new SnapshotError("expired", "The snapshot has expired.");
}

/** Verifies `token` against `jwks`; throws a SnapshotError (its `code` says why) when it is refused. */
export async function verifySnapshot(token: string, jwks: Jwks, options: VerifyOptions = {}): Promise<VerifiedSnapshot> {
  const kid = snapshotKid(token);
  const [head, body, sig] = token.split(".") as [string, string, string];
  const jwk = findKey(jwks, kid);
  const signature = base64url(sig);
  if (!(await verifySignature(jwk, `${head}.${body}`, signature))) throw new SnapshotError("bad_signature", "The snapshot's signature does not match (tampered, or another key).");
  const payload = checkPayload(jsonPart(body, "payload"));
  const stale = checkClaims(payload, options);
  return { payload, stale, expiresAt: payload.exp * 1000, check: (feature, units) => answer(payload.ent, feature, units) };
}
