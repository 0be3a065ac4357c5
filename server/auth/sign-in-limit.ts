// Failed sign-ins per account, whichever address they come from: better-auth limits each client address,
// which a guesser with many addresses walks around. Past `max` failed sign-ins (wrong password, unknown
// account alike) for one email or username within the window, every sign-in of that name is answered 429 until
// the window ends — the right password too, or guessing would go on. Counted in the shared store, so across
// replicas.
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";
import type { Limit, RateLimitStore } from "../http/rate-limit.js";

export const ACCOUNT_LOCKED = {
  // the spec's rule: the code is the upper-cased message
  message: "Too many failed sign-in attempts",
  code: "TOO_MANY_FAILED_SIGN_IN_ATTEMPTS",
};

const SIGN_IN_FIELD: Record<string, string> = { "/sign-in/email": "email", "/sign-in/username": "username" };

/** The account a sign-in names, as the key its failures count under (names compare case-insensitively). */
function accountKey(ctx: { path?: string; body?: unknown }): string | null {
  const field = SIGN_IN_FIELD[ctx.path ?? ""];
  const body = ctx.body !== null && typeof ctx.body === "object" ? (ctx.body as Record<string, unknown>) : undefined;
  const value = field ? body?.[field] : undefined;
  if (typeof value !== "string" || value.trim() === "") return null;
  return `sign-in:${field}:${value.trim().toLowerCase()}`;
}

export function signInLimit(store: RateLimitStore, limit: Limit) {
  return {
    id: "till-sign-in-limit",
    hooks: {
      before: [
        {
          matcher: (ctx) => accountKey(ctx) !== null,
          handler: createAuthMiddleware(async (ctx) => {
            const wait = await store.blocked(accountKey(ctx) as string, limit);
            if (wait === null) return;
            const retry = String(wait);
            throw new APIError("TOO_MANY_REQUESTS", ACCOUNT_LOCKED, { "Retry-After": retry, "X-Retry-After": retry });
          }),
        },
      ],
      after: [
        {
          matcher: (ctx) => accountKey(ctx) !== null,
          handler: createAuthMiddleware(async (ctx) => {
            const returned: unknown = ctx.context.returned;
            // wrong credentials are 401; a refused request (validation, unverified email) is no guess
            if (isAPIError(returned) && returned.statusCode === 401) await store.consume(accountKey(ctx) as string, limit);
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
