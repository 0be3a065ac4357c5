// The verifier's JWKS cache over a rotation (a token of the old key verifies while both keys are published, not once
// it dropped out; a token of the new key makes the cache refetch, at most once per interval) and through an
// unreachable till (the last good JWKS within bounds, then jwks_unavailable); and the built package itself
// (dist/index.js, no import of anything) verifying a token in Node.
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createJwksCache, SnapshotError, type Jwks } from "../../packages/entitlements-verifier/src/index.js";
import { buildVerifier } from "../../packages/entitlements-verifier/build.js";
import { payloadAt, signToken, testKey } from "../helpers/snapshot-tokens.js";

const URL_ = "https://till.example/.well-known/jwks.json?organization_id=x";

/** A JWKS endpoint whose keys the test sets, counting its fetches; `down` answers 503. */
function endpoint(keys: Jwks["keys"]) {
  const state = { keys, fetches: 0, down: false };
  const fetch = async (url: string) => {
    expect(url).toBe(URL_);
    state.fetches++;
    const body = { keys: state.keys };
    return { ok: !state.down, status: state.down ? 503 : 200, json: async () => body };
  };
  return { state, fetch };
}

const codeOf = (p: Promise<unknown>) => p.then(() => "verified", (err: unknown) => (err instanceof SnapshotError ? err.code : String(err)));

describe("rotation through the cache", () => {
  it("old-key tokens verify while both keys are published and not after the old one dropped out", async () => {
    const old = testKey();
    const next = testKey();
    const peer = endpoint([old.jwk]);
    let clock = 1_800_000_000_000;
    const cache = createJwksCache(URL_, { maxAgeSeconds: 300, unknownKidRefetchSeconds: 30, fetch: peer.fetch, now: () => clock });
    const nowSec = () => Math.floor(clock / 1000);
    const oldToken = signToken(payloadAt(nowSec(), 3600), old);
    expect((await cache.verify(oldToken, { now: clock })).check("pro").allowed).toBe(true);
    expect(peer.state.fetches).toBe(1);

    // rotated: till publishes both; a token of the new key is an unknown kid to the cache, which refetches at once
    peer.state.keys = [old.jwk, next.jwk];
    clock += 10_000;
    const newToken = signToken(payloadAt(nowSec(), 3600), next);
    expect(await codeOf(cache.verify(newToken, { now: clock }))).toBe("verified");
    expect(peer.state.fetches).toBe(2);
    expect(await codeOf(cache.verify(oldToken, { now: clock }))).toBe("verified");
    expect(peer.state.fetches).toBe(2);

    // the old key drops out; once the cache's copy is older than its max age, the old token is refused
    peer.state.keys = [next.jwk];
    clock += 301_000;
    expect(await codeOf(cache.verify(oldToken, { now: clock }))).toBe("unknown_kid");
    expect(await codeOf(cache.verify(newToken, { now: clock }))).toBe("verified");
  });

  it("refetches for unknown kids at most once per interval", async () => {
    const known = testKey();
    const peer = endpoint([known.jwk]);
    let clock = 1_800_000_000_000;
    const cache = createJwksCache(URL_, { maxAgeSeconds: 300, unknownKidRefetchSeconds: 30, fetch: peer.fetch, now: () => clock });
    await cache.get();
    const strangers = [testKey(), testKey(), testKey()].map((k) => signToken(payloadAt(Math.floor(clock / 1000)), k));
    clock += 1000;
    for (const token of strangers) expect(await codeOf(cache.verify(token, { now: clock }))).toBe("unknown_kid");
    expect(peer.state.fetches).toBe(2);
    clock += 30_000;
    expect(await codeOf(cache.verify(strangers[0]!, { now: clock }))).toBe("unknown_kid");
    expect(peer.state.fetches).toBe(3);
  });
});

describe("till unreachable", () => {
  it("serves the last good JWKS for maxStaleSeconds past its max age, then refuses with jwks_unavailable", async () => {
    const key = testKey();
    const peer = endpoint([key.jwk]);
    let clock = 1_800_000_000_000;
    const cache = createJwksCache(URL_, { maxAgeSeconds: 300, maxStaleSeconds: 3600, fetch: peer.fetch, now: () => clock });
    await cache.get();
    peer.state.down = true;
    clock += 300_000 + 3_000_000;
    const token = signToken(payloadAt(Math.floor(clock / 1000)), key);
    expect(await codeOf(cache.verify(token, { now: clock }))).toBe("verified");
    expect(cache.fetchedAt()).toBe(1_800_000_000_000);
    clock += 700_000;
    expect(await codeOf(cache.verify(token, { now: clock }))).toBe("jwks_unavailable");
  });

  it("with no JWKS ever fetched: jwks_unavailable (a body that is not a JWKS counts as a failure)", async () => {
    const down = createJwksCache(URL_, { fetch: async () => ({ ok: false, status: 502, json: async () => ({}) }) });
    expect(await codeOf(down.get())).toBe("jwks_unavailable");
    const odd = createJwksCache(URL_, { fetch: async () => ({ ok: true, status: 200, json: async () => ({ keys: "no" }) }) });
    expect(await codeOf(odd.get())).toBe("jwks_unavailable");
  });
});

describe("the built package", () => {
  it("is one ES module importing nothing, and verifies a token in Node", async () => {
    const { js } = await buildVerifier();
    const source = (await import("node:fs")).readFileSync(js, "utf8");
    expect(source).not.toMatch(/^\s*import\s/m);
    expect(source).not.toMatch(/\brequire\(/);
    const built = (await import(`${pathToFileURL(js).href}?t=${Date.now()}`)) as typeof import("../../packages/entitlements-verifier/src/index.js");
    const key = testKey();
    const now = Math.floor(Date.now() / 1000);
    const snapshot = await built.verifySnapshot(signToken(payloadAt(now), key), { keys: [key.jwk] });
    expect(snapshot.check("tokens", 10)).toMatchObject({ allowed: true, balance: 40 });
    await expect(built.verifySnapshot(signToken(payloadAt(now), testKey(), { kid: key.kid }), { keys: [key.jwk] })).rejects.toMatchObject({ code: "bad_signature" });
    // the build runs TypeScript over the sources and the standard library: seconds alone, minutes on a loaded machine
  }, 180_000);
});
