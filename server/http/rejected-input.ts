// A request the input guard refuses (input-guard.ts), and the check for what PostgreSQL cannot store: a leaf,
// so the guard and the sliced parser (json-sliced.ts) both use it without importing each other.
import { MAX_JSON_DEPTH, MAX_JSON_KEY_NAMES, MAX_JSON_KEYS, MAX_JSON_VALUES } from "./json-scan.js";

export type Where = "body" | "query" | "path";
export type RejectedKind = "depth" | "values" | "keys" | "names" | "nul" | "surrogate";
export type Loc = Array<string | number>;

const MESSAGES: Record<RejectedKind, string> = {
  depth: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
  values: `JSON holding more than ${MAX_JSON_VALUES} values`,
  keys: `JSON object with more than ${MAX_JSON_KEYS} keys`,
  names: `JSON holding more than ${MAX_JSON_KEY_NAMES} distinct key names`,
  nul: "Input should not contain NUL characters",
  surrogate: "Input should not contain unpaired surrogate characters",
};

/** A request refused by the guard; `loc` is the path of the offending value inside `where`. */
export class RejectedInput extends Error {
  readonly statusCode = 400;
  readonly code = "InvalidInput";
  constructor(
    readonly kind: RejectedKind,
    readonly where: Where,
    readonly loc: Loc,
  ) {
    super(MESSAGES[kind]);
  }
}


const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What makes a string unstorable, or null. */
export function unstorable(s: string): "nul" | "surrogate" | null {
  if (s.includes("\u0000")) return "nul";
  return LONE_SURROGATE.test(s) ? "surrogate" : null;
}

/**
 * The first string or key holding NUL or a lone surrogate, with its path; O(size). Recursive: only for values
 * whose depth is already bounded (a scanned JSON body, a query string, path parameters).
 */
export function findUnstorable(value: unknown): { kind: "nul" | "surrogate"; loc: Loc } | null {
  const path: Loc = [];
  const visit = (v: unknown): "nul" | "surrogate" | null => {
    if (typeof v === "string") return unstorable(v);
    if (v === null || typeof v !== "object") return null;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const kind = visit(v[i]);
        if (kind) return kind;
        path.pop();
      }
      return null;
    }
    for (const key of Object.keys(v)) {
      path.push(key);
      const kind = unstorable(key) ?? visit((v as Record<string, unknown>)[key]);
      if (kind) return kind;
      path.pop();
    }
    return null;
  };
  const kind = visit(value);
  return kind ? { kind, loc: [...path] } : null;
}

/** Fastify's codes for a malformed or empty JSON body (the input guard gives the sliced parse's the same). */
const MALFORMED_JSON = new Set(["FST_ERR_CTP_INVALID_JSON_BODY", "FST_ERR_CTP_EMPTY_JSON_BODY"]);

/** Whether `err` is the JSON parser's refusal of a malformed or empty body. */
export function isMalformedJson(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && MALFORMED_JSON.has(code);
}
