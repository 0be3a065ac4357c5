// The one place that talks to the server: a small client for /api/auth (better-auth: device flow,
// organizations, API keys), raw requests for `till api`, and the Polar SDK for /v1 commands. Every error
// becomes a typed CliError here, so commands never see a fetch exception or a status code.
import { randomUUID } from "node:crypto";
import type { PolarCore } from "@polar-sh/sdk/core.js";
import { type Context, type Credential, requireCredential } from "./context.js";
import { ApiError, AuthRequiredError, CliError, ERROR_CODES, EXIT, type RequestInfo as SentRequest } from "./errors.js";
import { describeIssues, missingScope, scopeRefusal } from "./server-errors.js";
import { exchange } from "./http.js";
import { SANDBOX_HEADER } from "./mode.js";

export interface HttpResponse {
  status: number;
  /** Parsed JSON, or the text when the body is not JSON, or null when empty. */
  body: unknown;
  /** The server's X-Request-Id (its log lines carry the same id). */
  requestId?: string | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function parseBody(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The message and code of an error body in any of the server's shapes. */
export function describeErrorBody(status: number, body: unknown): { message: string; code: string } {
  const fallback = { message: `the server answered ${status}`, code: `http_${status}` };
  if (typeof body === "string" && body.trim() !== "") return { message: body.trim().slice(0, 500), code: fallback.code };
  if (!isRecord(body)) return fallback;
  // /v1 (Polar): {"error":"ResourceNotFound","detail":"…"} or 422 {"detail":[{loc,msg,type}]}
  if (Array.isArray(body.detail)) {
    const issues = body.detail
      .filter(isRecord)
      .map((d) => `${Array.isArray(d.loc) ? d.loc.join(".") : "?"}: ${String(d.msg)}`);
    return { message: issues.join("; ") || fallback.message, code: typeof body.error === "string" ? body.error : "RequestValidationError" };
  }
  if (typeof body.detail === "string") {
    return { message: body.detail, code: typeof body.error === "string" ? body.error : fallback.code };
  }
  // better-auth: {"message":"…","code":"…"}; OAuth (device flow): {"error":"…","error_description":"…"}
  if (typeof body.message === "string") {
    return { message: body.message, code: typeof body.code === "string" ? body.code : fallback.code };
  }
  if (typeof body.error_description === "string") {
    return { message: body.error_description, code: typeof body.error === "string" ? body.error : fallback.code };
  }
  return fallback;
}

function unauthorized(credential: Credential | null, message: string, request: SentRequest): AuthRequiredError {
  const hint =
    credential?.source === "env"
      ? "TILL_API_KEY was refused: check that the key exists, is enabled and has not expired"
      : credential?.source === "flag"
        ? "the --api-key value was refused: check the key"
        : "run `till login` to sign in again";
  return new AuthRequiredError(`the server refused your credentials: ${message}`, { code: ERROR_CODES.unauthorized, hint, request });
}

/**
 * Throws the CliError for a non-2xx answer to `what` ("POST /v1/products/", shown only with --verbose):
 * 401 → exit 4; 403 for a missing scope → exit 4 naming the scope and the key that grants it; 422 → exit 2
 * with each field named by the flag that sets it; anything else → exit 1 with the server's message.
 */
export function failFor(res: HttpResponse, credential: Credential | null, what: string): never {
  const { message, code } = describeErrorBody(res.status, res.body);
  const [method = "", ...rest] = what.split(" ");
  const request: SentRequest = { method, path: rest.join(" "), status: res.status, requestId: res.requestId };
  if (res.status === 401) throw unauthorized(credential, message, request);
  const scope = res.status === 403 ? missingScope(message) : undefined;
  if (scope) {
    const said = scopeRefusal(scope, credential);
    throw new ApiError(403, said.message, ERROR_CODES.missingScope, said.hint, { exitCode: EXIT.authRequired, request });
  }
  if (res.status === 422 && isRecord(res.body) && Array.isArray(res.body.detail)) {
    const issues = res.body.detail.filter(isRecord).map((d) => ({ loc: Array.isArray(d.loc) ? d.loc : [], msg: String(d.msg) }));
    if (issues.length > 0) throw new ApiError(422, describeIssues(issues), code, undefined, { exitCode: EXIT.usage, request });
  }
  throw new ApiError(res.status, message, code, undefined, { request });
}

export interface RequestOptions {
  body?: unknown;
  credential?: Credential | null;
  headers?: Record<string, string>;
  /**
   * Sent as Idempotency-Key; the request is then retried with it (twice) when its answer may have been lost —
   * a reset connection, a 502/503/504, or the server still busy with the same key — and the server answers a
   * retry of what it already did with that first answer.
   */
  idempotencyKey?: string;
}

/** How long one request may take before the CLI gives up on the server. */
const REQUEST_TIMEOUT_MS = 60_000;

export const IDEMPOTENCY_HEADER = "idempotency-key";
/** What a write is: each one is sent with a key of its own (the server ignores keys elsewhere). */
export const isWrite = (method: string) => method === "POST" || method === "PATCH" || method === "PUT" || method === "DELETE";
/** A new key for one logical write. */
export const newIdempotencyKey = () => randomUUID();
/** The pauses before a keyed request's retries. */
const RETRY_DELAYS_MS = [250, 1000];

/** The request may have reached the server and its answer got lost (a refused connection never sent anything). */
export function answerLost(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET" || code === "UND_ERR_CLOSED") return true;
  return err instanceof Error && /closed the connection/.test(err.message);
}

/** An answer that says "try again": a gateway's, or the server still running the first request with this key. */
export function retryableStatus(status: number, body: unknown): boolean {
  if (status === 502 || status === 503 || status === 504) return true;
  return status === 409 && isRecord(body) && body.error === "IdempotencyKeyInProgress";
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One HTTP request to the server; network failures become a CliError, statuses are the caller's business. */
export async function request(ctx: Context, method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
  // better-auth checks Origin on state-changing requests; a CLI is not a browser, so it names the server itself
  const headers: Record<string, string> = { accept: "application/json", origin: ctx.server, ...opts.headers };
  if (opts.credential) headers.authorization = `Bearer ${opts.credential.token}`;
  if (opts.idempotencyKey !== undefined) headers[IDEMPOTENCY_HEADER] = opts.idempotencyKey;
  if (opts.credential && ctx.sandbox) headers[SANDBOX_HEADER] = "true";
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  const retries = opts.idempotencyKey === undefined ? [] : RETRY_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    const last = attempt >= retries.length;
    try {
      const started = Date.now();
      const res = await exchange(new URL(`${ctx.server}${path}`), { method, headers, body, timeoutMs: REQUEST_TIMEOUT_MS });
      const requestId = res.headers["x-request-id"];
      if (ctx.verbose) ctx.out.notice(`${method} ${path.split("?")[0]} → ${res.status} (${Date.now() - started} ms${requestId ? `, request id ${requestId}` : ""})`);
      const answer = { status: res.status, body: parseBody(res.text), requestId };
      if (last || !retryableStatus(answer.status, answer.body)) return answer;
    } catch (err) {
      if (last || !answerLost(err)) {
        const lost = opts.idempotencyKey !== undefined && answerLost(err);
        throw new CliError(`cannot reach ${ctx.server}: ${err instanceof Error ? err.message : String(err)}`, {
          code: ERROR_CODES.network,
          hint: lost
            ? `the server may have done it: send it again with the same Idempotency-Key (${opts.idempotencyKey}) to find out without doing it twice`
            : "is the server running? Choose another with --server or TILL_SERVER",
        });
      }
    }
    await sleep(retries[attempt] ?? 0);
  }
}

export interface AuthClient {
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
}

/** better-auth under /api/auth, as the given credential (or anonymously for the device flow). */
export function authClient(ctx: Context, credential: Credential | null): AuthClient {
  async function call<T>(method: string, path: string, body: unknown): Promise<T> {
    const res = await request(ctx, method, `/api/auth${path}`, { body, credential });
    if (res.status < 200 || res.status >= 300) failFor(res, credential, `${method} /api/auth${path}`);
    return res.body as T;
  }
  return {
    get(path, query) {
      const qs = query ? new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined)) : null;
      return call("GET", qs && qs.size > 0 ? `${path}?${qs}` : path, undefined);
    },
    post(path, body = {}) {
      return call("POST", path, body);
    },
  };
}

