// Every better-auth route, every field, every wrong type: the routes are read from better-auth's own
// endpoint list (`auth.api`: path, method, body and query schemas), not from the OpenAPI document (which leaves
// some out and describes bodies loosely; tests/api/fuzz-openapi.test.ts fuzzes that one at random). For each
// route a plausible body is built from its zod schema — every field of every branch of a union filled, the way
// `{"permission":{…},"permissions":{…}}` fills both of has-permission's — and then each field in turn (nested
// ones, and the containers themselves) gets each wrong-typed value: an object, an array, a string, a fraction, a
// boolean, null, 1e309, …; a body-as-record route (update-user, update-session) gets each of the user's or
// session's columns alone beside a valid name. Each query field gets repeated, bracketed, empty and numeric-edge
// values. Sent with the seller's session cookie (an admin, with an active organization) except the routes that would
// end it, which are sent without. The property: no answer is a 5xx, and the session still works afterwards. Bounded:
// one request per (route, field, value), each with a 20-second timeout, and the whole walk within FUZZ_BUDGET_MS.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { getTableColumns } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { session as sessionTable, user as userTable } from "../../server/db/schema/index.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const FUZZ_BUDGET_MS = 420_000;
const AUTH_BASE = "/api/auth";

/** Routes that end the credentials the walk runs with: sent without them, so the walk keeps its session. */
const ENDS_CREDENTIALS = new Set([
  "/sign-out",
  "/revoke-sessions",
  "/revoke-other-sessions",
  "/revoke-session",
  "/delete-user",
  "/change-password",
  "/delete-anonymous-user",
  "/update-session",
  "/organization/delete",
  "/organization/leave",
  "/organization/remove-member",
  "/organization/update-member-role",
  "/api-key/delete",
  "/api-key/update",
  "/admin/impersonate-user",
  "/admin/stop-impersonating",
  "/admin/set-role",
  "/admin/revoke-user-sessions",
  "/admin/remove-user",
  "/admin/ban-user",
  "/admin/set-user-password",
]);

/** JSON text inserted as is (a number no JS number can hold). */
class Raw {
  constructor(readonly text: string) {}
}

