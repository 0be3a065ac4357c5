// Revoking a session by the handle list-sessions shows. Session tokens are stored hashed (stored-tokens.ts), so
// list-sessions (and the admin's list-user-sessions) can only show each session's stored hash as its `token`: an
// opaque handle, no credential (the adapter hashes every token it is given, so a handle matches nothing there).
// better-auth revokes by looking the token up as a credential, and compares it with the current session's raw
// token; so revoke-session and revoke-other-sessions are replaced here (same paths, bodies and answers) to take
// the raw token or the handle, and the admin's revoke-user-session also deletes the session a handle names.
import { eq } from "drizzle-orm";
import type { BetterAuthPlugin } from "better-auth";
import { createAuthEndpoint, createAuthMiddleware, isAPIError, sensitiveSessionMiddleware } from "better-auth/api";
import { deleteSessionCookie } from "better-auth/cookies";
import { z } from "zod";
import type { Db } from "../db/client.js";
import { session } from "../db/schema/auth.js";
import { hashStoredToken } from "./stored-tokens.js";

const revokeSession = createAuthEndpoint(
  "/revoke-session",
  {
    method: "POST",
    body: z.object({ token: z.string().meta({ description: "The session's token, or its handle from list-sessions" }) }),
    use: [sensitiveSessionMiddleware],
    requireHeaders: true,
    metadata: {
      openapi: {
        description: "Revoke one of the user's sessions, named by its token or by the handle list-sessions shows",
        responses: { "200": { description: "Success (also when the token names no session of the user)" } },
      },
    },
  },
  async (ctx) => {
    const { token } = ctx.body;
    const current = ctx.context.session;
    const named = new Set([token, hashStoredToken(token)]);
    const target = (await ctx.context.internalAdapter.listSessions(current.user.id)).find((s) => named.has(s.token));
    if (target) await ctx.context.adapter.delete({ model: "session", where: [{ field: "id", value: target.id }] });
    if (target?.id === current.session.id) deleteSessionCookie(ctx);
    return ctx.json({ status: true });
  },
);

const revokeOtherSessions = createAuthEndpoint(
  "/revoke-other-sessions",
  {
    method: "POST",
    use: [sensitiveSessionMiddleware],
    requireHeaders: true,
    metadata: { openapi: { description: "Revoke all other sessions for the user except the current one" } },
  },
  async (ctx) => {
    const current = ctx.context.session;
    await ctx.context.adapter.deleteMany({
      model: "session",
      where: [
        { field: "userId", value: current.user.id },
        { field: "id", operator: "ne", value: current.session.id },
      ],
    });
    return ctx.json({ status: true });
  },
);

export function tillSessionHandles(db: Db) {
  return {
    id: "till-session-handles",
    endpoints: { revokeSession, revokeOtherSessions },
    hooks: {
      after: [
        {
          // once the admin plugin has allowed it (and revoked a session named by its raw token, if it was one)
          matcher: (ctx) => ctx.path === "/admin/revoke-user-session",
          handler: createAuthMiddleware(async (ctx) => {
            const handle: unknown = (ctx.body as { sessionToken?: unknown } | undefined)?.sessionToken;
            if (isAPIError(ctx.context.returned) || typeof handle !== "string") return;
            await db.delete(session).where(eq(session.token, handle));
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
