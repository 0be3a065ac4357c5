// Organization API keys, as till needs them on top of @better-auth/api-key 1.7.5:
// - the plugin refuses `permissions` and the per-key rate limit from any HTTP client ("server-only"); an
//   organization owner or admin needs to set them from the dashboard/CLI, so a create/update carrying them
//   is re-dispatched as a server call on behalf of the signed-in user (the plugin still checks the user's
//   `apiKey` permission in the organization). Usage counters (remaining, refill*) stay server-only: the
//   request helper does not count usage, so a client could not rely on them;
// - the prefix is one of till's (the request helper tells keys from session tokens by it, and a sandbox key
//   from a live one: till_test_ / till_live_; a plain till_ is a live key as they were made before);
// - POST /api-key/delete-all-expired-api-keys is exposed to signed-in users (server-only in the plugin);
// - deleting an organization deletes its keys;
// - GET /api-key/page lists one side's keys a page at a time, in the database (api-key-pages.ts).
import { API_KEY_ERROR_CODES } from "@better-auth/api-key";
import type { BetterAuthPlugin } from "better-auth";
import {
  APIError,
  createAuthEndpoint,
  createAuthMiddleware,
  dispatchAuthEndpoint,
  getSessionFromCtx,
  isAPIError,
  sessionMiddleware,
} from "better-auth/api";
import { z } from "zod";
import { apiKeyPageEndpoint, type ApiKeySides } from "./api-key-pages.js";

/** Largest values that fit the integer columns and make sense for a per-key limit. */
export const API_KEY_LIMITS = {
  rateLimitMax: { min: 1, max: 1_000_000_000 },
  /** Milliseconds; Retry-After is given in whole seconds, a day is the longest useful window. */
  rateLimitTimeWindow: { min: 1_000, max: 86_400_000 },
  permissionEntries: 64,
  nameLength: 64,
} as const;

const name = z.string().min(1).max(API_KEY_LIMITS.nameLength);
const permissions = z
  .record(name, z.array(name).max(API_KEY_LIMITS.permissionEntries))
  .refine((p) => Object.keys(p).length <= API_KEY_LIMITS.permissionEntries, "too many resources");

/** What an organization owner/admin may set although the plugin marks it server-only. */
const ownerSettable = z.object({
  permissions: permissions.optional(),
  rateLimitEnabled: z.boolean().optional(),
  rateLimitMax: z
    .number()
    .int()
    .min(API_KEY_LIMITS.rateLimitMax.min)
    .max(API_KEY_LIMITS.rateLimitMax.max)
    .optional(),
  rateLimitTimeWindow: z
    .number()
    .int()
    .min(API_KEY_LIMITS.rateLimitTimeWindow.min)
    .max(API_KEY_LIMITS.rateLimitTimeWindow.max)
    .optional(),
});
const OWNER_SETTABLE = Object.keys(ownerSettable.shape);
/** Still refused from clients by the plugin; never re-dispatched on their behalf. */
const SERVER_ONLY = ["userId", "remaining", "refillAmount", "refillInterval"];

export const TILL_API_KEY_ERROR_CODES = {
  PREFIX_IS_FIXED: "API keys start with till_live_ (live) or till_test_ (sandbox); no other prefix can be chosen.",
} as const;

type Body = Record<string, unknown>;

function asBody(value: unknown): Body | null {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Body) : null;
}

function validationError(issues: z.core.$ZodIssue[]): APIError {
  const message = issues.map((i) => `[body.${i.path.map(String).join(".")}] ${i.message}`).join("; ");
  return new APIError("BAD_REQUEST", { message, code: "VALIDATION_ERROR" });
}

/**
 * The caller's session. Before-hooks all see the request as it came in, so the bearer plugin's turning
 * `Authorization: Bearer <session token>` into the session cookie only reaches the endpoint, not this hook:
 * without the lookup below, the CLI (a bearer session) could not create a key with permissions.
 */