/** A page of a /v1 list (Polar's pagination). */
export interface Page<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

export interface V1Client {
  get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  /** A write, with an Idempotency-Key of its own (a new one unless given) that its retries reuse. */
  send<T>(method: "POST" | "PATCH" | "PUT" | "DELETE", path: string, body?: unknown, idempotencyKey?: string): Promise<T>;
  /** `send`, with the success's status (a 202: accepted, not done yet). */
  sendFor<T>(method: "POST" | "PATCH" | "PUT" | "DELETE", path: string, body?: unknown, idempotencyKey?: string): Promise<{ status: number; body: T }>;
  /** Every item of a paginated list, page by page (100 a page). */
  listAll<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T[]>;
}

function queryString(query: Record<string, string | number | undefined> | undefined): string {
  if (!query) return "";
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
  return qs.size > 0 ? `?${qs}` : "";
}

/**
 * /v1 as plain JSON (Polar's wire, snake_case) with the context's credential. This is the fast path for
 * commands: no SDK to load (see `polar` below for the cost), the same errors as everywhere else.
 */
export function v1(ctx: Context): V1Client {
  const credential = requireCredential(ctx);
  async function answer<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<{ status: number; body: T }> {
    const res = await request(ctx, method, `/v1${path}`, { body, credential, idempotencyKey });
    if (res.status < 200 || res.status >= 300) failFor(res, credential, `${method} /v1${path.split("?")[0]}`);
    return { status: res.status, body: res.body as T };
  }
  const call = async <T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> => (await answer<T>(method, path, body, idempotencyKey)).body;
  return {
    get: (path, query) => call("GET", `${path}${queryString(query)}`),
    send: (method, path, body, idempotencyKey) => call(method, path, body, idempotencyKey ?? newIdempotencyKey()),
    sendFor: (method, path, body, idempotencyKey) => answer(method, path, body, idempotencyKey ?? newIdempotencyKey()),
    async listAll<T>(path: string, query?: Record<string, string | number | undefined>) {
      const items: T[] = [];
      for (let page = 1; ; page++) {
        const res = await call<Page<T>>("GET", `${path}${queryString({ ...query, page, limit: 100 })}`);
        items.push(...res.items);
        if (page >= res.pagination.max_page || res.items.length === 0) return items;
      }
    },
  };
}

