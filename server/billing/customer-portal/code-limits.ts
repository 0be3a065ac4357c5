// Throttles of the portal's sign-in by email (TILL_RATE_LIMIT): code requests per client address and per
// email, wrong codes per client address. Counted in the shared rate_limit table, so across replicas. The
// lock of a single code after five wrong tries is in sessions.ts and always on.
import type { FastifyReply } from "fastify";
import type { Db } from "../../db/client.js";
import { rateLimitStore, type Limit } from "../../http/rate-limit.js";

/** Code requests from one client address. */
export const REQUESTS_PER_ADDRESS: Limit = { window: 600, max: 20 };
/** Code requests for one email of one organization (whether or not a customer has it): one code's lifetime. */
export const REQUESTS_PER_EMAIL: Limit = { window: 1800, max: 5 };
/** Wrong codes from one client address. */
export const WRONG_CODES_PER_ADDRESS: Limit = { window: 600, max: 10 };

export interface CodeLimits {
  /** Counts a code request; the seconds to wait when it is one too many, else null. */
  request(ip: string, organizationId: string, email: string): Promise<number | null>;
  /** The seconds to wait when this address has guessed wrong too often, else null. Counts nothing. */
  guessesBlocked(ip: string): Promise<number | null>;
  wrongGuess(ip: string): Promise<void>;
}

export function codeLimits(db: Db, enabled: boolean): CodeLimits {
  const store = rateLimitStore(db);
  if (!enabled) return { request: async () => null, guessesBlocked: async () => null, wrongGuess: async () => {} };
  return {
    async request(ip, organizationId, email) {
      const byAddress = await store.consume(`portal-code-request:ip:${ip}`, REQUESTS_PER_ADDRESS);
      const byEmail = await store.consume(`portal-code-request:email:${organizationId.toLowerCase()}:${email.toLowerCase()}`, REQUESTS_PER_EMAIL);
      const waits = [byAddress, byEmail].filter((r) => !r.allowed).map((r) => r.retryAfter ?? 1);
      return waits.length > 0 ? Math.max(...waits) : null;
    },
    guessesBlocked: (ip) => store.blocked(`portal-code-guess:ip:${ip}`, WRONG_CODES_PER_ADDRESS),
    async wrongGuess(ip) {
      await store.consume(`portal-code-guess:ip:${ip}`, WRONG_CODES_PER_ADDRESS);
    },
  };
}

/** Polar's error shape, with the wait in Retry-After. */
export function tooManyRequests(reply: FastifyReply, wait: number): FastifyReply {
  return reply
    .status(429)
    .header("retry-after", String(wait))
    .send({ error: "TooManyRequests", detail: `Too many requests. Try again in ${wait} seconds.` });
}
