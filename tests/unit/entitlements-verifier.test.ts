// The entitlements verifier (packages/entitlements-verifier, from its sources): a snapshot signed as the server
// signs it verifies and answers checks as the server's `answer`; every kind of bad token is refused with its code.
import { describe, expect, it } from "vitest";
import { SnapshotError, verifySnapshot, type Jwks, type SnapshotErrorCode, type VerifyOptions } from "../../packages/entitlements-verifier/src/index.js";
import { b64, ISSUER, ORG, payloadAt, signToken, testKey } from "../helpers/snapshot-tokens.js";

const key = testKey();
const other = testKey();
const jwks: Jwks = { keys: [key.jwk, other.jwk] };
const NOW = 1_800_000_000;
const at = (seconds: number): VerifyOptions => ({ now: seconds * 1000 });

async function refusal(token: string, options: VerifyOptions = at(NOW), keys: Jwks = jwks): Promise<SnapshotErrorCode> {
  try {
    await verifySnapshot(token, keys, options);
  } catch (err) {
    if (err instanceof SnapshotError) return err.code;
    throw err;
  }
  throw new Error("verified");
}

describe("a good snapshot", () => {
  it("verifies and answers checks from its entitlements", async () => {
    const payload = payloadAt(NOW);
    const snapshot = await verifySnapshot(signToken(payload, key), jwks, { ...at(NOW), issuer: ISSUER, organizationId: ORG.toUpperCase() });
    expect(snapshot.payload).toEqual(payload);
    expect(snapshot.stale).toBe(false);
    expect(snapshot.expiresAt).toBe((NOW + 300) * 1000);
    expect(snapshot.check("pro")).toMatchObject({ allowed: true, kind: "feature_flag", reason: null });
    expect(snapshot.check("tokens", 40)).toMatchObject({ allowed: true, kind: "meter", balance: 40, limit: 100, units: 40 });
    expect(snapshot.check("tokens", 41)).toMatchObject({ allowed: false, reason: "insufficient_balance" });
    expect(snapshot.check("enterprise")).toMatchObject({ allowed: false, reason: "no_benefit" });
  });

  it("accepts an issuer written with a trailing slash, and clocks apart within the tolerance", async () => {
    const token = signToken(payloadAt(NOW), key);
    await expect(verifySnapshot(token, jwks, { ...at(NOW - 20), issuer: `${ISSUER}/` })).resolves.toBeTruthy();
    await expect(verifySnapshot(token, jwks, at(NOW + 300 + 20))).resolves.toBeTruthy();
  });
});

