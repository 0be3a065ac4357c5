// Where /api/auth may send a browser: the one rule for every callback and redirect target, applied twice —
// to the targets a request names (callbackURL, redirectTo, errorCallbackURL, newUserCallbackURL, in the query
// or the body) before better-auth stores or follows them, and to the Location of every redirect the mount
// answers, so a route that slipped the first check still cannot send anyone away.
// better-auth accepts any target starting with one "/" as a local path, but resolves dot segments before it
// redirects: "/..//evil.com" became "Location: //evil.com", which a browser reads as another host.
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";

/** The request fields better-auth reads a redirect target from. */
export const REDIRECT_FIELDS = ["callbackURL", "redirectTo", "errorCallbackURL", "newUserCallbackURL"] as const;

/** C0/C1 controls (tab and newline included: browsers drop them, so "/\t/evil.com" reads as "//evil.com") and "\". */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const AMBIGUOUS = /[\u0000-\u001f\u007f-\u009f\\]/;
/** An encoded "/", "\" or control in the path: some routers decode them into separators (or drop them). */
const ENCODED_SEPARATOR = /%2f|%5c|%[01][0-9a-f]|%7f/i;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** Whether an absolute http(s) URL's origin may receive a redirect (better-auth's trusted-origin check). */
export type OriginCheck = (absoluteUrl: string) => boolean;

/**
 * The canonical form of a redirect target, or null when it must not be followed. A local target ("/path")
 * comes back as its resolved path, query and fragment — exactly what a browser would request, dot segments
 * and percent-encoded dots resolved — and must stay a path of `baseURL`'s origin; an absolute target must be
 * http(s) on a trusted origin and comes back as its normalised href. "" (no target) stays "".
 */
export function normaliseRedirectTarget(value: string, baseURL: string, trusted: OriginCheck): string | null {
  if (value === "") return "";
  if (AMBIGUOUS.test(value)) return null;
  const absolute = HAS_SCHEME.test(value);
  if (!absolute && (!value.startsWith("/") || value.startsWith("//"))) return null;
  let url: URL;
  try {
    url = new URL(value, baseURL);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  // a path that starts with "//", once resolved, is a host to anything that later drops the origin
  if (url.pathname.startsWith("//") || ENCODED_SEPARATOR.test(url.pathname)) return null;
  if (url.username || url.password) return null;
  if (!absolute) return url.origin === new URL(baseURL).origin ? url.pathname + url.search + url.hash : null;
  return trusted(url.href) ? url.href : null;
}

const ERROR_OF_FIELD: Record<(typeof REDIRECT_FIELDS)[number], { message: string; code: string }> = {
  callbackURL: { message: "Invalid callbackURL", code: "INVALID_CALLBACK_URL" },
  redirectTo: { message: "Invalid redirectURL", code: "INVALID_REDIRECT_URL" },
  errorCallbackURL: { message: "Invalid errorCallbackURL", code: "INVALID_ERROR_CALLBACK_URL" },
  newUserCallbackURL: { message: "Invalid newUserCallbackURL", code: "INVALID_NEW_USER_CALLBACK_URL" },
};

type Fields = Record<string, unknown>;
const fieldsOf = (value: unknown): Fields | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;

const namesATarget = (ctx: { query?: unknown; body?: unknown }) =>
  [fieldsOf(ctx.query), fieldsOf(ctx.body)].some((fields) => fields && REDIRECT_FIELDS.some((f) => typeof fields[f] === "string"));

/**
 * Every endpoint: each redirect target in the query or the body is replaced by its canonical form, or the
 * request is refused with better-auth's own 403 for that field. Non-string values are left to validation.
 */
export const safeRedirects = () =>
  ({
    id: "till-safe-redirects",
    hooks: {
      before: [
        {
          matcher: namesATarget,
          handler: createAuthMiddleware(async (ctx) => {
            const trusted: OriginCheck = (url) => ctx.context.isTrustedOrigin(url);
            for (const fields of [fieldsOf(ctx.query), fieldsOf(ctx.body)]) {
              if (!fields) continue;
              for (const field of REDIRECT_FIELDS) {
                const value = fields[field];
                if (typeof value !== "string") continue;
                const safe = normaliseRedirectTarget(value, ctx.context.baseURL, trusted);
                if (safe === null) throw APIError.from("FORBIDDEN", ERROR_OF_FIELD[field]);
                // rewritten in place: a hook's returned context merges with defaults semantics
                fields[field] = safe;
              }
            }
          }),
        },
      ],
    },
  }) satisfies BetterAuthPlugin;

/**
 * The Location a redirect answered by /api/auth may carry: itself when it stays on this origin or a trusted
 * one (a local path that could read as another host is spelled out in full), else `errorPage`. `requestUrl`
 * (this origin plus the request's path) resolves relative locations as the browser will.
 */
export function guardLocation(location: string, requestUrl: string, trusted: OriginCheck, errorPage: string): string {
  if (AMBIGUOUS.test(location)) return errorPage;
  let url: URL;
  try {
    url = new URL(location, requestUrl);
  } catch {
    return errorPage;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return errorPage;
  if (url.username || url.password) return errorPage;
  const local = url.origin === new URL(requestUrl).origin;
  if (!local && !trusted(url.href)) return errorPage;
  const plainPath = location.startsWith("/") && !location.startsWith("//") && !url.pathname.startsWith("//");
  return HAS_SCHEME.test(location) || plainPath ? location : url.href;
}