async function callerSession(ctx: Parameters<typeof getSessionFromCtx>[0]) {
  const fromCookie = await getSessionFromCtx(ctx, { disableCookieCache: true });
  if (fromCookie) return fromCookie;
  // a raw token or the signed "token.signature" form; the token itself is the secret either way
  const token = /^Bearer\s+([^\s.]+)/i.exec(ctx.headers?.get("authorization") ?? "")?.[1];
  if (!token) return null;
  const found = await ctx.context.internalAdapter.findSession(token);
  return found && new Date(found.session.expiresAt).getTime() > Date.now() ? found : null;
}

export function tillApiKeys(opts: { prefixes: string[]; sides: ApiKeySides }) {
  return {
    id: "till-api-keys",
    endpoints: {
      listApiKeyPage: apiKeyPageEndpoint(opts.sides),
      deleteAllExpiredApiKeysForClients: createAuthEndpoint(
        "/api-key/delete-all-expired-api-keys",
        { method: "POST", use: [sessionMiddleware] },
        async (ctx) => {
          // expired keys are dead for everyone; the plugin already sweeps them on create/list/get
          const endpoint = ctx.context.getPlugin("api-key")?.endpoints?.deleteAllExpiredApiKeys;
          if (!endpoint) throw new APIError("NOT_FOUND");
          return ctx.json(asBody(await dispatchAuthEndpoint(endpoint, { context: ctx.context })));
        },
      ),
    },
    hooks: {
      before: [
        {
          // only HTTP requests: the server calls dispatched below come back through here without one
          matcher: (ctx) => Boolean(ctx.request) && (ctx.path === "/api-key/create" || ctx.path === "/api-key/update"),
          handler: createAuthMiddleware(async (ctx) => {
            const body = asBody(ctx.body);
            if (!body) return;
            if (ctx.path === "/api-key/create" && body.prefix !== undefined && !opts.prefixes.includes(String(body.prefix))) {
              throw new APIError("BAD_REQUEST", {
                message: TILL_API_KEY_ERROR_CODES.PREFIX_IS_FIXED,
                code: "PREFIX_IS_FIXED",
              });
            }
            const wantsSettable = OWNER_SETTABLE.some((k) => body[k] !== undefined);
            const wantsServerOnly = SERVER_ONLY.some((k) => body[k] !== undefined && body[k] !== null);
            // let the plugin answer (and refuse server-only fields) exactly as it does by itself
            if (!wantsSettable || wantsServerOnly) return;
            const parsed = ownerSettable.safeParse(body);
            if (!parsed.success) throw validationError(parsed.error.issues);
            const session = await callerSession(ctx);
            if (!session) throw APIError.from("UNAUTHORIZED", API_KEY_ERROR_CODES.UNAUTHORIZED_SESSION);
            const plugin = ctx.context.getPlugin("api-key");
            const endpoint =
              ctx.path === "/api-key/create" ? plugin?.endpoints?.createApiKey : plugin?.endpoints?.updateApiKey;
            if (!endpoint) throw new APIError("NOT_FOUND");
            // a server call (no request, no headers): the plugin accepts the fields, takes the acting user
            // from userId and still checks that user's apiKey:create/update permission in the organization
            const result = await dispatchAuthEndpoint(endpoint, {
              body: { ...body, ...parsed.data, userId: session.user.id },
              context: { ...ctx.context, session },
            });
            return ctx.json(asBody(result));
          }),
        },
      ],
      after: [
        {
          // the key rows only reference the organization by id (no foreign key): without this, the keys
          // of a deleted organization would go on authenticating
          matcher: (ctx) => ctx.path === "/organization/delete",
          handler: createAuthMiddleware(async (ctx) => {
            const deleted = asBody(ctx.context.returned);
            if (!deleted || isAPIError(deleted) || typeof deleted.id !== "string") return;
            await ctx.context.adapter.deleteMany({ model: "apikey", where: [{ field: "referenceId", value: deleted.id }] });
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