describe("refusals", () => {
  it("a token that is not a compact JWS: malformed", async () => {
    const good = signToken(payloadAt(NOW), key);
    expect(await refusal("")).toBe("malformed");
    expect(await refusal("a.b")).toBe("malformed");
    expect(await refusal(`${good}.x`)).toBe("malformed");
    expect(await refusal(`!!.${good.split(".").slice(1).join(".")}`)).toBe("malformed");
    expect(await refusal(`${b64("not json")}.${good.split(".").slice(1).join(".")}`)).toBe("malformed");
    expect(await refusal(`${b64([1])}.${good.split(".").slice(1).join(".")}`)).toBe("malformed");
    expect(await refusal(signToken(payloadAt(NOW), key, { kid: undefined }))).toBe("malformed");
    expect(await refusal(signToken(payloadAt(NOW), key, { crit: ["exp"] }))).toBe("malformed");
    expect(await refusal(123 as unknown as string)).toBe("malformed");
  });

  it("a signed payload that is not a snapshot: malformed", async () => {
    expect(await refusal(signToken({ hello: "world" }, key))).toBe("malformed");
    expect(await refusal(signToken({ ...payloadAt(NOW), ent: { features: [] } }, key))).toBe("malformed");
    expect(await refusal(signToken("just a string", key))).toBe("malformed");
  });

  it("any alg but ES256, none included: unsupported_alg", async () => {
    const [, body] = signToken(payloadAt(NOW), key).split(".");
    expect(await refusal(`${b64({ alg: "none", kid: key.kid })}.${body}.`)).toBe("unsupported_alg");
    expect(await refusal(`${b64({ alg: "HS256", kid: key.kid })}.${body}.c2ln`)).toBe("unsupported_alg");
    expect(await refusal(signToken(payloadAt(NOW), key, { alg: "ES384" }))).toBe("unsupported_alg");
    expect(await refusal(signToken(payloadAt(NOW), key, { alg: undefined }))).toBe("unsupported_alg");
  });

  it("a JWS of another type: wrong_type", async () => {
    expect(await refusal(signToken(payloadAt(NOW), key, { typ: "JWT" }))).toBe("wrong_type");
  });

  it("a kid the JWKS does not have (or only as a key of another kind): unknown_kid", async () => {
    const stranger = testKey();
    expect(await refusal(signToken(payloadAt(NOW), stranger))).toBe("unknown_kid");
    expect(await refusal(signToken(payloadAt(NOW), key), at(NOW), { keys: [{ ...key.jwk, alg: "RS256" }] })).toBe("unknown_kid");
    expect(await refusal(signToken(payloadAt(NOW), key), at(NOW), { keys: [{ ...key.jwk, crv: "P-384" }] })).toBe("unknown_kid");
    expect(await refusal(signToken(payloadAt(NOW), key), at(NOW), { keys: [{ ...key.jwk, x: "AAAA" }] })).toBe("unknown_kid");
    expect(await refusal(signToken(payloadAt(NOW), key), at(NOW), {} as { keys: [] })).toBe("unknown_kid");
  });

  it("a signature of another key, or none: bad_signature", async () => {
    const forged = signToken(payloadAt(NOW), other, { kid: key.kid });
    expect(await refusal(forged)).toBe("bad_signature");
    const [head, body] = forged.split(".");
    expect(await refusal(`${head}.${body}.`)).toBe("bad_signature");
    expect(await refusal(`${head}.${body}.${b64("short")}`)).toBe("bad_signature");
  });

  it("a tampered payload (more balance, another customer) or header: bad_signature", async () => {
    const payload = payloadAt(NOW);
    const [head, , sig] = signToken(payload, key).split(".");
    const richer = { ...payload, ent: { ...payload.ent, meters: [{ ...payload.ent.meters[0]!, balance: 1_000_000 }] } };
    expect(await refusal(`${head}.${b64(richer)}.${sig}`)).toBe("bad_signature");
    expect(await refusal(`${head}.${b64({ ...payload, sub: "someone-else" })}.${sig}`)).toBe("bad_signature");
    expect(await refusal(`${b64({ alg: "ES256", kid: key.kid })}.${b64(payload)}.${sig}`)).toBe("bad_signature");
  });

  it("past exp beyond the tolerance: expired (fail closed), unless within maxStaleSeconds (stale)", async () => {
    const token = signToken(payloadAt(NOW, 60), key);
    expect(await refusal(token, at(NOW + 60 + 31))).toBe("expired");
    expect(await refusal(token, { ...at(NOW + 61), clockToleranceSeconds: 0 })).toBe("expired");
    const stale = await verifySnapshot(token, jwks, { ...at(NOW + 60 + 31), maxStaleSeconds: 600 });
    expect(stale.stale).toBe(true);
    expect(stale.check("pro").allowed).toBe(true);
    expect(await refusal(token, { ...at(NOW + 60 + 30 + 601), maxStaleSeconds: 600 })).toBe("expired");
  });

  it("issued in the future beyond the tolerance: not_yet_valid", async () => {
    expect(await refusal(signToken(payloadAt(NOW + 31), key))).toBe("not_yet_valid");
    expect(await refusal(signToken(payloadAt(NOW + 5), key), { ...at(NOW), clockToleranceSeconds: 0 })).toBe("not_yet_valid");
  });

  it("another organization or issuer than asked: wrong_organization, wrong_issuer", async () => {
    const token = signToken(payloadAt(NOW), key);
    expect(await refusal(token, { ...at(NOW), organizationId: "00000000-0000-4000-8000-000000000000" })).toBe("wrong_organization");
    expect(await refusal(token, { ...at(NOW), issuer: "https://evil.example" })).toBe("wrong_issuer");
  });
});
