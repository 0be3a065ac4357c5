// Snapshot tokens for the verifier's tests: keys made and tokens signed the way the server does
// (server/billing/entitlements/jws.ts), plus the header, payload or signature a test wants to get wrong.
import { sign, type KeyObject } from "node:crypto";
import type { SnapshotPayload } from "../../shared/entitlements.js";
import { generateKey, privateKeyOf, SNAPSHOT_TYP } from "../../server/billing/entitlements/jws.js";

export interface TestKey {
  kid: string;
  key: KeyObject;
  jwk: { kty: "EC"; crv: "P-256"; x: string; y: string; kid: string; alg: "ES256"; use: "sig" };
}

export function testKey(): TestKey {
  const made = generateKey();
  return { kid: made.kid, key: privateKeyOf(made.privateJwk), jwk: { ...made.publicJwk, kid: made.kid, alg: "ES256", use: "sig" } };
}

export const b64 = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

export const ORG = "6f1c7d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f";
export const ISSUER = "https://till.example";

export function payloadAt(nowSeconds: number, ttl = 300, over: Partial<SnapshotPayload> = {}): SnapshotPayload {
  return {
    iss: ISSUER,
    sub: "1d2e3f40-5a6b-4c7d-8e9f-a0b1c2d3e4f5",
    org: ORG,
    ext: "user_42",
    iat: nowSeconds,
    exp: nowSeconds + ttl,
    ent: {
      features: [{ benefit_id: "0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e", key: "pro" }],
      meters: [{ meter_id: "5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716", name: "tokens", balance: 40, limit: 100, held: 0, overage: "credit_only" }],
    },
    ...over,
  };
}

/** A compact JWS of `payload` signed by `key`; `header` replaces or adds header members. */
export function signToken(payload: unknown, key: TestKey, header: Record<string, unknown> = {}): string {
  const input = `${b64({ alg: "ES256", kid: key.kid, typ: SNAPSHOT_TYP, ...header })}.${b64(payload)}`;
  return `${input}.${sign("sha256", Buffer.from(input), { key: key.key, dsaEncoding: "ieee-p1363" }).toString("base64url")}`;
}
