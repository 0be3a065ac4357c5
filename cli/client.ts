// The one place that talks to the server: a small client for /api/auth (better-auth: device flow,
// organizations, API keys), raw requests for `till api`, and the Polar SDK for /v1 commands. Every error
// becomes a typed CliError here, so commands never see a fetch exception or a status code.
import type { PolarCore } from "@polar-sh/sdk/core.js";
import { type Context, type Credential, requireCredential } from "./context.js";
import { ApiError, AuthRequiredError, CliError, ERROR_CODES } from "./errors.js";

export interface HttpResponse {
  status: number;
  /** Parsed JSON, or the text when the body is not JSON, or null when empty. */
  body: unknown;
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

function unauthorized(credential: Credential | null, message: string): AuthRequiredError {
  const hint =
    credential?.source === "env"
      ? "TILL_API_KEY was refused: check that the key exists, is enabled and has not expired"
      : credential?.source === "flag"
        ? "the --api-key value was refused: check the key"
        : "run `till login` to sign in again";
  return new AuthRequiredError(`the server refused your credentials: ${message}`, { code: ERROR_CODES.unauthorized, hint });
}

/** Throws the CliError for a non-2xx answer (401 → exit 4, anything else → exit 1). */
export function failFor(res: HttpResponse, credential: Credential | null, what: string): never {
  const { message, code } = describeErrorBody(res.status, res.body);
  if (res.status === 401) throw unauthorized(credential, message);
  throw new ApiError(res.status, `${what}: ${message}`, code);
}

export interface RequestOptions {
  body?: unknown;
  credential?: Credential | null;
  headers?: Record<string, string>;
}

/** One HTTP request to the server; network failures become a CliError, statuses are the caller's business. */
export async function request(ctx: Context, method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
  // better-auth checks Origin on state-changing requests; a CLI is not a browser, so it names the server itself
  const headers: Record<string, string> = { accept: "application/json", origin: ctx.server, ...opts.headers };
  if (opts.credential) headers.authorization = `Bearer ${opts.credential.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(`${ctx.server}${path}`, { method, headers, body, redirect: "manual" });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw new CliError(`cannot reach ${ctx.server}: ${cause}`, {
      code: ERROR_CODES.network,
      hint: "is the server running? Choose another with --server or TILL_SERVER",
    });
  }
  return { status: res.status, body: parseBody(await res.text()) };
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

/**
 * The Polar SDK's minimal client for /v1, as the context's credential. Use it with the SDK's standalone
 * functions (`import { productsList } from "@polar-sh/sdk/funcs/productsList.js"`) and `unwrap`: the full
 * `Polar` class loads every model of the API and would cost a --json command several times its run time.
 */
export async function polar(ctx: Context): Promise<PolarCore> {
  const credential = requireCredential(ctx);
  const { PolarCore } = await import("@polar-sh/sdk/core.js");
  return new PolarCore({ accessToken: credential.token, serverURL: ctx.server });
}

type SdkResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The value of an SDK standalone function's result, or the CliError for its failure. */
export function unwrap<T>(ctx: Context, result: SdkResult<T>, what: string): T {
  if (result.ok) return result.value;
  const err = result.error;
  if (isRecord(err) && typeof err.statusCode === "number" && typeof err.body === "string") {
    failFor({ status: err.statusCode, body: parseBody(err.body) }, ctx.credential, what);
  }
  if (err instanceof Error && err.name === "ConnectionError") {
    throw new CliError(`cannot reach ${ctx.server}: ${err.message}`, { code: ERROR_CODES.network });
  }
  throw new CliError(`${what}: ${err instanceof Error ? err.message : String(err)}`);
}
