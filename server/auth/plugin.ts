// Mounts better-auth under /api/auth as an encapsulated Fastify plugin. Bodies are kept as raw bytes
// so JSON, form-encoded (RFC 8628 device clients) and empty bodies all reach better-auth untouched.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { fromNodeHeaders } from "better-auth/node";
import { CLIENT_IP_HEADER, type Auth } from "./index.js";
import { AUTH_BASE_PATH } from "../../shared/auth-mount.js";
import { errorPageHtml } from "./error-page.js";
import { specErrorAnswer } from "./error-shape.js";
import { guardLocation } from "./redirects.js";
import { checkJsonText, checkValue, RejectedInput, SMALL_BODY_LIMIT, unstorable } from "../http/input-guard.js";
import { markInputRefusal } from "../http/idempotency.js";

/** The request's URL, or null when the client sent a Host header no URL can be built from. */
function requestUrl(req: FastifyRequest): URL | null {
  try {
    return new URL(req.url, `${req.protocol}://${req.headers.host ?? "localhost"}`);
  } catch {
    return null;
  }
}

/** What a POST without a body hands better-auth: an empty object (plugins' hooks read fields of the body). */
const EMPTY_OBJECT = new TextEncoder().encode("{}");

function toWebRequest(req: FastifyRequest, url: URL, parsed: { value: object } | undefined): Request {
  const body = req.body as Buffer | undefined;
  const headers = fromNodeHeaders(req.headers);
  // better-auth's rate limiter keys on this header; set from Fastify's view of the client, never trusted from outside
  headers.set(CLIENT_IP_HEADER, req.ip);
  if (req.method === "GET" || req.method === "HEAD") return new Request(url, { method: req.method, headers });
  // a zero-length body would make better-call answer "Invalid JSON in request body", and no body at all left
  // ctx.body undefined for hooks that read it (sign-up, update-user: a 500)
  if (body === undefined || body.length === 0) {
    headers.set("content-type", "application/json");
    return new Request(url, { method: req.method, headers, body: EMPTY_OBJECT });
  }
  const request = new Request(url, { method: req.method, headers, body: new Uint8Array(body) });
  return parsed ? withParsedJson(request, parsed.value) : request;
}

// better-call names each failing field ("[body.email] Invalid input: …"); the spec fixes the message of an
// invalid body or query (its validation rules), so the mount states it and keeps better-call's text as details.
const VALIDATION_MESSAGES = { body: "Invalid body parameters", query: "Invalid query parameters" } as const;
const VALIDATION_SOURCE = /^\[(body|query)[\].]/;

/** The spec's message for better-call's refusal of the body or query by its schema; null for any other payload. */
function withSpecValidationMessage(payload: Buffer): Buffer | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString("utf8"));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const { code, message } = parsed as { code?: unknown; message?: unknown };
  const source = typeof message === "string" ? VALIDATION_SOURCE.exec(message)?.[1] : undefined;
  if (code !== "VALIDATION_ERROR" || (source !== "body" && source !== "query")) return null;
  return Buffer.from(JSON.stringify({ ...parsed, message: VALIDATION_MESSAGES[source], details: message }));
}

async function sendWebResponse(reply: FastifyReply, response: Response, route: string): Promise<FastifyReply> {
  let payload: Buffer | null = response.body ? Buffer.from(await response.arrayBuffer()) : null;
  const shaped = specErrorAnswer(route, response.status, response.headers.get("content-type"), payload);
  if (shaped) payload = shaped.payload;
  reply.status(shaped?.status ?? response.status);
  // Headers#forEach yields each Set-Cookie on its own; reply.header appends repeated set-cookie values;
  // Fastify sets content-length itself from the payload, which may be rewritten below
  response.headers.forEach((value, key) => {
    if (key !== "content-length") reply.header(key, value);
  });
  if (shaped) reply.header("content-type", "application/json");
  // better-auth's limiter says when to retry in X-Retry-After only; HTTP clients read Retry-After
  const retryAfter = response.headers.get("x-retry-after");
  if (response.status === 429 && retryAfter && !response.headers.has("retry-after")) reply.header("retry-after", retryAfter);
  const refused = payload && response.status === 400 ? withSpecValidationMessage(payload) : null;
  if (refused) {
    // the schema refused the input before the endpoint ran: an Idempotency-Key stays unused (idempotency.ts)
    reply.request.inputRefused = true;
    payload = refused;
  }
  return reply.send(payload);
}

/**
 * POSTs after which a cached caller lookup (server/auth/caller.ts) may be stale; organization/create and
 * accept-invitation make the new organization the session's active one (and a membership appear).
 */
const REVOKING = new RegExp(
  "/(sign-out|revoke-|delete-user|change-password|reset-password|api-key/(delete|update)|delete-all-expired-api-keys|" +
    "organization/(create|accept-invitation|update-member-role|remove-member|leave|delete|set-active|update-role|delete-role)|" +
    "admin/)",
);

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded/i;

