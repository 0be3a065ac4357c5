// What any client may send, checked once for every route before a handler or a validator walks it:
// - a JSON body nests at most MAX_JSON_DEPTH arrays/objects, holds at most MAX_JSON_VALUES values and no
//   object has more than MAX_JSON_KEYS keys, found by one linear scan before JSON.parse (a deep body made
//   validators and error serializers recurse or copy paths per level: seconds of blocked event loop, stack
//   overflows, 500s; a wide or dense one costs JSON.parse itself far more than its bytes suggest);
// - no string, key, query value or path parameter holds what PostgreSQL cannot store: U+0000 (text and
//   jsonb) or an unpaired UTF-16 surrogate (jsonb refuses `\ud800`; text would store U+FFFD silently).
// Each route family turns a RejectedInput into its own error shape (/v1: Polar's 422; /api/auth:
// better-auth's 400; elsewhere {error, detail}).
import type { FastifyInstance, FastifyRequest } from "fastify";

/** The deepest nesting of arrays and objects a JSON body may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 32;
/**
 * Arrays, objects and their elements in one body (a 1,000-event ingest batch with 50 metadata keys each holds
 * about 60,000).
 */
export const MAX_JSON_VALUES = 100_000;
/** Keys of one object (metadata holds at most 50). */
export const MAX_JSON_KEYS = 1_000;

export type Where = "body" | "query" | "path";
export type RejectedKind = "depth" | "values" | "keys" | "nul" | "surrogate";
export type Loc = Array<string | number>;

const MESSAGES: Record<RejectedKind, string> = {
  depth: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
  values: `JSON holding more than ${MAX_JSON_VALUES} values`,
  keys: `JSON object with more than ${MAX_JSON_KEYS} keys`,
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

export interface JsonScan {
  /** The bound the body went past (the scan stopped there), or null. */
  over: "depth" | "values" | "keys" | null;
  /** A `\u0000` or `\uD800`–`\uDFFF` escape was seen: the parsed value needs a walk. */
  suspect: boolean;
}

const QUOTE = 0x22;

/** Whether the escape at `i` (a backslash) is `\u0000` or `\uD800`–`\uDFFF`. */
function suspectEscape(text: string, i: number): boolean {
  if (text.charCodeAt(i + 1) !== 0x75) return false;
  const a = text.charCodeAt(i + 2) | 0x20;
  const b = text.charCodeAt(i + 3) | 0x20;
  if (a === 0x30) return b === 0x30 && text.charCodeAt(i + 4) === 0x30 && text.charCodeAt(i + 5) === 0x30;
  return a === 0x64 && (b === 0x38 || b === 0x39 || (b >= 0x61 && b <= 0x66));
}

/**
 * One pass over the text, O(length): nesting depth, values and keys per object outside strings, and whether a
 * string escapes a character the walk must look at. String contents are skipped with indexOf. Malformed JSON
 * is left to JSON.parse, which refuses it anyway. Text decoded from UTF-8 holds no raw unpaired surrogate
 * (the decoder makes U+FFFD of one), so only escapes can bring them.
 */
export function scanJson(text: string, limits = { depth: MAX_JSON_DEPTH, values: MAX_JSON_VALUES, keys: MAX_JSON_KEYS }): JsonScan {
  const keys = new Int32Array(limits.depth + 2);
  let depth = 0;
  let values = 0;
  let suspect = false;
  let backslash = text.indexOf("\\");
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // to the closing quote: escapes before it are looked at one by one (an escaped quote does not close)
      // (both positions are searched again only once passed: each character is looked at a bounded number of times)
      let from = i + 1;
      let quote = text.indexOf('"', from);
      for (;;) {
        if (quote === -1) return { over: null, suspect };
        if (backslash !== -1 && backslash < from) backslash = text.indexOf("\\", from);
        if (backslash === -1 || backslash > quote) {
          i = quote;
          break;
        }
        if (!suspect && suspectEscape(text, backslash)) suspect = true;
        from = backslash + 2;
        backslash = text.indexOf("\\", from);
        if (quote < from) quote = text.indexOf('"', from);
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limits.depth) return { over: "depth", suspect };
      if (++values > limits.values) return { over: "values", suspect };
      keys[depth] = c === 0x7b ? 0 : -1;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x2c) {
      if (++values > limits.values) return { over: "values", suspect };
    } else if (c === 0x3a) {
      if (keys[depth]! >= 0 && ++keys[depth]! > limits.keys) return { over: "keys", suspect };
    }
  }
  return { over: null, suspect };
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

/** Throws RejectedInput when the JSON text nests too deep; returns whether the parsed value needs checkJsonValue. */
export function checkJsonText(text: string): boolean {
  const scan = scanJson(text);
  if (scan.over) throw new RejectedInput(scan.over, "body", []);
  return scan.suspect;
}

/** Throws RejectedInput for the first unstorable string of a parsed value. */
export function checkValue(value: unknown, where: Where): void {
  const found = findUnstorable(value);
  if (found) throw new RejectedInput(found.kind, where, found.loc);
}

/** The query string and the path parameters of a request (onRequest: before any body is read). */
export function checkUrl(req: FastifyRequest): void {
  checkValue(req.params, "path");
  checkValue(req.query, "query");
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route checks its own query and body characters (OAuth callbacks answer a browser with a redirect, not an error). */
    checksOwnCharacters?: boolean;
  }
}

/**
 * Installs the guard on the root instance, before any plugin is registered (children inherit both): the
 * application/json parser checks depth before parsing and strings after, and every route's query and path
 * parameters are checked before its body is read. Plugins with their own parsers (the /api/auth mount, raw
 * uploads) call checkJsonText/checkValue on what they hand on.
 */
export function installInputGuard(app: FastifyInstance, bodyLimit: number): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit }, (req, body, done) => {
    const text = body as string;
    let suspect: boolean;
    try {
      suspect = checkJsonText(text);
    } catch (err) {
      return done(err as Error, undefined);
    }
    parseJson(req, text, (err, value) => {
      if (err) return done(err, undefined);
      if (suspect) {
        const found = findUnstorable(value);
        if (found) return done(new RejectedInput(found.kind, "body", found.loc), undefined);
      }
      done(null, value);
    });
  });
  app.addHook("onRequest", async (req) => {
    if (!req.routeOptions.config.checksOwnCharacters) checkUrl(req);
  });
}
