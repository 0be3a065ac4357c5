// Account rules of the product spec (routes, states, validation, errors) that better-auth 1.7.25 words or orders
// differently, kept in one plugin so the rest of the auth set-up stays stock better-auth:
// - the spec's error texts (codes are the upper-cased message) and lower-case verify-email error codes;
// - "Invalid email" for a malformed sign-up email, as sign-in already answers;
// - update-user takes a string name and a string-or-null image (better-auth passes any JSON to the database);
// - deletion at once with a password on a fresh session, while the emailed link and token keep working;
// - an email change confirmed from the current address replaces the email at once and resets emailVerified;
// - POST /forget-password, the older name of /request-password-reset;
// - a password-reset request without redirectTo mails a link that lands on the web app's /reset-password page.
import type { BetterAuthPlugin } from "better-auth";
import {
  APIError,
  createAuthEndpoint,
  createAuthMiddleware,
  createEmailVerificationToken,
  getSessionFromCtx,
  isAPIError,
  requestPasswordReset,
} from "better-auth/api";
import { generateRandomString, verifyJWT } from "better-auth/crypto";
import { z } from "zod";
import { codeOf } from "./error-shape.js";

/** Lifetime of the email verification and email-change links (the spec's constant: 3600 s). */
export const EMAIL_LINK_TTL_SECONDS = 3600;

type ErrorStatus = ConstructorParameters<typeof APIError>[0];

/** An error in the spec's shape: the code is the upper-cased form of the message. */
function specError(status: ErrorStatus, message: string): APIError {
  return new APIError(status, { message, code: codeOf(message) });
}

/** Endpoints whose errors are reworded; set-password is server-only and has no path. */
const WORDED = (path: string | undefined) => path === undefined || path === "/send-verification-email" || path === "/verify-email";

/** better-auth code → the spec's message for the same condition. */
const SPEC_MESSAGES: Record<string, string> = {
  EMAIL_MISMATCH: "You can only send a verification email to your own email",
  EMAIL_ALREADY_VERIFIED: "You can only send a verification email to an unverified email",
  PASSWORD_ALREADY_SET: "user already has a password",
};

