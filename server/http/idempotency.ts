// Idempotency-Key on writes (Stripe's contract): the first answer to a key is stored for 24 hours, and a repeat of
// the same request (method, path and body bytes) gets that answer again with `Idempotent-Replayed: true` instead
// of doing the write twice; a key reused for another request is refused. One request holds a key at a time: a
// repeat that arrives while the first runs waits for its answer. Keys live in PostgreSQL, so every replica and a
// restarted process see them. What is stored, and for whom, is in docs/decisions.md ("Idempotency-Key").
//
// Installed once on the root instance: every POST, PATCH and DELETE route under /v1, and POST /api/auth/checkout,
// gets a preHandler after its authentication (so a key belongs to the caller's scope) and its input's validation,
// and the hooks below; no other route runs any of them.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { Transform, pipeline } from "node:stream";
import { sql } from "drizzle-orm";
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseAsyncHookHandler, onSendAsyncHookHandler, preParsingAsyncHookHandler, RouteOptions } from "fastify";
import type { Db } from "../db/client.js";
import { isMalformedJson, RejectedInput } from "./rejected-input.js";
import { keepLast, methodsOf, withHook } from "./route-hooks.js";

export const IDEMPOTENCY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "idempotent-replayed";
/** Longer keys are refused (Stripe's bound); a UUID is 36. */
export const MAX_KEY_LENGTH = 255;

const WRITE_METHODS = new Set(["POST", "PATCH", "DELETE"]);
/** Answers a retry should run again rather than see again: server errors, a lock or a rate limit that may clear. */
const NOT_STORED = (status: number) => status >= 500 || status === 409 || status === 429;
/** The headers an answer is replayed with (cookies never: a replay must not hand out a session). */
const REPLAYED_HEADERS = ["content-type", "location"];

export interface IdempotencyOptions {
  db: Db;
  /** The server secret: stored answers are encrypted with a key derived from it and the idempotency key. */
  secret: string;
  /** Whose keys a request's are (see `scopeOf` in the docs); null: this request takes no key. */
  scopeOf(req: FastifyRequest): string | null | Promise<string | null>;
  /** How long an answer is kept. */
  ttlMs?: number;
  /** How long a repeat waits for the first request before answering 409. */
  waitMs?: number;
  /** An in_progress row's lease, renewed every third of it while its request runs. */
  leaseMs?: number;
}

type Dialect = "polar" | "better-auth";

interface Claim {
  scope: string;
  keyHash: string;
  cipherKey: Buffer;
  heartbeat: NodeJS.Timeout;
  settled: boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    /** sha256 of the body's bytes, fed as the body is read (only when the request carries a key). */
    idempotencyBodyHash?: ReturnType<typeof createHash>;
    /** The key this request holds while it runs (it was the first to send it). */
    idempotencyClaim?: Claim;
    /**
     * Set where a request's input was refused before the request changed anything (markInputRefusal, in the error
     * handlers; the auth mount also for better-auth's own schema refusal): Stripe keeps no answer for it, so the key
     * stays unused. (A /v1 route's declared contract is validated before the check, so its refusals never claim a
     * key.)
     */
    inputRefused?: boolean;
  }
}

/**
 * Marks the request when `err` refused its input before anything changed: the input guard's RejectedInput,
 * malformed JSON (Fastify's parser errors, which the sliced parse of a large body throws too), or an error that
 * says so with `refusesInput` (a handler's schema refusal, billing/errors.ts's SchemaRefusal). Any other error,
 * a bare SyntaxError included, may come after a write: the key keeps its claim. For the error handlers of the
 * plugins whose routes may parse their input inside the handler.
 */
export function markInputRefusal(req: FastifyRequest, err: unknown): void {
  if (
    err instanceof RejectedInput ||
    isMalformedJson(err) ||
    (err as { refusesInput?: unknown } | null)?.refusesInput === true
  ) {
    req.inputRefused = true;
  }
}

const sha256 = (value: string | Buffer) => createHash("sha256").update(value).digest("hex");

/** Whether this route takes keys, and which error shape its refusals use. */
function dialectOf(method: string, url: string): Dialect | null {
  if (!WRITE_METHODS.has(method)) return null;
  if (url.startsWith("/v1/")) return "polar";
  if (url.startsWith("/api/auth/")) return "better-auth";
  return null;
}

