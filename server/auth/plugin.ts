// Mounts better-auth under /api/auth as an encapsulated Fastify plugin. Bodies are kept as raw bytes
// so JSON, form-encoded (RFC 8628 device clients) and empty bodies all reach better-auth untouched.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { fromNodeHeaders } from "better-auth/node";
import { AUTH_BASE_PATH, CLIENT_IP_HEADER, type Auth } from "./index.js";
import { errorPageHtml } from "./error-page.js";
import { guardLocation } from "./redirects.js";

/** The request's URL, or null when the client sent a Host header no URL can be built from. */
function requestUrl(req: FastifyRequest): URL | null {
  try {
    return new URL(req.url, `${req.protocol}://${req.headers.host ?? "localhost"}`);
  } catch {
    return null;
  }
}

function toWebRequest(req: FastifyRequest, url: URL): Request {
  const body = req.body as Buffer | undefined;
  // a zero-length body would make better-call answer "Invalid JSON in request body"
  const hasBody = req.method !== "GET" && req.method !== "HEAD" && body !== undefined && body.length > 0;
  const headers = fromNodeHeaders(req.headers);
  // better-auth's rate limiter keys on this header; set from Fastify's view of the client, never trusted from outside
  headers.set(CLIENT_IP_HEADER, req.ip);
  return new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? new Uint8Array(body) : undefined,
  });
}

// better-call names each failing field ("[body.email] Invalid input: …"); the spec fixes the message of an
// invalid body or query (product-spec §5), so the mount states it and keeps better-call's text as details.
const VALIDATION_MESSAGES = { body: "Invalid body parameters", query: "Invalid query parameters" } as const;
const VALIDATION_SOURCE = /^\[(body|query)[\].]/;

function withSpecValidationMessage(payload: Buffer): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString("utf8"));
  } catch {
    return payload;
  }
  if (typeof parsed !== "object" || parsed === null) return payload;
  const { code, message } = parsed as { code?: unknown; message?: unknown };
  const source = typeof message === "string" ? VALIDATION_SOURCE.exec(message)?.[1] : undefined;
  if (code !== "VALIDATION_ERROR" || (source !== "body" && source !== "query")) return payload;
  return Buffer.from(JSON.stringify({ ...parsed, message: VALIDATION_MESSAGES[source], details: message }));
}

async function sendWebResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.status(response.status);
  // Headers#forEach yields each Set-Cookie on its own; reply.header appends repeated set-cookie values;
  // Fastify sets content-length itself from the payload, which may be rewritten below
  response.headers.forEach((value, key) => {
    if (key !== "content-length") reply.header(key, value);
  });
  // better-auth's limiter says when to retry in X-Retry-After only; HTTP clients read Retry-After
  const retryAfter = response.headers.get("x-retry-after");
  if (response.status === 429 && retryAfter && !response.headers.has("retry-after")) reply.header("retry-after", retryAfter);
  let payload: Buffer | null = response.body ? Buffer.from(await response.arrayBuffer()) : null;
  if (payload && response.status === 400) payload = withSpecValidationMessage(payload);
  return reply.send(payload);
}

/**
 * POSTs after which a cached caller lookup (server/http/caller.ts) may be stale; organization/create and
 * accept-invitation make the new organization the session's active one (and a membership appear).
 */
const REVOKING = /\/(sign-out|revoke-|delete-user|change-password|reset-password|api-key\/(delete|update)|delete-all-expired-api-keys|organization\/(create|accept-invitation|update-member-role|remove-member|leave|delete|set-active|update-role|delete-role)|admin\/)/;

/**
 * PostgreSQL cannot store a NUL character in text or jsonb: one that reached a query failed it (a 500). A NUL
 * in the query string, a raw 0x00 byte, or a JSON `\u0000` escape (not preceded by an escaped backslash) in
 * the body is refused before better-auth sees the request.
 */
const JSON_NUL = /(?<!\\)(?:\\\\)*\\u0000/i;
function carriesNul(url: string, body: Buffer | undefined): boolean {
  // the OAuth callbacks answer a browser with a redirect to the error page (server/auth/social.ts guards their state)
  if (/%00/.test(url) && !url.startsWith(`${AUTH_BASE_PATH}/callback/`)) return true;
  if (!body || body.length === 0) return false;
  return body.includes(0) || JSON_NUL.test(body.toString("latin1"));
}

export function authPlugin(auth: Auth, onRevoke: () => void = () => {}) {
  return async function mountAuth(app: FastifyInstance): Promise<void> {
    const context = await auth.$context;
    const origin = new URL(context.baseURL).origin;
    const errorPage = `${context.baseURL}/error?error=invalid_redirect`;
    // the last word on every redirect of this mount, whichever route answered it
    app.addHook("onSend", async (req, reply, payload) => {
      const location = reply.getHeader("location");
      if (reply.statusCode < 300 || reply.statusCode > 399 || typeof location !== "string") return payload;
      const safe = guardLocation(location, `${origin}${req.url}`, (url) => context.isTrustedOrigin(url), errorPage);
      if (safe !== location) {
        req.log.warn({ location }, "redirect location rewritten: untrusted (error page) or ambiguous (spelled out)");
        reply.header("location", safe);
      }
      return payload;
    });

    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 1024 * 1024 }, (_req, body, done) =>
      done(null, body),
    );

    app.get<{ Querystring: { error?: string } }>(`${AUTH_BASE_PATH}/error`, async (req, reply) => {
      const code = typeof req.query.error === "string" ? req.query.error : undefined;
      return reply.type("text/html; charset=utf-8").send(errorPageHtml(code));
    });

    app.route({
      method: ["GET", "POST"],
      url: `${AUTH_BASE_PATH}/*`,
      handler: async (req, reply) => {
        const url = requestUrl(req);
        if (!url) return reply.status(400).send({ message: "Invalid Host header", code: "INVALID_HOST_HEADER" });
        if (carriesNul(req.url, req.body as Buffer | undefined)) {
          return reply.status(400).send({ message: "Request contains NUL characters", code: "INVALID_CHARACTERS" });
        }
        const response = await auth.handler(toWebRequest(req, url));
        // the emailed account-deletion link deletes on a GET
        if ((req.method === "POST" && REVOKING.test(req.url)) || req.url.startsWith(`${AUTH_BASE_PATH}/delete-user/callback`)) onRevoke();
        return sendWebResponse(reply, response);
      },
    });
  };
}