/**
 * The input guard (server/http/input-guard.ts) on the raw body better-auth will read: a JSON body stays within
 * the bounds and is an object (every better-auth body is one; `null` crashed the username plugin's hooks); no
 * JSON string, form field or raw byte holds a NUL or an unpaired surrogate (unless the route checks
 * `characters` itself: the OAuth callbacks). A JSON body is parsed here, once: the value is what better-auth
 * gets (withParsedJson). Undefined: not JSON, or JSON that does not parse (better-call answers "Invalid JSON in
 * request body").
 */
function checkBody(contentType: string | undefined, body: Buffer, characters: boolean): { value: object } | undefined {
  if (characters && body.includes(0)) throw new RejectedInput("nul", "body", []);
  if (JSON_TYPE.test(contentType ?? "")) {
    const text = body.toString("utf8");
    const scan = checkJsonText(text);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new NotAnObject(value);
    if (characters && scan.suspect) checkValue(value, "body");
    return { value };
  }
  if (characters && FORM_TYPE.test(contentType ?? "")) {
    for (const [k, v] of new URLSearchParams(body.toString("utf8"))) {
      const kind = unstorable(k) ?? unstorable(v);
      if (kind) throw new RejectedInput(kind, "body", [k]);
    }
  }
  return undefined;
}

/**
 * The request with `json()` answering the value the mount parsed, on it and on its clones (better-call parses
 * the body with `request.json()`, of a clone on the routes that ask for one): a large body is not decoded and
 * parsed a second time. The bytes stay in the body for any reader of the text.
 */
function withParsedJson(request: Request, value: object): Request {
  const clone = request.clone.bind(request);
  Object.defineProperties(request, {
    json: { value: () => Promise.resolve(value) },
    clone: { value: () => withParsedJson(clone(), value) },
  });
  return request;
}

/** A JSON body that is not an object. */
class NotAnObject extends Error {
  readonly refusesInput = true;
  constructor(readonly value: unknown) {
    super("expected object");
  }
}

const received = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** The guard's refusals in better-auth's error shape. */
function authErrorBody(err: RejectedInput | NotAnObject): { message: string; code: string; details?: string } {
  if (err instanceof NotAnObject) {
    return { message: VALIDATION_MESSAGES.body, code: "VALIDATION_ERROR", details: `[body] Invalid input: expected object, received ${received(err.value)}` };
  }
  if (err.kind === "nul") return { message: "Request contains NUL characters", code: "INVALID_CHARACTERS" };
  if (err.kind === "surrogate") return { message: "Request contains unpaired surrogate characters", code: "INVALID_CHARACTERS" };
  return { message: VALIDATION_MESSAGES.body, code: "VALIDATION_ERROR", details: `[body] ${err.message}` };
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
    // every better-auth body is small: a larger one is a 413 before it is read (input-guard.ts)
    app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: SMALL_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );

    app.setErrorHandler((err, req, reply) => {
      markInputRefusal(req, err);
      if (err instanceof RejectedInput || err instanceof NotAnObject) return reply.status(400).send(authErrorBody(err));
      if ((err as { code?: unknown }).code === "FST_ERR_CTP_BODY_TOO_LARGE") {
        return reply.status(413).send({ message: `Request body is larger than ${SMALL_BODY_LIMIT / 1024} KiB`, code: "PAYLOAD_TOO_LARGE" });
      }
      throw err;
    });

    app.get<{ Querystring: { error?: string } }>(`${AUTH_BASE_PATH}/error`, async (req, reply) => {
      const code = typeof req.query.error === "string" ? req.query.error : undefined;
      return reply.type("text/html; charset=utf-8").send(errorPageHtml(code));
    });

    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const url = requestUrl(req);
      if (!url) return reply.status(400).send({ message: "Invalid Host header", code: "INVALID_HOST_HEADER" });
      const body = req.body as Buffer | undefined;
      const parsed = body && body.length > 0 ? checkBody(req.headers["content-type"], body, !req.routeOptions.config.checksOwnCharacters) : undefined;
      const response = await auth.handler(toWebRequest(req, url, parsed));
      // the emailed account-deletion link deletes on a GET
      if ((req.method === "POST" && REVOKING.test(req.url)) || req.url.startsWith(`${AUTH_BASE_PATH}/delete-user/callback`)) onRevoke();
      return sendWebResponse(reply, response, url.pathname.slice(AUTH_BASE_PATH.length));
    };
    app.route({ method: ["GET", "POST"], url: `${AUTH_BASE_PATH}/*`, handler });
    // the OAuth callbacks answer a browser: a state no one issued redirects to the error page (social.ts)
    app.route({ method: ["GET", "POST"], url: `${AUTH_BASE_PATH}/callback/*`, config: { checksOwnCharacters: true }, handler });
  };
}