/** Whether a request to `path` (no query string) takes a key, and which error shape its refusals use. */
export function takesIdempotencyKey(method: string, path: string): Dialect | null {
  if (!WRITE_METHODS.has(method)) return null;
  if (path.startsWith("/v1/")) return "polar";
  // better-auth's routes are one wildcard; of them only the checkout request takes keys
  if (method === "POST" && (path === "/api/auth/checkout" || path === "/api/auth/checkout/")) return "better-auth";
  return null;
}

function appliesTo(req: FastifyRequest): Dialect | null {
  return takesIdempotencyKey(req.method, req.url.split("?")[0] ?? "");
}

/** The header as an OpenAPI 3 parameter, declared on every operation that takes it (server/openapi/reference.ts). */
export const IDEMPOTENCY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes the write safe to retry: the first answer to a key is stored for 24 hours and replayed (with `Idempotent-Replayed: true`) " +
    "to a repeat of the same request (a request whose parameters fail validation keeps nothing); the key reused with another " +
    "method, path or body is refused; a repeat sent while the first runs waits for its answer. " +
    `At most ${MAX_KEY_LENGTH} characters; a UUID per logical write is the usual choice.`,
  schema: { type: "string", maxLength: MAX_KEY_LENGTH },
} as const;

// ---- refusals, in each API's error shape -----------------------------------------------------------------

type Refusal = "invalid" | "mismatch" | "in_progress" | "unreadable";

const MESSAGES: Record<Refusal, string> = {
  invalid: `The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters.`,
  mismatch: "This Idempotency-Key was already used for a different request (method, path or body) in the last 24 hours; use a new key for a new request.",
  in_progress: "A request with this Idempotency-Key is still being processed; retry it once it has answered.",
  unreadable: "The answer stored for this Idempotency-Key cannot be read (the server secret changed); use a new key.",
};

function refuse(reply: FastifyReply, dialect: Dialect, refusal: Refusal): FastifyReply {
  const message = MESSAGES[refusal];
  if (dialect === "better-auth") {
    const codes: Record<Refusal, [number, string]> = {
      invalid: [400, "VALIDATION_ERROR"],
      mismatch: [422, "IDEMPOTENCY_KEY_REUSED"],
      in_progress: [409, "IDEMPOTENCY_KEY_IN_PROGRESS"],
      unreadable: [409, "IDEMPOTENCY_KEY_UNREADABLE"],
    };
    const [status, code] = codes[refusal];
    return reply.code(status).send({ message, code });
  }
  if (refusal === "invalid" || refusal === "mismatch") {
    const type = refusal === "invalid" ? "idempotency_key_invalid" : "idempotency_key_reused";
    return reply.code(422).send({ detail: [{ loc: ["header", "Idempotency-Key"], msg: message, type }] });
  }
  const error = refusal === "in_progress" ? "IdempotencyKeyInProgress" : "IdempotencyKeyUnreadable";
  return reply.code(409).send({ error, detail: message });
}

// ---- the stored answer ---------------------------------------------------------------------------------

/** The stored body's key: only a holder of the idempotency key (and the server) can read the answer. */
function cipherKeyOf(secret: string, scope: string, key: string): Buffer {
  return createHmac("sha256", secret).update(`till idempotency\0${scope}\0${key}`).digest();
}

function seal(key: Buffer, plain: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
}

function open(key: Buffer, sealed: string): Buffer | null {
  try {
    const raw = Buffer.from(sealed, "base64");
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
  } catch {
    return null;
  }
}

function payloadBytes(payload: unknown): Buffer | null {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (typeof payload === "string") return Buffer.from(payload, "utf8");
  if (Buffer.isBuffer(payload)) return payload;
  return null; // a stream: not replayable
}

// ---- SQL -----------------------------------------------------------------------------------------------

