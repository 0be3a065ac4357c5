// An organization's JWKS fetched from till and kept: fresh for `maxAgeSeconds`, refetched at once for a snapshot
// whose kid it lacks (a rotation) but at most once per `unknownKidRefetchSeconds`, and, when till cannot be
// reached, the last good one still used for `maxStaleSeconds` (its keys do not go bad: a retired key only stops
// being needed) before verification fails with `jwks_unavailable`.
import { snapshotKid, SnapshotError, verifySnapshot, type Jwks, type VerifiedSnapshot, type VerifyOptions } from "./verify.js";

export interface JwksCacheOptions {
  /** How long a fetched JWKS is used without asking again (default 300, till's Cache-Control). */
  maxAgeSeconds?: number;
  /** The least time between two refetches for an unknown kid (default 30). */
  unknownKidRefetchSeconds?: number;
  /** How long past `maxAgeSeconds` the last good JWKS serves while fetches fail (default 86400). */
  maxStaleSeconds?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: (url: string) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;
  /** The clock, in milliseconds (default Date.now). */
  now?: () => number;
}

export interface JwksCache {
  /** The JWKS: the cached one while fresh, else fetched (the last good one while fetches fail, within bounds). */
  get(): Promise<Jwks>;
  /** Verifies a snapshot with the cached JWKS, refetching once for a kid it does not know. */
  verify(token: string, options?: VerifyOptions): Promise<VerifiedSnapshot>;
  /** When the JWKS in use was fetched (ms), or null before the first success. */
  fetchedAt(): number | null;
}

const isJwks = (v: unknown): v is Jwks => typeof v === "object" && v !== null && Array.isArray((v as { keys?: unknown }).keys);

export function createJwksCache(url: string, options: JwksCacheOptions = {}): JwksCache {
  const maxAge = (options.maxAgeSeconds ?? 300) * 1000;
  const kidInterval = (options.unknownKidRefetchSeconds ?? 30) * 1000;
  const maxStale = (options.maxStaleSeconds ?? 86_400) * 1000;
  const now = options.now ?? (() => Date.now());
  const fetchJson = options.fetch ?? ((u: string) => globalThis.fetch(u));
  let good: { jwks: Jwks; at: number } | null = null;
  let inFlight: Promise<Jwks> | null = null;
  let lastKidRefetch = -Infinity;

  async function fetchOnce(): Promise<Jwks> {
    try {
      const res = await fetchJson(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = await res.json();
      if (!isJwks(body)) throw new Error("not a JWKS");
      good = { jwks: body, at: now() };
      return body;
    } catch (err) {
      if (good && now() - good.at < maxAge + maxStale) return good.jwks;
      throw new SnapshotError("jwks_unavailable", `The JWKS could not be fetched (${err instanceof Error ? err.message : String(err)}).`);
    }
  }

  function refetch(): Promise<Jwks> {
    inFlight ??= fetchOnce().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  const get = async (): Promise<Jwks> => (good && now() - good.at < maxAge ? good.jwks : refetch());

  async function verify(token: string, verifyOptions: VerifyOptions = {}): Promise<VerifiedSnapshot> {
    const kid = snapshotKid(token);
    const before = good?.at;
    let jwks = await get();
    // a JWKS fetched by this very call is as new as it gets
    const justFetched = good?.at !== before;
    if (!justFetched && !jwks.keys.some((k) => k.kid === kid) && now() - lastKidRefetch >= kidInterval) {
      lastKidRefetch = now();
      jwks = await refetch();
    }
    return verifySnapshot(token, jwks, verifyOptions);
  }

  return { get, verify, fetchedAt: () => good?.at ?? null };
}
