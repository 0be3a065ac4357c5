// Answers of better-auth 1.7.25 that the product spec (its routes, entities and calls) shapes otherwise:
// - GET /verify-email without a callbackURL answers the status and the user (better-auth: `user: null`);
// - POST /sign-in/email answers `url` (null when no callbackURL was given);
// - account-info's user has the provider account's `id` and an `image` (null when the provider has none);
// - an invitation past its expiresAt reads `expired` in the organization's list (better-auth keeps `pending`
//   forever) and is refused as expired when its invitee opens, accepts or rejects it;
// - the emailed account-deletion link opened where nobody is signed in redirects to its callbackURL (or the
//   error page) with error=unauthorized instead of a JSON 404: the link stays good for after signing in.
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import { verifyJWT } from "better-auth/crypto";
import { parseUserOutput } from "better-auth/db";

type Fields = Record<string, unknown>;
const isRecord = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const verifyEmailUser = createAuthMiddleware(async (ctx) => {
  const returned: unknown = ctx.context.returned;
  if (!isRecord(returned) || returned.status !== true || (returned.user !== null && returned.user !== undefined)) return;
  const token = str(isRecord(ctx.query) ? ctx.query.token : undefined);
  const payload = token ? await verifyJWT(token, ctx.context.secret) : null;
  const userId = str(payload?.userId);
  const email = str(payload?.email);
  const user = userId
    ? await ctx.context.internalAdapter.findUserById(userId)
    : email
      ? (await ctx.context.internalAdapter.findUserByEmail(email))?.user
      : null;
  if (!user) return;
  return ctx.json({ ...returned, user: parseUserOutput(ctx.context.options, user) });
});

const signInUrl = createAuthMiddleware(async (ctx) => {
  const returned: unknown = ctx.context.returned;
  if (!isRecord(returned) || !isRecord(returned.user) || returned.url !== undefined) return;
  return ctx.json({ redirect: returned.redirect, token: returned.token, url: null, user: returned.user });
});

const accountInfoUser = createAuthMiddleware(async (ctx) => {
  const returned: unknown = ctx.context.returned;
  if (!isRecord(returned) || !isRecord(returned.user)) return;
  const account = isRecord(returned.account) ? returned.account : {};
  const data = isRecord(returned.data) ? returned.data : {};
  // the provider's id of the account (an OIDC subject, a GitHub user id): what better-auth's mapped user lacks
  const id = str(returned.user.id) ?? str(account.accountId) ?? str(data.sub) ?? (data.id === undefined ? undefined : String(data.id));
  return ctx.json({ ...returned, user: { ...returned.user, id: id ?? null, image: returned.user.image ?? null } });
});

interface StoredInvitation {
  id: string;
  email: string;
  status: string;
  expiresAt: Date | string;
}
const expired = (i: { status?: unknown; expiresAt?: unknown }, now: number) =>
  i.status === "pending" && (i.expiresAt instanceof Date || typeof i.expiresAt === "string") && new Date(i.expiresAt).getTime() <= now;

const INVITATION_EXPIRED = { message: "Invitation expired", code: "INVITATION_EXPIRED" } as const;

const expiredInList = createAuthMiddleware(async (ctx) => {
  const returned: unknown = ctx.context.returned;
  if (!Array.isArray(returned)) return;
  const now = Date.now();
  return ctx.json(returned.map((i: unknown) => (isRecord(i) && expired(i, now) ? { ...i, status: "expired" } : i)));
});

const INVITATION_PATHS = new Set(["/organization/accept-invitation", "/organization/reject-invitation", "/organization/get-invitation"]);

/** Only its invitee hears that an invitation expired; anyone else gets better-auth's answer (not found). */
const expiredInvitation = createAuthMiddleware(async (ctx) => {
  const id = str(isRecord(ctx.body) ? ctx.body.invitationId : undefined) ?? str(isRecord(ctx.query) ? ctx.query.id : undefined);
  if (!id) return;
  const session = await getSessionFromCtx(ctx);
  if (!session) return;
  const invitation = await ctx.context.adapter
    .findOne<StoredInvitation>({ model: "invitation", where: [{ field: "id", value: id }] })
    .catch(() => null); // an id that is no UUID: better-auth answers it
  if (!invitation || invitation.email.toLowerCase() !== session.user.email.toLowerCase()) return;
  if (expired(invitation, Date.now())) throw APIError.from("BAD_REQUEST", INVITATION_EXPIRED);
});

const deleteLinkSignedOut = createAuthMiddleware(async (ctx) => {
  const query = isRecord(ctx.query) ? ctx.query : {};
  // a request that is no link (no token) is left to validation
  if (typeof query.token !== "string" || (await getSessionFromCtx(ctx))) return;
  const callbackURL = str(query.callbackURL);
  const target = new URL(callbackURL || `${ctx.context.baseURL}/error`, ctx.context.baseURL);
  target.searchParams.set("error", "unauthorized");
  // a local callbackURL (already checked by redirects.ts) stays a path
  const local = callbackURL?.startsWith("/") ?? false;
  throw ctx.redirect(local ? target.pathname + target.search + target.hash : target.href);
});

export const specAnswers = () =>
  ({
    id: "till-spec-answers",
    hooks: {
      before: [
        { matcher: (ctx) => INVITATION_PATHS.has(ctx.path ?? ""), handler: expiredInvitation },
        { matcher: (ctx) => ctx.path === "/delete-user/callback", handler: deleteLinkSignedOut },
      ],
      after: [
        { matcher: (ctx) => ctx.path === "/verify-email", handler: verifyEmailUser },
        { matcher: (ctx) => ctx.path === "/sign-in/email", handler: signInUrl },
        { matcher: (ctx) => ctx.path === "/account-info", handler: accountInfoUser },
        { matcher: (ctx) => ctx.path === "/organization/list-invitations", handler: expiredInList },
      ],
    },
  }) satisfies BetterAuthPlugin;