interface StoredRow {
  request_hash: string;
  status: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/** postgres.js answers rows as an array, PGlite as `{ rows }`. */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/**
 * The key table's statements: a key claimed for a request (with a lease its process renews while it runs), read,
 * given back, or completed with the answer sealed.
 */
function keyStore(db: Db, ttlMs: number, leaseMs: number) {
  /**
   * Inserts the key in progress, or takes over an expired row or a lapsed lease of the same request; true when this
   * request holds it.
   */
  async function claim(scope: string, keyHash: string, requestHash: string, method: string, route: string): Promise<boolean> {
    const result = await db.execute(sql`
      INSERT INTO idempotency_key (scope, key_hash, request_hash, method, route, status, locked_until, created_at, expires_at)
      VALUES (${scope}, ${keyHash}, ${requestHash}, ${method}, ${route}, 'in_progress',
              now() + ${`${leaseMs} milliseconds`}::interval, now(), now() + ${`${ttlMs} milliseconds`}::interval)
      ON CONFLICT (scope, key_hash) DO UPDATE SET
        request_hash = excluded.request_hash, method = excluded.method, route = excluded.route, status = 'in_progress',
        locked_until = excluded.locked_until, response_status = NULL, response_headers = NULL, response_body = NULL,
        created_at = excluded.created_at, expires_at = excluded.expires_at
      WHERE idempotency_key.expires_at <= now()
         OR (idempotency_key.status = 'in_progress' AND idempotency_key.locked_until <= now()
             AND idempotency_key.request_hash = excluded.request_hash)
      RETURNING 1 AS claimed`);
    return rowsOf(result).length > 0;
  }

  async function stored(scope: string, keyHash: string): Promise<StoredRow | undefined> {
    const result = await db.execute(sql`
      SELECT request_hash, status, response_status, response_headers, response_body FROM idempotency_key
      WHERE scope = ${scope} AND key_hash = ${keyHash} AND expires_at > now()`);
    return rowsOf<StoredRow>(result)[0];
  }

  async function release(c: Claim): Promise<void> {
    await db.execute(sql`DELETE FROM idempotency_key WHERE scope = ${c.scope} AND key_hash = ${c.keyHash} AND status = 'in_progress'`);
  }

  async function complete(c: Claim, status: number, headers: Record<string, string>, body: Buffer): Promise<void> {
    await db.execute(sql`
      UPDATE idempotency_key SET status = 'done', locked_until = NULL, response_status = ${status},
        response_headers = ${JSON.stringify(headers)}::jsonb, response_body = ${seal(c.cipherKey, body)}
      WHERE scope = ${c.scope} AND key_hash = ${c.keyHash} AND status = 'in_progress'`);
  }

  async function renew(scope: string, keyHash: string): Promise<void> {
    await db.execute(sql`UPDATE idempotency_key SET locked_until = now() + ${`${leaseMs} milliseconds`}::interval
                         WHERE scope = ${scope} AND key_hash = ${keyHash} AND status = 'in_progress'`);
  }

  return { claim, stored, release, complete, renew };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function installIdempotency(app: FastifyInstance, opts: IdempotencyOptions): void {
  const { db } = opts;
  const ttlMs = opts.ttlMs ?? 24 * 60 * 60 * 1000;
  const waitMs = opts.waitMs ?? 10_000;
  const leaseMs = opts.leaseMs ?? 60_000;

  const { claim, stored, release, complete, renew } = keyStore(db, ttlMs, leaseMs);

  function settle(req: FastifyRequest): Claim | undefined {
    const c = req.idempotencyClaim;
    if (!c || c.settled) return undefined;
    c.settled = true;
    clearInterval(c.heartbeat);
    return c;
  }

  async function idempotencyPreHandler(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    const dialect = appliesTo(req);
    const header = req.headers[IDEMPOTENCY_HEADER];
    if (!dialect || header === undefined) return;
    const key = Array.isArray(header) ? header.join(", ") : header;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key) || key.trim() === "") {
      return refuse(reply, dialect, "invalid");
    }
    const scope = await opts.scopeOf(req);
    if (scope === null) return;
    const keyHash = sha256(key);
    const bodyHash = req.idempotencyBodyHash?.digest("hex") ?? sha256("");
    const requestHash = sha256(`${req.method}\n${req.url}\n${bodyHash}`);
    const route = req.routeOptions.url ?? "";
    const deadline = Date.now() + waitMs;
    for (let pause = 20; ; pause = Math.min(pause * 2, 250)) {
      if (await claim(scope, keyHash, requestHash, req.method, route)) {
        // the lease says the request is alive; a process that dies stops renewing it, and a retry may then take over
        const heartbeat = setInterval(() => {
          renew(scope, keyHash).catch((err: unknown) => req.log.warn(err, "idempotency: lease renewal failed"));
        }, Math.max(leaseMs / 3, 50));
        heartbeat.unref();
        const c: Claim = { scope, keyHash, cipherKey: cipherKeyOf(opts.secret, scope, key), settled: false, heartbeat };
        req.idempotencyClaim = c;
        return;
      }
      const row = await stored(scope, keyHash);
      if (!row) continue; // expired or released meanwhile: claim it again
      if (row.request_hash !== requestHash) return refuse(reply, dialect, "mismatch");
      if (row.status === "done" && row.response_status !== null) {
        const body = row.response_body === null ? Buffer.alloc(0) : open(cipherKeyOf(opts.secret, scope, key), row.response_body);
        if (!body) return refuse(reply, dialect, "unreadable");
        reply.code(row.response_status).headers(row.response_headers ?? {}).header(REPLAYED_HEADER, "true");
        return reply.send(body);
      }
      if (Date.now() + pause > deadline) return refuse(reply, dialect, "in_progress");
      await sleep(pause);
    }
  }

