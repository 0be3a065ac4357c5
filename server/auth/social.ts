// Social sign-in and linked accounts, where better-auth 1.7 differs from the product spec.
// Linked-account calls also take the spec's shape (its linked-account calls): an account is named by providerId (plus,
// optionally, accountId: the provider's id of the account), and account-info is also a POST. better-auth 1.7 names an
// account by its row id only (accountId) and serves account-info as a GET; both shapes work. The spec's provider errors
// come with the spec's shape: "Provider {id} is not supported." from get-access-token, "Provider {id} not found." from
// refresh-token. A callback whose state cannot be one of ours is answered state_mismatch before it reaches the
// database.
import type { BetterAuthPlugin } from "better-auth";
import {
  APIError,
  accountInfo,
  createAuthEndpoint,
  createAuthMiddleware,
  getSessionFromCtx,
  sessionMiddleware,
} from "better-auth/api";
import { z } from "zod";

type Body = Record<string, unknown>;
interface StoredAccount {
  id: string;
  providerId: string;
  accountId: string;
}

const ACCOUNT_NOT_FOUND = { message: "Account not found", code: "ACCOUNT_NOT_FOUND" };
const TOKEN_PATHS = new Set(["/get-access-token", "/refresh-token"]);

const bodyOf = (ctx: { body?: unknown }): Body | undefined =>
  ctx.body !== null && typeof ctx.body === "object" ? (ctx.body as Body) : undefined;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The account of `providerId`; `accountId` may be the provider's account id or the row id. */
function pick(accounts: StoredAccount[], providerId: string, accountId: string | undefined) {
  return accounts.find(
    (a) => a.providerId === providerId && (accountId === undefined || a.accountId === accountId || a.id === accountId),
  );
}

/** Providers may be registered lazily (a function returning the provider), as better-auth allows. */
async function providerConfigured(providers: unknown[], id: string): Promise<boolean> {
  for (const p of providers) {
    const provider = (typeof p === "function" ? await (p as () => unknown)() : p) as { id?: string } | undefined;
    if (provider?.id === id) return true;
  }
  return false;
}

/**
 * get-access-token and refresh-token over HTTP: without a session, "Either userId or session is required"
 * when no userId is named either (the spec's error catalogue); a userId alone is not enough from a client (better-auth
 * trusts it only from the server itself), so that is 401 — with a body in the spec's shape (error-shape.ts).
 */
const sessionOrUserId = createAuthMiddleware(async (ctx) => {
  if (!ctx.request && !ctx.headers) return;
  if (await getSessionFromCtx(ctx)) return;
  if (str(bodyOf(ctx)?.userId) === undefined) {
    throw APIError.from("BAD_REQUEST", { message: "Either userId or session is required", code: "USER_ID_OR_SESSION_REQUIRED" });
  }
  throw APIError.from("UNAUTHORIZED", { message: "Unauthorized", code: "UNAUTHORIZED" });
});

// The hooks rewrite the request body in place: a hook's returned context is merged into the request with
// defaults semantics, which cannot drop providerId, and better-auth's account selection is a strict object.
const tokenCallsBySpecShape = createAuthMiddleware(async (ctx) => {
  const body = bodyOf(ctx) as Body;
  const providerId = str(body.providerId) as string;
  const session = await getSessionFromCtx(ctx);
  const userId = session?.user.id ?? str(body.userId);
  if (!userId) return; // sessionOrUserId answered (an HTTP call); a server-side call gets better-auth's answer
  if (!(await providerConfigured(ctx.context.socialProviders, providerId))) {
    throw ctx.path === "/refresh-token"
      ? APIError.from("BAD_REQUEST", { message: `Provider ${providerId} not found.`, code: "PROVIDER_NOT_FOUND" })
      : APIError.from("BAD_REQUEST", {
          message: `Provider ${providerId} is not supported.`,
          code: "PROVIDER_NOT_SUPPORTED",
        });
  }
  const found = pick(await ctx.context.internalAdapter.findAccounts(userId), providerId, str(body.accountId));
  if (!found) throw APIError.from("BAD_REQUEST", ACCOUNT_NOT_FOUND);
  delete body.providerId;
  body.accountId = found.id;
});

const unlinkBySpecShape = createAuthMiddleware(async (ctx) => {
  const body = bodyOf(ctx) as Body;
  const providerId = str(body.providerId) as string;
  const accountId = str(body.accountId);
  delete body.providerId;
  const session = await getSessionFromCtx(ctx);
  const accounts = session ? await ctx.context.internalAdapter.findAccounts(session.user.id) : [];
  // "" names no row, so better-auth still answers in its order: no session, last account, Account not found
  body.accountId = pick(accounts, providerId, accountId)?.id ?? "";
});

/** The spec's shape: providerId, and accountId absent or a string (anything else is left to validation). */
const specShaped = (ctx: { body?: unknown }) => {
  const body = bodyOf(ctx);
  return str(body?.providerId) !== undefined && (body?.accountId === undefined || str(body.accountId) !== undefined);
};

/** States are better-auth's 32-character random strings; anything else (a NUL byte made PostgreSQL fail,
 *  which better-auth reported as internal_server_error) is simply not a state it issued. */
const STATE_ALPHABET = /^[A-Za-z0-9_-]*$/;
const foreignState = createAuthMiddleware(async (ctx) => {
  throw ctx.redirect(`${ctx.context.baseURL}/error?error=state_mismatch`);
});
const stateOf = (ctx: { query?: unknown; body?: unknown }) =>
  str((ctx.query as Body | undefined)?.state) ?? str(bodyOf(ctx)?.state);

export const socialSpec = () =>
  ({
    id: "till-social",
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === "/callback/:id" && !STATE_ALPHABET.test(stateOf(ctx) ?? ""),
          handler: foreignState,
        },
        { matcher: (ctx) => TOKEN_PATHS.has(ctx.path ?? ""), handler: sessionOrUserId },
        { matcher: (ctx) => TOKEN_PATHS.has(ctx.path ?? "") && specShaped(ctx), handler: tokenCallsBySpecShape },
        { matcher: (ctx) => ctx.path === "/unlink-account" && specShaped(ctx), handler: unlinkBySpecShape },
      ],
    },
    endpoints: {
      accountInfoByPost: createAuthEndpoint(
        "/account-info",
        {
          method: "POST",
          body: z.object({ accountId: z.string() }),
          use: [sessionMiddleware],
          metadata: {
            openapi: {
              description: "Get the account info provided by the provider (accountId: the provider's account id)",
            },
          },
        },
        async (ctx) => {
          const accounts = await ctx.context.internalAdapter.findAccounts(ctx.context.session.user.id);
          const found = accounts.find((a) => a.accountId === ctx.body.accountId || a.id === ctx.body.accountId);
          if (!found) throw APIError.from("BAD_REQUEST", ACCOUNT_NOT_FOUND);
          // the GET endpoint does the token refresh and the provider call; called directly it skips hooks
          return accountInfo({ headers: ctx.headers, context: ctx.context, query: { accountId: found.id } });
        },
      ),
    },
  }) satisfies BetterAuthPlugin;
