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
import { parseJsonSliced, scanJsonSliced, SLICED_PARSE_THRESHOLD } from "./json-sliced.js";

/** The deepest nesting of arrays and objects a JSON body may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 32;
/**
 * Arrays, objects and their elements in one body (a 1,000-event ingest batch with 50 metadata keys each holds
 * about 60,000).
 */
export const MAX_JSON_VALUES = 100_000;
/** Keys of one object (metadata holds at most 50). */
export const MAX_JSON_KEYS = 1_000;
/**
 * Distinct key names in one body, as written (an escaped spelling counts apart). JSON.parse makes a hidden
 * class per new key name and per new order of names: 1 MiB of objects with distinct keys cost 80–160 ms of
 * CPU, within every other bound; at 1,000 names the dearest 1 MiB shape measured costs about 20 ms
 * (docs/decisions.md). Valid bodies reuse a few dozen names (an ingest batch repeats its events' names).
 */
export const MAX_JSON_KEY_NAMES = 1_000;
/**
 * The body limit of routes anyone may call whose valid bodies are small (the /api/auth mount, license-key
 * validate/activate/deactivate): two Polar metadata objects (50 keys × 500 characters) fit, even written with
 * escapes. A larger body is a 413 before it is read: JSON.parse of 1 MiB of objects with distinct keys costs
 * on the order of 100 ms of CPU, within every bound above (bench:hostile); at this size an eighth of it.
 */
export const SMALL_BODY_LIMIT = 128 * 1024;
/**
 * The body limit of the other /v1 writes (API key or seller session: products, customers, checkouts…): Polar's
 * largest such bodies hold two metadata objects (50 keys × 500 characters), about 300 KiB when every character
 * is written as a `\uXXXX` escape (Python's json.dumps does so by default). A larger body is a 413.
 */
export const V1_BODY_LIMIT = 512 * 1024;
/**
 * The body limit of the routes whose valid bodies are large: `/v1/events/ingest` (1,000 events, `_llm` prompts
 * of up to 100,000 characters) and the file upload descriptions (up to 10,000 parts). Bodies of
 * SLICED_PARSE_THRESHOLD or more are scanned and parsed in slices (json-sliced.ts).
 */
export const LARGE_BODY_LIMIT = 1024 * 1024;

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

export interface JsonScan {
  /** The bound the body went past (the scan stopped there), or null. */
  over: "depth" | "values" | "keys" | "names" | null;
  /** A `\u0000` or `\uD800`–`\uDFFF` escape was seen: the parsed value needs a walk. */
  suspect: boolean;
  /** Some `\u` escape was seen (so a key may spell `__proto__` without those letters). */
  unicodeEscapes: boolean;
  /** A key written `__proto__` or `constructor` was seen. */
  protoKeys: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Characters of a string looked at one by one before the rest of it is skipped with indexOf. */
const INLINE = 32;
/** Strings this long or longer are recorded by a scanner that records big containers (parseJsonSliced jumps them). */
const LONG_STRING = 64;

/** Whether the escape at `i` (a backslash) is `\u0000` or `\uD800`–`\uDFFF`. */
function suspectEscape(text: string, i: number): boolean {
  const a = text.charCodeAt(i + 2) | 0x20;
  const b = text.charCodeAt(i + 3) | 0x20;
  if (a === 0x30) return b === 0x30 && text.charCodeAt(i + 4) === 0x30 && text.charCodeAt(i + 5) === 0x30;
  return a === 0x64 && (b === 0x38 || b === 0x39 || (b >= 0x61 && b <= 0x66));
}

type ScanLimits = { depth: number; values: number; keys: number; names: number };
const DEFAULT_LIMITS: ScanLimits = { depth: MAX_JSON_DEPTH, values: MAX_JSON_VALUES, keys: MAX_JSON_KEYS, names: MAX_JSON_KEY_NAMES };

/** See JsonScanner.mid: at most MID_DEPTH × (1 MiB ÷ MID_SPAN), 8,192 entries, for a body of 1 MiB. */
const MID_SPAN = 512;
const MID_DEPTH = 4;

/**
 * One pass over the text, O(length): nesting depth, values, keys per object and distinct key names outside
 * strings, and which escapes the strings hold. A string's first characters are read one by one (most strings are short, and an
 * indexOf call costs more than a few reads); past INLINE plain characters its end is found with indexOf, the
 * next quote and the next backslash each searched again only once passed, so every character is looked at a
 * bounded number of times. Malformed JSON is left to JSON.parse, which refuses it anyway. Text decoded from
 * UTF-8 holds no raw unpaired surrogate (the decoder makes U+FFFD of one), so only escapes can bring them.
 *
 * Resumable: `run(until)` scans up to about `until` and returns whether the scan is over, so a large body is
 * scanned in slices between which the event loop runs (scanJsonSliced). With `bigSpan`, every array or object
 * at least that long is recorded in `big` (its opening index → its closing index), for parseJsonSliced.
 */
export class JsonScanner {
  over: JsonScan["over"] = null;
  suspect = false;
  unicodeEscapes = false;
  protoKeys = false;
  done = false;
  /** Arrays and objects spanning at least `bigSpan` characters: opening index → closing index. */
  readonly big = new Map<number, number>();
  /**
   * With `bigSpan`: the smaller arrays and objects of MID_SPAN characters or more, at most MID_DEPTH deep, the
   * same way (the sliced parse finds the end of a big container's child here instead of walking its text).
   */
  readonly mid = new Map<number, number>();
  private readonly keys: Int32Array;
  private readonly opens: Int32Array;
  private readonly names = new Set<string>();
  /**
   * Per depth, the key names of the last object there, in order: an object with the keys of the one before it
   * (every event of a batch, every metadata object) is compared in place, without a slice and a set lookup.
   */
  private readonly lastNames: string[][];
  private stringStart = 0;
  private stringEnd = 0;
  private depth = 0;
  private values = 0;
  private nextQuote = -1;
  private nextBackslash = 0; // searched when passed; -1: none left
  private i = 0;
  private j = 0;
  private inString = false;
  /** With `bigSpan`: strings of LONG_STRING characters or more, opening quote index → closing quote index. */
  readonly strings: Map<number, number> | null;

