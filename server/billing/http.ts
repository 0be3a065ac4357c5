// Wire-level plumbing shared by every /v1 domain: zod parsing with Polar's 422 {detail:[{loc,msg,type}]} (the
// errors themselves are errors.ts), pagination, the query encodings the SDK sends (form/explode arrays,
// deepObject metadata), shared field schemas and server-sent events. Who calls is route-auth.ts.
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { invalid, schemaRefusal, type ValidationIssue } from "./errors.js";
import { isUuid } from "../../shared/uuid.js";

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
  if (!result.success) throw schemaRefusal(zodIssues(result.error, where, input));
  return result.data;
}

export const parseBody = <S extends z.ZodType>(schema: S, req: FastifyRequest) => parseWith(schema, req.body ?? {}, "body");

export const parseQuery = <S extends z.ZodType>(schema: S, req: FastifyRequest) =>
  parseWith(schema, normalizeQuery(req.query), "query");

/** shared/uuid.ts's, for the routes that import their helpers from here. */
export { isUuid };

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

/** An email address: trimmed, and bounded before the address pattern runs (as Polar's EmailStr). */
export const emailInput = z
  .string()
  .trim()
  .max(320)
  .pipe(z.email({ message: "value is not a valid email address" }));

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

/** RFC 3339 with an offset. Year 0000 parses but PostgreSQL cannot store it (it was a 500). */
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

/**
 * Takes the response over for server-sent events and answers 200 with the stream's headers (no caching, no
 * proxy buffering); returns the raw response to write events to.
 */
/** The header an event stream names its keep-alive interval in (seconds): a client knows a silent one is dead. */
export const KEEPALIVE_HEADER = "till-keep-alive";

export function openEventStream(reply: FastifyReply, keepAliveMs: number) {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
    [KEEPALIVE_HEADER]: String(Math.round(keepAliveMs / 1000)),
  });
  return raw;
}