/** better-auth's verify-email redirect codes → the spec's error codes. */
const VERIFY_EMAIL_CODES: Record<string, string> = {
  TOKEN_EXPIRED: "token_expired",
  INVALID_TOKEN: "invalid_token",
  USER_NOT_FOUND: "user_not_found",
  INVALID_USER: "unauthorized",
};
const VERIFY_EMAIL_ERROR = /([?&]error=)(TOKEN_EXPIRED|INVALID_TOKEN|USER_NOT_FOUND|INVALID_USER)(?=$|[&#])/;

const EMAIL_UPDATE_FAILED = "Couldn't update your email";
const SESSION_EXPIRED = {
  message: "Session expired. Re-authenticate to perform this action.",
  code: "SESSION_EXPIRED",
} as const;
/** The password path swaps in a deletion token the endpoint consumes within the same request. */
const INLINE_DELETE_TOKEN_TTL_MS = 60_000;

/**
 * The link mailed to the current address of a verified user who asks for a new email. better-auth 1.7.25
 * would confirm twice (old address, then new) and keep emailVerified true; the spec replaces the email as
 * soon as the change is confirmed and resets emailVerified to false, after which the new address is
 * verified by the usual link (better-auth sends it). A token without a request type takes that path.
 */
export async function emailChangeLink(
  secret: string,
  url: string,
  user: { id: string; email: string },
  newEmail: string,
): Promise<string> {
  const link = new URL(url);
  const token = await createEmailVerificationToken(secret, user.email, newEmail, EMAIL_LINK_TTL_SECONDS, {
    userId: user.id,
  });
  link.searchParams.set("token", token);
  return link.toString();
}

const bodyOf = (body: unknown): Record<string, unknown> =>
  body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

const signUpEmail = createAuthMiddleware(async (ctx) => {
  const email = bodyOf(ctx.body).email;
  if (typeof email === "string" && !z.email().safeParse(email).success) {
    throw new APIError("BAD_REQUEST", { message: "Invalid email", code: "INVALID_EMAIL" });
  }
});

// name and image reach the user row unchecked: null breaks NOT NULL (a 500), objects and numbers are stored
const updateUserFields = z.object({ name: z.string().optional(), image: z.string().nullable().optional() });

const updateUser = createAuthMiddleware(async (ctx) => {
  const parsed = updateUserFields.safeParse(bodyOf(ctx.body));
  if (parsed.success) return;
  // the shape of better-call's own validation errors, in the spec's wording
  const details = parsed.error.issues.map((i) => `[body.${i.path.join(".")}] ${i.message}`).join("; ");
  throw new APIError("BAD_REQUEST", { message: "Invalid body parameters", code: "VALIDATION_ERROR", details });
});

/**
 * POST /delete-user. With sendDeleteAccountVerification configured, better-auth mails a link even when the
 * password is given. The spec deletes at once for a password on a fresh session, so a checked password is
 * turned into a deletion token the endpoint consumes (it checks the password again). A stale session may neither delete
 * nor ask for the link; a submitted token (from the mail) needs no fresh session.
 */
const deleteUser = createAuthMiddleware(async (ctx) => {
  const body = bodyOf(ctx.body);
  if (typeof body.token === "string" && body.token) return;
  const session = await getSessionFromCtx(ctx);
  if (!session) return; // the endpoint answers 401
  const freshAge = ctx.context.sessionConfig.freshAge;
  if (freshAge !== 0 && Date.now() - new Date(session.session.createdAt).getTime() >= freshAge * 1000) {
    throw new APIError("BAD_REQUEST", { ...SESSION_EXPIRED });
  }
  const password = body.password;
  if (typeof password !== "string" || !password) return; // the emailed link
  if (password.length > ctx.context.password.config.maxPasswordLength) return; // the endpoint refuses it
  const account = await ctx.context.internalAdapter.findCredentialAccount(session.user.id);
  if (!account?.password) return; // the endpoint answers "Credential account not found"
  if (!(await ctx.context.password.verify({ hash: account.password, password }))) return; // "Invalid password"
  const token = generateRandomString(32, "0-9", "a-z");
  await ctx.context.internalAdapter.createVerificationValue({
    value: session.user.id,
    identifier: `delete-account-${token}`,
    expiresAt: new Date(Date.now() + INLINE_DELETE_TOKEN_TTL_MS),
  });
  return { context: { body: { ...body, token } } };
});

/** The web app's page that asks for the new password (web/src/pages/ResetPassword.tsx). */
export const RESET_PASSWORD_PAGE = "/reset-password";

/**
 * POST /request-password-reset and /forget-password without redirectTo: better-auth mails a link whose
 * callbackURL is empty, and following it ends on the error page with INVALID_TOKEN even for a good token.
 * The link should land where the new password is asked for, so the request defaults to the web app's page.
 * GET /reset-password/{token} with an empty callbackURL (a link mailed that way) defaults the same.
 */
const resetPasswordTarget = createAuthMiddleware(async (ctx) => {
  if (ctx.path === "/reset-password/:token") {
    const query = bodyOf(ctx.query);
    if (typeof query.callbackURL === "string" && query.callbackURL) return;
    return { context: { query: { ...query, callbackURL: RESET_PASSWORD_PAGE } } };
  }
  const body = bodyOf(ctx.body);
  if (body.redirectTo !== undefined && body.redirectTo !== "") return;
  return { context: { body: { ...body, redirectTo: RESET_PASSWORD_PAGE } } };
});

/**
 * GET /verify-email for an email change: the new address may have been taken since the link was mailed.
 * The unique index would make that a 500; answer the spec's "Couldn't update your email" instead.
 */
const verifyEmailChange = createAuthMiddleware(async (ctx) => {
  const token = bodyOf(ctx.query).token;
  if (typeof token !== "string") return;
  const payload = await verifyJWT(token, ctx.context.secret);
  const updateTo = payload?.updateTo;
  if (typeof updateTo !== "string") return;
  const holder = await ctx.context.internalAdapter.findUserByEmail(updateTo);
  if (holder && holder.user.id !== payload?.userId) throw specError("BAD_REQUEST", EMAIL_UPDATE_FAILED);
});

const specWording = createAuthMiddleware(async (ctx) => {
  const returned: unknown = ctx.context.returned;
  if (!isAPIError(returned)) return;
  const code = (returned.body as { code?: unknown } | undefined)?.code;
  const message = typeof code === "string" ? SPEC_MESSAGES[code] : undefined;
  if (message) throw specError(returned.status, message);
  if (ctx.path === "/verify-email" && returned.statusCode === 302) {
    const location = new Headers(returned.headers as HeadersInit).get("location");
    if (!location || !VERIFY_EMAIL_ERROR.test(location)) return;
    const rewritten = location.replace(VERIFY_EMAIL_ERROR, (_m, prefix: string, c: string) => `${prefix}${VERIFY_EMAIL_CODES[c]}`);
    throw new APIError("FOUND", undefined, { location: rewritten });
  }
});

const forgetPassword = createAuthEndpoint(
  "/forget-password",
  {
    method: "POST",
    body: z.object({ email: z.email(), redirectTo: z.string().optional() }),
    metadata: {
      openapi: {
        operationId: "forgetPassword",
        description: "The older name of /request-password-reset; same body, same answer",
      },
    },
  },
  async (ctx) =>
    ctx.json(
      await requestPasswordReset({ body: ctx.body, headers: ctx.headers, request: ctx.request, context: ctx.context }),
    ),
);

const RESET_PATHS = new Set(["/request-password-reset", "/forget-password", "/reset-password/:token"]);

export function accountRules() {
  return {
    id: "till-account-rules",
    endpoints: { forgetPassword },
    hooks: {
      before: [
        { matcher: (ctx) => ctx.path === "/sign-up/email", handler: signUpEmail },
        { matcher: (ctx) => ctx.path === "/update-user", handler: updateUser },
        { matcher: (ctx) => ctx.path === "/delete-user", handler: deleteUser },
        { matcher: (ctx) => ctx.path === "/verify-email", handler: verifyEmailChange },
        { matcher: (ctx) => RESET_PATHS.has(ctx.path ?? ""), handler: resetPasswordTarget },
      ],
      after: [{ matcher: (ctx) => WORDED(ctx.path), handler: specWording }],
    },
  } satisfies BetterAuthPlugin;
}
