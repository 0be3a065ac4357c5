// Wire-level plumbing shared by every /v1 domain: the caller's organization scope, Polar-shaped errors
// (404 ResourceNotFound, 422 {detail:[{loc,msg,type}]}, 401/403), zod parsing with those errors,
// pagination and the query encodings the SDK sends (form/explode arrays, deepObject metadata).
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ALL_BILLING_PERMISSIONS, READ_BILLING_PERMISSIONS, grants, type Scope } from "../../shared/scopes.js";
import type { Caller, CallerResolver } from "../http/caller.js";
import { modeFromHeader, SANDBOX_HEADER } from "../http/mode.js";
import { sendCallerError } from "../http/whoami.js";
import type { RejectedInput, RejectedKind } from "../http/input-guard.js";
import { Slicer } from "../http/json-sliced.js";

export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
}

const REJECTED_TYPES: Record<RejectedKind, string> = {
  depth: "json_invalid",
  values: "json_invalid",
  keys: "json_invalid",
  names: "json_invalid",
  nul: "string_nul",
  surrogate: "string_unicode",
};

/** The input guard's refusal (server/http/input-guard.ts) as Polar's 422. */
export const rejectedInputIssue = (err: RejectedInput): ValidationIssue => ({
  loc: [err.where, ...err.loc],
  msg: err.message,
  type: REJECTED_TYPES[err.kind],
});

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.detail === "string" ? body.detail : `HTTP ${status}`);
  }
}

export const notFound = (detail = "Not found") => new ApiError(404, { error: "ResourceNotFound", detail });
export const notPermitted = (detail: string) => new ApiError(403, { error: "NotPermitted", detail });
export const validationError = (issues: ValidationIssue[]) => new ApiError(422, { detail: issues });
/** One 422 issue at `loc` (e.g. ["body", "code"]). */
export const invalid = (loc: Array<string | number>, msg: string, type = "value_error") =>
  validationError([{ loc, msg, type }]);

function issueType(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return input === undefined ? "missing" : `${issue.expected}_type`;
    case "too_small":
      return issue.origin === "string" ? "string_too_short" : issue.origin === "array" ? "too_short" : "greater_than_equal";
    case "too_big":
      return issue.origin === "string" ? "string_too_long" : issue.origin === "array" ? "too_long" : "less_than_equal";
    case "invalid_value":
      return "enum";
    case "unrecognized_keys":
      return "extra_forbidden";
    case "invalid_format":
      return issue.format === "datetime" ? "datetime_from_date_parsing" : `${issue.format}_parsing`;
    case "invalid_union":
      return "union_tag_invalid";
    default:
      return "value_error";
  }
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let cur = root;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/** What a 422 may echo back as `input`: a value this small when serialized (roughly), else none. */
const ECHO_BUDGET = 512;

/** Whether `value` serializes to at most ECHO_BUDGET characters (roughly); stops as soon as it is over, O(budget). */
function echoable(value: unknown): boolean {
  const spend = (v: unknown, budget: number): number => {
    if (budget < 0) return budget;
    if (typeof v === "string") return budget - v.length - 2;
    if (v === null || typeof v !== "object") return budget - 24;
    let left = budget - 2;
    // for…in stops at the first key over budget; Object.entries would copy a huge array first
    for (const key in v) {
      left = spend((v as Record<string, unknown>)[key], left - key.length - 4);
      if (left < 0) return left;
    }
    return left;
  };
  return spend(value, ECHO_BUDGET) >= 0;
}

export function zodIssues(error: z.ZodError, where: "body" | "query" | "path", input: unknown): ValidationIssue[] {
  return error.issues.map((issue) => {
    const value = valueAt(input, issue.path);
    const type = issueType(issue, value);
    return {
      loc: [where, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
      msg: type === "missing" ? "Field required" : issue.message,
      type,
      ...(value === undefined || !echoable(value) ? {} : { input: value }),
    };
  });
}

/** The issue zodIssues makes of a zod issue of code "custom" at `loc` about `value`. */
export const valueIssue = (loc: Array<string | number>, msg: string, value: unknown): ValidationIssue => ({
  loc,
  msg,
  type: "value_error",
  ...(value === undefined || !echoable(value) ? {} : { input: value }),
});

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, where: "body" | "query" | "path"): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(zodIssues(result.error, where, input));
  return result.data;
}

export const parseBody = <S extends z.ZodType>(schema: S, req: FastifyRequest) => parseWith(schema, req.body ?? {}, "body");

/** Elements validated between two looks at the clock in parseArraySliced. */
const ARRAY_SLICE = 10;

/**
 * A schema's answer for the common element without zod: its value, or its issues (`loc`: the element's place,
 * e.g. ["body", "events", 7]), exactly as zod would give them; undefined when zod must be asked.
 */
/** An element's value (`changed`: not the element as sent), or its issues; undefined: ask zod. */
export type FastCheck<T> = (item: unknown, loc: Array<string | number>) => { value: T; changed?: true } | { issues: ValidationIssue[] } | undefined;

