// The signing side of entitlement snapshots with the platform's crypto alone: ES256 key pairs (P-256), their JWK
// thumbprints (RFC 7638) as `kid`, and compact JWS (RFC 7515) whose signature is r‖s, as JOSE and WebCrypto read it.
import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import type { PublicEcJwk } from "../../db/schema/entitlements.js";

/** The JWS `typ` of a snapshot: a verifier refuses a token of the same key meant for something else. */
export const SNAPSHOT_TYP = "till-entitlements+jwt";

export interface GeneratedKey {
  kid: string;
  publicJwk: PublicEcJwk;
  /** The private key's JWK as JSON (to be sealed at once: never stored or logged in clear). */
  privateJwk: string;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

/** RFC 7638: SHA-256 of the required members in lexical order, base64url. */
export function thumbprint(jwk: PublicEcJwk): string {
  return b64url(createHash("sha256").update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest());
}

export function generateKey(): GeneratedKey {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pub = publicKey.export({ format: "jwk" });
  if (pub.kty !== "EC" || pub.crv !== "P-256" || !pub.x || !pub.y) throw new Error("till: an EC key pair did not export as a P-256 JWK");
  const publicJwk: PublicEcJwk = { kty: "EC", crv: "P-256", x: pub.x, y: pub.y };
  return { kid: thumbprint(publicJwk), publicJwk, privateJwk: JSON.stringify(privateKey.export({ format: "jwk" })) };
}

export const privateKeyOf = (privateJwk: string): KeyObject => createPrivateKey({ key: JSON.parse(privateJwk) as Record<string, string>, format: "jwk" });

/** A compact JWS of `payload`, ES256, header `{alg, kid, typ}`. */
export function signCompact(payload: unknown, kid: string, key: KeyObject): string {
  const input = `${b64url(JSON.stringify({ alg: "ES256", kid, typ: SNAPSHOT_TYP }))}.${b64url(JSON.stringify(payload))}`;
  const signature = sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
  return `${input}.${b64url(signature)}`;
}