  // the body's bytes are hashed as they are read, whatever the route's parser does with them
  const hashBody: preParsingAsyncHookHandler = async (req, _reply, payload) => {
    if (!appliesTo(req) || req.headers[IDEMPOTENCY_HEADER] === undefined) return payload;
    const hash = createHash("sha256");
    req.idempotencyBodyHash = hash;
    const tee = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    pipeline(payload, tee, () => {});
    return tee;
  };

  // the answer is stored before it is sent: a client that got it and retries always finds it
  const storeAnswer: onSendAsyncHookHandler = async (req, reply, payload) => {
    const c = settle(req);
    if (!c) return payload;
    const body = payloadBytes(payload);
    try {
      if (NOT_STORED(reply.statusCode) || body === null || req.inputRefused) {
        await release(c);
      } else {
        const headers: Record<string, string> = {};
        for (const name of REPLAYED_HEADERS) {
          const value = reply.getHeader(name);
          if (typeof value === "string") headers[name] = value;
        }
        await complete(c, reply.statusCode, headers, body);
      }
    } catch (err) {
      req.log.error(err, "idempotency: the answer could not be stored");
    }
    return payload;
  };

  // a request that ended without an answer (hijacked, or failed before onSend) gives its key back
  const releaseUnanswered: onResponseAsyncHookHandler = async (req) => {
    const c = settle(req);
    if (c) await release(c).catch((err: unknown) => req.log.error(err, "idempotency: the key could not be released"));
  };

  // Only the write routes that take keys carry these hooks (route-hooks.ts): a read runs none of them. The check
  // is the route's last preHandler, after its authentication and its declared input's validation (a request that
  // its input refuses never began: its key stays unused, and the corrected request may take it, as on Stripe);
  // the answer is stored after the app's onSend hooks have had their say, as the client gets it.
  const check = keepLast(idempotencyPreHandler);
  app.addHook("onRoute", (route: RouteOptions) => {
    const methods = methodsOf(route);
    if (!methods.some((m) => dialectOf(m, route.url) !== null)) return;
    route.preHandler = withHook(route.preHandler, check);
    route.preParsing = withHook(route.preParsing, hashBody);
    route.onSend = withHook(route.onSend, storeAnswer);
    route.onResponse = withHook(route.onResponse, releaseUnanswered);
  });
}

/** Deletes expired keys, up to `limit` (the jobs' cleanup calls it in batches). */
export async function deleteExpiredIdempotencyKeys(db: Db, limit: number): Promise<number> {
  const result = await db.execute(sql`
    DELETE FROM idempotency_key WHERE (scope, key_hash) IN (
      SELECT scope, key_hash FROM idempotency_key WHERE expires_at <= now() LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING 1`);
  return rowsOf(result).length;
}

/**
 * Whose keys a request's are: the organization a token acts for, the customer of a portal session, the user of a
 * session without an organization (or of the checkout request), the checkout whose client secret is in the path
 * (only its hash), else the client's address (public routes with no credential of their own).
 */
export function requestScope(sessionUserId: (req: FastifyRequest) => Promise<string | null>) {
  return async function scopeOf(req: FastifyRequest): Promise<string> {
    if (req.orgScope) return `organization:${req.orgScope.organizationId}`;
    if (req.portal) return `customer:${req.portal.customer.id}`;
    if (req.caller?.user) return `user:${req.caller.user.id}`;
    const secret = (req.params as { client_secret?: unknown } | undefined)?.client_secret;
    if (typeof secret === "string") return `checkout:${sha256(secret)}`;
    if (req.url.startsWith("/api/auth/")) {
      const userId = await sessionUserId(req);
      if (userId) return `user:${userId}`;
    }
    return `address:${req.ip}`;
  };
}