/**
 * Validates a large array of the body (`loc`: where it is, e.g. ["events"]) against `element`, letting the
 * event loop run every few milliseconds: zod over 1,000 events with their metadata is tens of milliseconds in
 * one go, which every other request would wait for. `fast`, when given, answers for an element first (zod is
 * asked only where it cannot). The same issues as validating `z.array(element)` at once (every element's, with
 * its place), the same output. `counts.notAsSent`, when given, is increased by the elements zod was asked about
 * or the fast check changed (their value may not be the element as sent).
 */
export async function parseArraySliced<S extends z.ZodType>(
  element: S,
  items: readonly unknown[],
  loc: Array<string | number>,
  fast?: FastCheck<z.output<S>>,
  counts?: { notAsSent: number },
): Promise<Array<z.output<S>>> {
  const out: Array<z.output<S>> = [];
  const issues: ValidationIssue[] = [];
  // a big array in slices (the sliced parse's last slice just ran in this task)
  const slicer = items.length > ARRAY_SLICE ? await Slicer.begin() : undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const at = ["body", ...loc, i];
    const quick = fast?.(item, at);
    if (quick && "value" in quick) {
      out.push(quick.value);
      if (quick.changed && counts) counts.notAsSent++;
    } else if (quick) issues.push(...quick.issues);
    else {
      if (counts) counts.notAsSent++;
      const result = element.safeParse(item);
      if (result.success) out.push(result.data);
      else for (const issue of zodIssues(result.error, "body", item)) issues.push({ ...issue, loc: [...at, ...issue.loc.slice(1)] });
    }
    if (slicer && (i + 1) % ARRAY_SLICE === 0) await slicer.pause();
  }
  if (issues.length > 0) throw validationError(issues);
  return out;
}
export const parseQuery = <S extends z.ZodType>(schema: S, req: FastifyRequest) =>
  parseWith(schema, normalizeQuery(req.query), "query");

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === "string" && UUID_RE.test(v);

/** A path id: malformed → 422 like FastAPI's UUID4 validation; well-formed but unknown → the caller's 404. */
export function pathId(req: FastifyRequest, name = "id"): string {
  const v = (req.params as Record<string, unknown>)[name];
  if (!isUuid(v)) throw invalid(["path", name], "Input should be a valid UUID", "uuid_parsing");
  return v.toLowerCase();
}

// ---- query encodings ---------------------------------------------------------------------------

/**
 * Folds the SDK's deepObject encoding (`metadata[plan]=pro`) into nested objects; repeated keys stay arrays
 * (form/explode). Everything else is left as the strings the client sent.
 */
export function normalizeQuery(query: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!query || typeof query !== "object") return out;
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    const m = /^([^[\]]+)\[([^[\]]*)\]$/.exec(key);
    if (m) {
      const [, outer = "", inner = ""] = m;
      const bucket = (out[outer] ??= {}) as Record<string, unknown>;
      if (typeof bucket === "object" && bucket !== null && !Array.isArray(bucket)) bucket[inner] = value;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Query value that may be given once or repeated → array. */
export const queryArray = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item));

export const queryBool = z.preprocess(
  (v) => (v === "true" ? true : v === "false" ? false : v),
  z.boolean({ message: "Input should be a valid boolean" }),
);

export const queryInt = (min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v),
    z.number({ message: "Input should be a valid integer" }).int().min(min).max(max),
  );

// ---- shared field schemas ----------------------------------------------------------------------

const METADATA_MAX_KEYS = 50;
/** metadata: string → string | integer | number | boolean (keys ≤ 40 chars, strings ≤ 500, ≤ 50 keys). */
export const metadataInput = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number(), z.boolean()]))
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, {
    message: `Metadata can have at most ${METADATA_MAX_KEYS} keys`,
  });

/** Metadata filter in list queries (`metadata[key]=value`, repeated values mean any-of). */
export const metadataQuery = z.record(
  z.string(),
  z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(z.string())),
);

/** RFC 3339 with an offset. Year 0000 parses but PostgreSQL cannot store it (it was a 500). */
/**
 * IANA zone names the runtime knows (PostgreSQL ships the same tz database). Not UTC offsets: Node 22+ (ECMA-402
 * 2024) takes "+05:00" as a time zone, Node 20 does not, and PostgreSQL would read it as a POSIX zone, whose
 * sign is the other way round.
 */
