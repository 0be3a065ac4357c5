// Rate-limit counters in the database (table rate_limit), so every replica on one PostgreSQL counts together,
// and a restart forgets nothing. Fixed windows: the first hit of a key opens a window of `window` seconds;
// each hit in it adds one, in a single upsert (concurrent hits serialise on the row, none is lost).
// better-auth's limiter uses it as its custom storage; the account and portal limits use it directly.
// A key is stored as its SHA-256: better-auth's keys are the client address and the request's path, and a path
// may carry a credential (/api/auth/reset-password/{token}); others hold an email address.
import { createHash } from "node:crypto";
import { lt, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { rateLimit } from "../db/schema/index.js";

/** `max` hits per `window` seconds. */
export interface Limit {
  window: number;
  max: number;
}

export interface RateLimitStore {
  /** Counts one hit; allowed while the window holds at most `max` (better-auth's storage contract). */
  consume(key: string, limit: Limit): Promise<{ allowed: boolean; retryAfter: number | null }>;
  /** Seconds until `key` may be hit again when its window already holds `max` hits, else null. Counts nothing. */
  blocked(key: string, limit: Limit): Promise<number | null>;
}

/** What the table's `key` holds for a key: its hex SHA-256 (nothing a dump can use or read). */
export const storedRateLimitKey = (key: string) => createHash("sha256").update(`till rate limit\0${key}`).digest("hex");

/** Expired rows are deleted at most this often, by whichever request comes. */
const PRUNE_EVERY_MS = 60_000;

export function rateLimitStore(db: Db): RateLimitStore {
  let prunedAt = 0;
  async function prune(): Promise<void> {
    if (Date.now() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = Date.now();
    await db.delete(rateLimit).where(lt(rateLimit.resetAt, sql`clock_timestamp()`));
  }

  return {
    async consume(plainKey, { window, max }) {
      await prune();
      const key = storedRateLimitKey(plainKey);
      const now = sql`clock_timestamp()`;
      const end = sql`clock_timestamp() + ${window} * interval '1 second'`;
      const expired = sql`${rateLimit.resetAt} <= ${now}`;
      const [row] = await db
        .insert(rateLimit)
        .values({ key, count: 1, resetAt: end })
        .onConflictDoUpdate({
          target: rateLimit.key,
          set: {
            count: sql`CASE WHEN ${expired} THEN 1 ELSE ${rateLimit.count} + 1 END`,
            resetAt: sql`CASE WHEN ${expired} THEN ${end} ELSE ${rateLimit.resetAt} END`,
          },
        })
        .returning({ count: rateLimit.count, wait: sql<number>`ceil(extract(epoch FROM ${rateLimit.resetAt} - ${now}))::int` });
      if (!row || row.count <= max) return { allowed: true, retryAfter: null };
      return { allowed: false, retryAfter: Math.max(1, row.wait) };
    },

    async blocked(plainKey, { max }) {
      const key = storedRateLimitKey(plainKey);
      const [row] = await db
        .select({ count: rateLimit.count, wait: sql<number>`ceil(extract(epoch FROM ${rateLimit.resetAt} - clock_timestamp()))::int` })
        .from(rateLimit)
        .where(sql`${rateLimit.key} = ${key} AND ${rateLimit.resetAt} > clock_timestamp()`);
      return row && row.count >= max ? Math.max(1, row.wait) : null;
    },
  };
}