  constructor(
    private readonly text: string,
    private readonly limits: ScanLimits = DEFAULT_LIMITS,
    private readonly bigSpan = Infinity,
  ) {
    this.keys = new Int32Array(limits.depth + 2);
    this.opens = new Int32Array(limits.depth + 2);
    this.lastNames = Array.from({ length: limits.depth + 2 }, () => []);
    this.strings = bigSpan === Infinity ? null : new Map();
  }

  get result(): JsonScan {
    return { over: this.over, suspect: this.suspect, unicodeEscapes: this.unicodeEscapes, protoKeys: this.protoKeys };
  }

  private stop(over: JsonScan["over"]): boolean {
    this.over = over;
    this.done = true;
    return true;
  }

  run(until = Infinity): boolean {
    if (this.done) return true;
    const { text, keys, opens, names, lastNames, bigSpan, strings } = this;
    const { depth: maxDepth, values: maxValues, keys: maxKeys, names: maxNames } = this.limits;
    let { stringStart, stringEnd, depth, values, nextQuote, nextBackslash, suspect, unicodeEscapes, protoKeys, i, j, inString } = this;
    const n = text.length;
    const end = until < n ? until : n;
    let over: JsonScan["over"] | undefined;
    let paused = false;
    scan: for (;;) {
      if (inString) {
        // i: the opening quote; j: where the string's scan goes on
        for (;;) {
          if (j >= end && end < n) {
            paused = true;
            break scan;
          }
          const stop = j + INLINE < n ? j + INLINE : n;
          let d = 0;
          while (j < stop) {
            d = text.charCodeAt(j);
            if (d === QUOTE || d === BACKSLASH) break;
            j++;
          }
          if (j >= n) {
            over = null; // unterminated: JSON.parse refuses it
            break scan;
          }
          if (j < stop) {
            if (d === QUOTE) break;
            if (text.charCodeAt(j + 1) === 0x75) {
              unicodeEscapes = true;
              if (!suspect && suspectEscape(text, j)) suspect = true;
            }
            j += 2;
            continue;
          }
          // a long run of plain characters: jump to the string's end, or to the next escape before it
          if (nextQuote < j) nextQuote = text.indexOf('"', j);
          if (nextQuote === -1) {
            over = null;
            break scan;
          }
          if (nextBackslash !== -1 && nextBackslash < j) nextBackslash = text.indexOf("\\", j);
          if (nextBackslash === -1 || nextBackslash > nextQuote) {
            j = nextQuote;
            break;
          }
          j = nextBackslash;
        }
        stringStart = i + 1;
        stringEnd = j;
        if (strings && j - i >= LONG_STRING) strings.set(i, j);
        i = j + 1;
        inString = false;
        continue;
      }
      if (i >= end) {
        paused = end < n;
        break;
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        inString = true;
        j = i + 1;
        continue;
      } else if (c === 0x5b || c === 0x7b) {
        if (++depth > maxDepth) {
          over = "depth";
          break;
        }
        if (++values > maxValues) {
          over = "values";
          break;
        }
        keys[depth] = c === 0x7b ? 0 : -1;
        opens[depth] = i;
      } else if (c === 0x5d || c === 0x7d) {
        if (depth > 0) {
          const span = i - opens[depth]!;
          if (span >= bigSpan) this.big.set(opens[depth]!, i);
          else if (span >= MID_SPAN && depth <= MID_DEPTH && bigSpan !== Infinity) this.mid.set(opens[depth]!, i);
          depth--;
        }
      } else if (c === 0x2c) {
        if (++values > maxValues) {
          over = "values";
          break;
        }
      } else if (c === 0x3a) {
        const k = keys[depth]!;
        if (k >= 0) {
          if (k + 1 > maxKeys) {
            over = "keys";
            break;
          }
          keys[depth] = k + 1;
          const last = lastNames[depth]!;
          const same = last[k];
          if (same === undefined || same.length !== stringEnd - stringStart || !text.startsWith(same, stringStart)) {
            const name = text.slice(stringStart, stringEnd);
            last[k] = name;
            names.add(name);
            if (name === "__proto__" || name === "constructor") protoKeys = true;
            if (names.size > maxNames) {
              over = "names";
              break;
            }
          }
        }
      }
      i++;
    }
    Object.assign(this, { stringStart, stringEnd, depth, values, nextQuote, nextBackslash, suspect, unicodeEscapes, protoKeys, i, j, inString });
    if (over !== undefined) return this.stop(over);
    if (paused) return false;
    return this.stop(null);
  }
}

/** scanJson in one go (see JsonScanner). */
export function scanJson(text: string, limits: ScanLimits = DEFAULT_LIMITS): JsonScan {
  const scanner = new JsonScanner(text, limits);
  scanner.run();
  return scanner.result;
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

/** Throws RejectedInput when the JSON text goes past a bound; `suspect`: the parsed value needs checkValue. */
export function checkJsonText(text: string): JsonScan {
  const scan = scanJson(text);
  if (scan.over) throw new RejectedInput(scan.over, "body", []);
  return scan;
}

/**
 * Whether a scanned text may hold a `__proto__` or `constructor` key (or a BOM): only then does it need
 * secure-json-parse, whose two regular-expression passes over the whole text cost more than JSON.parse
 * itself on a long string; otherwise a plain JSON.parse gives the same value. Without a `\u` escape a key can
 * spell those words only with their letters, and the scan saw every key as written (two searches of the whole
 * text for the words were about 1 ms of a 1 MiB body).
 */
function mayPoison(text: string, scan: JsonScan): boolean {
  return scan.unicodeEscapes || scan.protoKeys || text.charCodeAt(0) === 0xfeff;
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
  /** A large body: scanned and parsed in slices, the event loop running between them (json-sliced.ts). */
  const parseLarge = async (req: FastifyRequest, text: string): Promise<unknown> => {
    const scanner = await scanJsonSliced(text);
    if (scanner.over) throw new RejectedInput(scanner.over, "body", []);
    const poison = mayPoison(text, scanner.result);
    const parsePiece = poison
      ? (piece: string) => {
          let out: { err: Error | null; value: unknown } = { err: null, value: undefined };
          parseJson(req, piece, (err: Error | null, value?: unknown) => (out = { err, value }));
          if (out.err) throw out.err;
          return out.value;
        }
      : (piece: string) => JSON.parse(piece) as unknown;
    return parseJsonSliced(text, scanner, { parsePiece, poison });
  };
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit }, (req, body, done) => {
    const text = body as string;
    if (text.length >= SLICED_PARSE_THRESHOLD) {
      void parseLarge(req, text).then((value) => done(null, value), (err: Error) => done(err, undefined));
      return;
    }
    let scan: JsonScan;
    try {
      scan = checkJsonText(text);
    } catch (err) {
      return done(err as Error, undefined);
    }
    const parsed = (err: Error | null, value?: unknown) => {
      if (err) return done(err, undefined);
      if (scan.suspect) {
        const found = findUnstorable(value);
        if (found) return done(new RejectedInput(found.kind, "body", found.loc), undefined);
      }
      done(null, value);
    };
    if (mayPoison(text, scan)) return parseJson(req, text, parsed);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return parseJson(req, text, parsed); // Fastify's own error for an empty or malformed body
    }
    parsed(null, value);
  });
  app.addHook("onRequest", async (req) => {
    if (!req.routeOptions.config.checksOwnCharacters) checkUrl(req);
  });
}