export const timezoneInput = z
  .string()
  .max(64)
  .refine(
    (tz) => {
      if (!/^[A-Za-z]/.test(tz)) return false;
      try {
        new Intl.DateTimeFormat("en", { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    },
    { message: "Input should be a valid IANA time zone name" },
  );

export const datetimeInput = z.iso
  .datetime({ offset: true, message: "Input should be a valid datetime" })
  .refine((v) => !v.startsWith("0000"), { message: "Input should be a valid datetime" });

// ---- pagination --------------------------------------------------------------------------------

export const paginationQuery = {
  page: queryInt(1, 1_000_000).default(1),
  limit: queryInt(1, 100).default(10),
};

export interface Page<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

export function page<T>(items: T[], total: number, limit: number): Page<T> {
  return { items, pagination: { total_count: total, max_page: Math.ceil(total / limit) } };
}

// ---- the caller's organization -----------------------------------------------------------------

export interface OrgScope {
  organizationId: string;
  caller: Caller;
  permissions: Record<string, readonly string[]>;
}

declare module "fastify" {
  interface FastifyRequest {
    caller?: Caller;
    orgScope?: OrgScope;
  }
  interface FastifyContextConfig {
    /** The scope a route needs, e.g. "products:write". */
    scope?: Scope;
    /** The route works without an organization (e.g. listing the user's organizations). */
    orgOptional?: boolean;
    /** A session acts for the organization named by the path's :id (PATCH /organizations/:id). */
    orgScopeFromPath?: boolean;
  }
}

function sessionPermissions(caller: Caller): Record<string, readonly string[]> {
  if (caller.roles.includes("owner") || caller.roles.includes("admin")) return ALL_BILLING_PERMISSIONS;
  // members read the catalog; dynamic roles add what they were given per resource
  return { ...READ_BILLING_PERMISSIONS, ...caller.permissions };
}

function requestedOrganization(req: FastifyRequest): { id: string | undefined; where: "body" | "query" | "path" } {
  if (req.routeOptions.config.orgScopeFromPath) {
    const id = (req.params as Record<string, unknown>).id;
    return { id: typeof id === "string" ? id : undefined, where: "path" };
  }
  const fromQuery = (req.query as Record<string, unknown> | undefined)?.organization_id;
  if (typeof fromQuery === "string") return { id: fromQuery, where: "query" };
  const fromBody = req.body && typeof req.body === "object" ? (req.body as Record<string, unknown>).organization_id : undefined;
  return { id: typeof fromBody === "string" ? fromBody : undefined, where: req.method === "GET" ? "query" : "body" };
}

/**
 * preHandler for /v1: resolves the bearer token and the organization. API keys act for their organization
 * (a till_test_ key: its sandbox twin); a member's session acts for `organization_id` (query or body) or else
 * the active organization, or that organization's sandbox with `Till-Sandbox: true`.
 */
export function authenticate(callers: CallerResolver) {
  return async function authenticateV1(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    const config = req.routeOptions.config;
    // the other kinds of caller (billing/contract.ts) are authenticated by the route itself
    if (config.caller !== undefined && config.caller !== "organization") return;
    const requested = requestedOrganization(req);
    if (requested.id !== undefined && !isUuid(requested.id)) {
      if (requested.where === "path") throw invalid(["path", "id"], "Input should be a valid UUID", "uuid_parsing");
      throw invalid([requested.where, "organization_id"], "Input should be a valid UUID", "uuid_parsing");
    }
    const mode = modeFromHeader(req.headers[SANDBOX_HEADER]);
    if (mode === null) throw invalid(["header", SANDBOX_HEADER], "Input should be true or false", "bool_parsing");
    const result = await callers.resolve(req.headers.authorization, requested.id?.toLowerCase(), mode);
    if (!result.ok) {
      // a session naming an organization it does not belong to sees it as missing, like any foreign row
      if (result.error.code === "not_a_member") throw notFound("Organization not found");
      return sendCallerError(reply, result.error);
    }
    const caller = result.caller;
    req.caller = caller;
    if (caller.kind === "api_key" && requested.id && requested.id.toLowerCase() !== caller.organizationId) {
      throw notFound("Organization not found");
    }
    let permissions: Record<string, readonly string[]>;
    if (caller.organizationId) {
      permissions = caller.kind === "api_key" ? caller.permissions : sessionPermissions(caller);
      req.orgScope = { organizationId: caller.organizationId, caller, permissions };
    } else if (config.orgOptional) {
      permissions = READ_BILLING_PERMISSIONS;
    } else {
      throw invalid([requested.where, "organization_id"], "organization_id is required: the session has no active organization", "missing");
    }
    if (config.scope && !grants(permissions, config.scope)) {
      throw notPermitted(`This token is missing the scope ${config.scope}.`);
    }
  };
}

/** The organization scope set by authenticate(). */
export function scopeOf(req: FastifyRequest): OrgScope {
  if (req.orgScope) return req.orgScope;
  if (req.caller) {
    // only orgOptional routes get here without an organization
    return { organizationId: "", caller: req.caller, permissions: READ_BILLING_PERMISSIONS };
  }
  throw new Error("scopeOf: route registered outside the /v1 plugin");
}

/**
 * Takes the response over for server-sent events and answers 200 with the stream's headers (no caching, no
 * proxy buffering); returns the raw response to write events to.
 */
export function openEventStream(reply: FastifyReply) {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  return raw;
}
