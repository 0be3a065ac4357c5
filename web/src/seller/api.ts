// The seller pages' calls to the API: /v1 through the server's /api/web door (server/http/web-api.ts), which turns
// the session cookie into the session's bearer, so the pages see exactly what the API answers, permissions and
// errors included. Every call names the organization and the side (Till-Sandbox) the page is on; every write
// carries an Idempotency-Key, so a retried click never acts twice.
import type { ApiError, Result } from "../api.js";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Which organization and which side a call acts on. */
export interface Scope {
  organizationId: string;
  sandbox: boolean;
}

/** Polar's page of a list. */
export interface ListPage<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

export type Query = Record<string, string | number | boolean | readonly string[] | undefined | null>;

const NETWORK_ERROR: ApiError = { status: 0, code: "NETWORK_ERROR", message: "Could not reach the server. Check your connection and try again." };

/** A 422's `detail` list (its messages, without the fields' paths), or an {error, detail} answer, as one sentence. */
export function messageOf(status: number, body: unknown): string {
  const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const detail = b.detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: unknown) => {
        // the server's path ("properties.role_id") is a developer's word: a form shows the message at its field
        const item = (d ?? {}) as { msg?: string };
        return item.msg ?? "invalid";
      })
      .join("; ");
  }
  if (typeof detail === "string" && detail) return detail;
  if (status === 403) return "Your role in this organization does not allow this.";
  if (status === 404) return "Not found in this organization (or on this side: sandbox and live are apart).";
  return `The server answered ${status}.`;
}

/** A 422's `detail` list as each field's path in the body and its message (the page shows them at the field). */
export function fieldErrorsOf(body: unknown): Array<{ path: string; message: string }> {
  const detail = (typeof body === "object" && body !== null ? (body as { detail?: unknown }).detail : undefined);
  if (!Array.isArray(detail)) return [];
  return detail.flatMap((d: unknown) => {
    const item = (d ?? {}) as { loc?: unknown[]; msg?: string };
    if (!Array.isArray(item.loc) || item.loc[0] !== "body") return [];
    return [{ path: item.loc.slice(1).map(String).join("."), message: item.msg ?? "invalid" }];
  });
}

const SEE_FIELDS = "Some fields need a change: see the messages under them.";

/**
 * A failed write said on its form: each field's message keyed by the form's own name for the body's path (`nameOf`
 * answers none when the form has no such field), and the rest as one sentence without the server's paths.
 */
export function formErrors(error: ApiError, nameOf: (path: string) => string | undefined): { at: Record<string, string>; rest: string } {
  const at: Record<string, string> = {};
  const rest: string[] = [];
  for (const f of error.fields ?? []) {
    const name = nameOf(f.path);
    if (name && !(name in at)) at[name] = f.message;
    else rest.push(f.message);
  }
  if (!error.fields?.length) rest.push(error.message);
  return { at, rest: rest.length ? rest.join("; ") : SEE_FIELDS };
}

export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === "") continue;
    if (Array.isArray(v)) for (const x of v as readonly string[]) params.append(k, x);
    else params.set(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** One /v1 call on the scope's organization and side. `path` starts after /v1 (e.g. "/products/"). */
export async function v1<T>(scope: Scope, method: Method, path: string, opts: { query?: Query; body?: Record<string, unknown> } = {}): Promise<Result<T>> {
  // /v1 takes a session's organization from the query on every method, so bodies stay the API's own
  const query = { organization_id: scope.organizationId, ...opts.query };
  const body = opts.body;
  const headers: Record<string, string> = { "till-web": "1", "till-sandbox": scope.sandbox ? "true" : "false" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET") headers["idempotency-key"] = crypto.randomUUID();
  let res: Response;
  try {
    res = await fetch(`/api/web/v1${path}${queryString(query)}`, { method, credentials: "same-origin", headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    return { ok: false, error: NETWORK_ERROR };
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (res.ok) return { ok: true, data: parsed as T };
  const code = typeof (parsed as { error?: unknown })?.error === "string" ? (parsed as { error: string }).error : undefined;
  const fields = fieldErrorsOf(parsed);
  return { ok: false, error: { status: res.status, code, message: messageOf(res.status, parsed), ...(fields.length ? { fields } : {}) } };
}

export interface WhoAmI {
  organization_id: string | null;
  sandbox: boolean;
  live_organization_id: string | null;
  roles: string[];
  permissions: Record<string, string[]>;
}

/** The session's roles in an organization (the dashboard hides what the role may not change), and on the sandbox
 *  side the id of its sandbox twin, which the side's calls name. */
export async function whoami(organizationId: string, sandbox: boolean): Promise<Result<WhoAmI>> {
  try {
    const res = await fetch(`/api/web/whoami?organization_id=${encodeURIComponent(organizationId)}`, {
      headers: { "till-web": "1", "till-sandbox": sandbox ? "true" : "false" },
      credentials: "same-origin",
    });
    const body: unknown = await res.json().catch(() => null);
    return res.ok ? { ok: true, data: body as WhoAmI } : { ok: false, error: { status: res.status, code: undefined, message: messageOf(res.status, body) } };
  } catch {
    return { ok: false, error: NETWORK_ERROR };
  }
}

/** Whether the roles let the member change a billing resource (the API's rule: owners and admins change all;
 *  other roles read, plus what a custom role grants). */
export function mayWrite(who: WhoAmI | undefined, resource: string): boolean {
  if (!who) return false;
  if (who.roles.includes("owner") || who.roles.includes("admin")) return true;
  return (who.permissions[resource] ?? []).includes("write");
}