function jsonText(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(",")}]`;
  if (v !== null && typeof v === "object") return `{${Object.entries(v).map(([k, item]) => `${JSON.stringify(k)}:${jsonText(item)}`).join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

/** The wrong-typed values every field gets in turn. */
const WRONG: unknown[] = [{}, [], "fuzz", 1.5, -1, true, null, new Raw("1e309"), [{}], { a: {} }, ["x", 1]];
/** What a query field gets: the key repeated (an array), bracketed (an object), empty, numeric edges, text. */
const WRONG_QUERY = (k: string) => [`${k}=a&${k}=b`, `${k}[a]=1`, `${k}=`, `${k}=1e309`, `${k}=-1`, `${k}=1.5`, `${k}=fuzz`, `${k}=true`, `${k}[]=x`];

// ---- reading better-auth's zod schemas ------------------------------------------------------------------

interface ZodLike {
  def?: ZodDef;
  _zod?: { def?: ZodDef };
}
interface ZodDef {
  type?: string;
  shape?: Record<string, ZodLike>;
  innerType?: ZodLike;
  in?: ZodLike;
  options?: ZodLike[];
  left?: ZodLike;
  right?: ZodLike;
  valueType?: ZodLike;
  element?: ZodLike;
  entries?: Record<string, string | number>;
  values?: unknown[];
  getter?: () => ZodLike;
}

const defOf = (s: ZodLike | undefined): ZodDef => s?._zod?.def ?? s?.def ?? {};

/** The schema with its wrappers (optional, nullable, default, pipe, lazy…) taken off. */
function unwrap(s: ZodLike | undefined, depth = 0): ZodLike | undefined {
  const d = defOf(s);
  if (depth > 20) return s;
  if (d.innerType) return unwrap(d.innerType, depth + 1);
  if (d.type === "pipe" && d.in) return unwrap(d.in, depth + 1);
  if (d.type === "lazy" && d.getter) return unwrap(d.getter(), depth + 1);
  return s;
}

interface Fixtures {
  organizationId: string;
  userId: string;
}

/** A right-typed value for a field, from its name where the name says more than its type. */
function stringFor(name: string, fx: Fixtures): string {
  if (/^organizationId$/i.test(name)) return fx.organizationId;
  if (/^userId$/i.test(name)) return fx.userId;
  if (/email/i.test(name)) return `fuzz-${randomUUID().slice(0, 8)}@example.com`;
  if (/password/i.test(name)) return "fuzz-password-1";
  if (/url|redirect/i.test(name)) return "/";
  return "fuzz";
}

/** A plausible value for the schema: every field of every object branch filled. */
function sample(s: ZodLike | undefined, name: string, fx: Fixtures, depth = 0): unknown {
  const u = unwrap(s);
  const d = defOf(u);
  if (depth > 8) return "fuzz";
  switch (d.type) {
    case "object":
      return Object.fromEntries(Object.entries(d.shape ?? {}).map(([k, v]) => [k, sample(v, k, fx, depth + 1)]));
    case "intersection": {
      const l = sample(d.left, name, fx, depth + 1);
      const r = sample(d.right, name, fx, depth + 1);
      return isRecord(l) && isRecord(r) ? { ...l, ...r } : l;
    }
    case "union": {
      const options = (d.options ?? []).map((o) => sample(o, name, fx, depth + 1));
      const objects = options.filter(isRecord);
      return objects.length > 0 ? Object.assign({}, ...objects) : options[0];
    }
    case "record":
      return { organization: sample(d.valueType, "organization", fx, depth + 1) };
    case "array":
      return [sample(d.element, name, fx, depth + 1)];
    case "number":
    case "int":
      return 1;
    case "boolean":
      return true;
    case "enum":
      return Object.values(d.entries ?? {})[0] ?? "fuzz";
    case "literal":
      return d.values?.[0] ?? "fuzz";
    case "date":
      return new Date(Date.now() + 86_400_000).toISOString();
    default:
      return stringFor(name, fx);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Raw);

/** Every path into a value: each field, nested ones and array items, the containers included. */
function pathsOf(v: unknown, prefix: Array<string | number> = [], depth = 0): Array<Array<string | number>> {
  if (depth > 8) return [];
  const out: Array<Array<string | number>> = [];
  if (isRecord(v)) for (const [k, item] of Object.entries(v)) out.push([...prefix, k], ...pathsOf(item, [...prefix, k], depth + 1));
  else if (Array.isArray(v)) v.forEach((item, i) => out.push([...prefix, i], ...pathsOf(item, [...prefix, i], depth + 1)));
  return out;
}

function withValue(base: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(base)) {
    const copy = [...base];
    copy[head as number] = withValue(copy[head as number], rest, value);
    return copy;
  }
  const obj = isRecord(base) ? { ...base } : {};
  obj[head as string] = withValue(obj[head as string], rest, value);
  return obj;
}

const valueAt = (v: unknown, path: Array<string | number>): unknown =>
  path.reduce<unknown>((cur, k) => (isRecord(cur) ? cur[k as string] : Array.isArray(cur) ? cur[k as number] : undefined), v);

// ---- the routes ---------------------------------------------------------------------------------------

interface Route {
  name: string;
  path: string;
  method: "GET" | "POST";
  body: unknown;
  queryFields: string[];
  /**
   * A body-as-record route's fields: each sent alone beside a valid name (a field the route refuses, such as email,
   * would stop the others early).
   */
  recordFields?: string[];
}

interface EndpointLike {
  path?: string;
  options?: { method?: string | string[]; body?: ZodLike; query?: ZodLike; metadata?: { SERVER_ONLY?: boolean } };
}

/** The fields of a body that is a record of anything: the columns of the row it writes. */
const RECORD_BODIES: Record<string, () => string[]> = {
  "/update-user": () => Object.keys(getTableColumns(userTable)),
  "/update-session": () => Object.keys(getTableColumns(sessionTable)),
};

function routesOf(api: Record<string, EndpointLike>, fx: Fixtures): Route[] {
  const routes: Route[] = [];
  for (const [name, ep] of Object.entries(api)) {
    if (!ep.path || ep.options?.metadata?.SERVER_ONLY) continue;
    const raw = ep.options?.method ?? "GET";
    const methods = (Array.isArray(raw) ? raw : [raw]).map((m) => (m === "*" ? "POST" : m)).filter((m): m is "GET" | "POST" => m === "GET" || m === "POST");
    const recordFields = RECORD_BODIES[ep.path];
    const body = recordFields ? { name: "Fuzz" } : ep.options?.body ? sample(ep.options.body, "", fx) : undefined;
    const query = sample(ep.options?.query, "", fx);
    const queryFields = isRecord(query) ? Object.keys(query) : [];
    for (const method of new Set(methods)) {
      const route: Route = { name, path: ep.path.replace(/:[a-zA-Z]+/g, "fuzz"), method, body: method === "GET" ? undefined : (body ?? {}), queryFields };
      if (recordFields && method !== "GET") route.recordFields = recordFields();
      routes.push(route);
    }
  }
  return routes;
}

// ---- the walk -----------------------------------------------------------------------------------------

let server: TestServer;
let seller: Seller;
let fx: Fixtures;
let cookie: string;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "authfuzz");
  // a platform admin, so the admin routes get past their permission checks
  await server.database.db.update(userTable).set({ role: "admin" }).where(eq(userTable.id, seller.user.id));
  const victim = new Client(server.url);
  const { user: other } = await victim.signUp(uniqueEmail("authfuzz-victim"));
  fx = { organizationId: seller.organizationId, userId: other.id };
  cookie = [...seller.client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
}, 120_000);
afterAll(async () => server?.close());