/** GET /api/whoami: who the credential is and which organization it acts for (the server's fast path). */
export interface Whoami {
  kind: "api_key" | "session";
  user: { id: string; email: string; name: string } | null;
  organization_id: string | null;
  /** Whether organization_id is a sandbox; live_organization_id is the organization it belongs to. */
  sandbox: boolean;
  live_organization_id: string | null;
  roles: string[];
  permissions: Record<string, string[]>;
  /** The API key's id, name and expiry; null for a session. */
  api_key?: { id: string; name: string | null; expires_at: string | null; organization: { name: string; slug: string } | null } | null;
}

export async function whoami(ctx: Context, credential: Credential): Promise<Whoami> {
  const res = await request(ctx, "GET", "/api/whoami", { credential });
  if (res.status !== 200) failFor(res, credential, "GET /api/whoami");
  return res.body as Whoami;
}

/** "Acme (acme), live": an organization and the mode a change lands in, for a message before or after it. */
export function organizationLabel(org: { name: string; slug: string }, sandbox: boolean): string {
  // the sandbox twin is named "<name> (sandbox)": the mode is said once
  return `${org.name.replace(/ \(sandbox\)$/, "")} (${org.slug}), ${sandbox ? "sandbox" : "live"}`;
}

/** The organization this run acts on (the key's, or the session's active one, in this run's mode), labelled. */
export async function actingOrganization(ctx: Context): Promise<string> {
  const who = await whoami(ctx, requireCredential(ctx));
  if (!who.organization_id) return ctx.server;
  const org = await v1(ctx).get<{ name: string; slug: string }>(`/organizations/${who.organization_id}`);
  return organizationLabel(org, who.sandbox);
}

/**
 * The Polar SDK's minimal client for /v1, as the context's credential. Use it with the SDK's standalone
 * functions (`import { productsList } from "@polar-sh/sdk/funcs/productsList.js"`) and `unwrap`: the full
 * `Polar` class loads every model of the API and would cost a --json command several times its run time.
 */
export async function polar(ctx: Context): Promise<PolarCore> {
  const credential = requireCredential(ctx);
  const [{ PolarCore }, { HTTPClient }] = await Promise.all([import("@polar-sh/sdk/core.js"), import("@polar-sh/sdk/lib/http.js")]);
  const httpClient = new HTTPClient({ fetcher: keyedFetch });
  // a session in sandbox mode says so on every request, as `request` does
  if (ctx.sandbox) httpClient.addHook("beforeRequest", (req) => void req.headers.set(SANDBOX_HEADER, "true"));
  return new PolarCore({ accessToken: credential.token, serverURL: ctx.server, httpClient });
}

/**
 * The SDK's fetch: every write carries an Idempotency-Key — the caller's (per-call `headers` option) or a new
 * one — and is retried with that same key when its answer may have been lost, like `request` above. The SDK's
 * own retries are off: its hooks would see each attempt as a new request.
 */
export async function keyedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const req = new Request(input, init);
  if (!isWrite(req.method)) return fetch(req);
  if (!req.headers.has(IDEMPOTENCY_HEADER)) req.headers.set(IDEMPOTENCY_HEADER, newIdempotencyKey());
  for (let attempt = 0; ; attempt++) {
    const last = attempt >= RETRY_DELAYS_MS.length;
    try {
      const res = await fetch(req.clone());
      if (last || !retryableStatus(res.status, await res.clone().json().catch(() => null))) return res;
    } catch (err) {
      if (last || !answerLost((err as { cause?: unknown }).cause ?? err)) throw err;
    }
    await sleep(RETRY_DELAYS_MS[attempt] ?? 0);
  }
}

type SdkResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The value of an SDK standalone function's result, or the CliError for its failure. */
export function unwrap<T>(ctx: Context, result: SdkResult<T>, what: string): T {
  if (result.ok) return result.value;
  const err = result.error;
  if (isRecord(err) && typeof err.statusCode === "number" && typeof err.body === "string") {
    const headers = isRecord(err.headers) && typeof (err.headers as { get?: unknown }).get === "function" ? (err.headers as unknown as Headers) : undefined;
    failFor({ status: err.statusCode, body: parseBody(err.body), requestId: headers?.get("x-request-id") ?? undefined }, ctx.credential, what);
  }
  if (err instanceof Error && err.name === "ConnectionError") {
    throw new CliError(`cannot reach ${ctx.server}: ${err.message}`, { code: ERROR_CODES.network });
  }
  throw new CliError(`${what}: ${err instanceof Error ? err.message : String(err)}`);
}