async function send(route: Route, query: string, body: unknown, withCookie: boolean): Promise<number> {
  const headers: Record<string, string> = { origin: server.url };
  if (withCookie) headers.cookie = cookie;
  if (body !== undefined) headers["content-type"] = "application/json";
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 20_000);
  try {
    const url = `${server.url}${AUTH_BASE}${route.path}${query ? `?${query}` : ""}`;
    const res = await fetch(url, { method: route.method, headers, body: body === undefined ? undefined : jsonText(body), redirect: "manual", signal: abort.signal });
    await res.arrayBuffer();
    return res.status;
  } finally {
    clearTimeout(timer);
  }
}

describe("every better-auth route, every field, every wrong type", () => {
  it("reads the routes from better-auth's own list, the review's two among them", () => {
    const routes = routesOf(server.auth.api as unknown as Record<string, EndpointLike>, fx);
    const names = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const r of ["POST /organization/has-permission", "POST /update-user", "POST /admin/has-permission", "POST /sign-up/email", "GET /reset-password/fuzz", "POST /checkout"]) {
      expect(names, r).toContain(r);
    }
    expect(routes.length).toBeGreaterThan(90);
    // has-permission's body has both branches of its union filled; update-user's the user's columns
    const has = routes.find((r) => r.path === "/organization/has-permission");
    expect(Object.keys(has?.body as object).sort()).toEqual(["organizationId", "permission", "permissions"]);
    const update = routes.find((r) => r.path === "/update-user");
    expect(update?.recordFields).toEqual(expect.arrayContaining(["name", "username", "displayUsername", "image"]));
  });

  it("answers the review's two bodies with 400 VALIDATION_ERROR", async () => {
    const has = await seller.client.post<{ code?: string }>("/api/auth/organization/has-permission", {
      permission: { products: ["read"] },
      permissions: { organization: 1.5 },
    });
    expect(has.status, has.text).toBe(400);
    expect(has.body.code).toBe("VALIDATION_ERROR");
    const update = await seller.client.post<{ code?: string }>("/api/auth/update-user", { name: "x", username: {} });
    expect(update.status, update.text).toBe(400);
    expect(update.body.code).toBe("VALIDATION_ERROR");
    // a valid permission request is still answered
    const ok = await seller.client.post<{ success?: boolean }>("/api/auth/organization/has-permission", { permissions: { organization: ["update"] } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.success).toBe(true);
  });

  it("answers no wrong-typed field of any route with a 5xx, within the budget, and the session still works", async () => {
    const routes = routesOf(server.auth.api as unknown as Record<string, EndpointLike>, fx);
    const deadline = Date.now() + FUZZ_BUDGET_MS;
    const failures: string[] = [];
    let sent = 0;
    const check = async (route: Route, query: string, body: unknown) => {
      if (Date.now() > deadline) throw new Error(`over the ${FUZZ_BUDGET_MS} ms budget after ${sent} requests`);
      const withCookie = !ENDS_CREDENTIALS.has(route.path);
      const status = await send(route, query, body, withCookie);
      sent++;
      if (status >= 500) failures.push(`${status}: ${route.method} ${AUTH_BASE}${route.path}${query ? `?${query}` : ""} ${body === undefined ? "" : jsonText(body).slice(0, 300)}`);
    };
    for (const route of routes) {
      if (route.body !== undefined) {
        for (const path of pathsOf(route.body)) {
          const current = JSON.stringify(valueAt(route.body, path));
          for (const wrong of WRONG) {
            if (!(wrong instanceof Raw) && JSON.stringify(wrong) === current) continue;
            await check(route, "", withValue(route.body, path, wrong));
          }
        }
        // the whole body of the wrong type, and every field wrong at once
        for (const wrong of WRONG) await check(route, "", wrong);
        const allWrong = pathsOf(route.body).filter((p) => p.length === 1).reduce<unknown>((b, p) => withValue(b, p, { a: 1 }), route.body);
        await check(route, "", allWrong);
      }
      for (const field of route.recordFields ?? []) for (const wrong of WRONG) await check(route, "", { ...(route.body as object), [field]: wrong });
      for (const field of route.queryFields) for (const q of WRONG_QUERY(encodeURIComponent(field))) await check(route, q, route.body);
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(1000);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await seller.client.get<{ user: unknown } | null>("/api/auth/get-session")).body?.user).toBeTruthy();
  }, FUZZ_BUDGET_MS + 60_000);
});
