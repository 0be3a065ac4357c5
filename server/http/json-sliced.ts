// A large JSON body checked and parsed in slices of a few milliseconds, between which the event loop runs:
// a 1 MiB body costs 10–40 ms of CPU to scan and parse (docs/decisions.md), and a /healthz or any other request
// arriving meanwhile waited for all of it. The scan (JsonScanner, server/http/input-guard.ts) runs in steps
// and records every array and object spanning PIECE characters or more; the parse walks those big containers
// itself and hands every run of their small children (about PIECE characters of text) to JSON.parse at once,
// so the value is the one JSON.parse would give, built from native parses of pieces. Same bounds, same
// characters refused (checked piece by piece), same prototype-key refusal, same value.
import { findUnstorable, RejectedInput, unstorable, type Loc } from "./rejected-input.js";
import { JsonScanner, type JsonScan } from "./json-scan.js";

/** Bodies at least this long take the sliced path; shorter ones are scanned and parsed in one go (< 1 ms). */
export const SLICED_PARSE_THRESHOLD = 64 * 1024;
/** Containers this long or longer are walked; runs of smaller children are parsed as one piece of about this size. */
const PIECE = 16 * 1024;
/** Characters scanned between two looks at the clock. */
const SCAN_STEP = 8 * 1024;
/** The longest the parse runs before it lets the event loop run (ms). */
const SLICE_MS = 3;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Cuts a long task into slices of about SLICE_MS, the event loop running between them. `begin()` starts the first
 * slice in a task of its own: the task that calls it has usually spent milliseconds already (a body joined and
 * decoded, the hooks, the handler, or the previous phase's last slice).
 */
export class Slicer {
  private since = performance.now();
  private constructor() {}
  static async begin(): Promise<Slicer> {
    await yieldToLoop();
    return new Slicer();
  }
  async pause(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await yieldToLoop();
    this.since = performance.now();
  }
}

/**
 * A malformed body (400). The input guard hands it on as Fastify's FST_ERR_CTP_INVALID_JSON_BODY, which /v1 answers
 * with Polar's 422 json_invalid.
 */
function malformed(message = "Unexpected token in JSON body"): SyntaxError {
  return Object.assign(new SyntaxError(message), { statusCode: 400 });
}

/** The scan of `text` in steps, the event loop running between them; `bigSpan` as for JsonScanner. */
export async function scanJsonSliced(text: string, bigSpan = PIECE): Promise<JsonScanner> {
  const slicer = await Slicer.begin();
  const scanner = new JsonScanner(text, undefined, bigSpan);
  let until = 0;
  while (!scanner.run((until += SCAN_STEP))) await slicer.pause();
  return scanner;
}

/** JSON's whitespace. */
export const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export interface SlicedParseOptions {
  /**
   * Parses one piece (JSON.parse, or secure-json-parse when the text may hold a prototype key); throws a SyntaxError.
   */
  parsePiece: (text: string) => unknown;
  /** Whether a prototype key must be refused (the text may hold one: see mayPoison). */
  poison: boolean;
}

/**
 * Steps over the text the scanner passed: JSON's whitespace, a string, a small value (a big container's end is
 * the scanner's record).
 */
function textSteps(text: string, scanner: JsonScanner) {
  const { big, mid } = scanner;
  const n = text.length;
  const skipSpace = (i: number) => {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    return i;
  };
  /** The index just past the string opening at `i`. */
  const strings = scanner.strings;
  const stringEnd = (i: number): number => {
    const known = strings?.get(i);
    if (known !== undefined) return known + 1;
    // a short string (the scanner records the long ones)
    for (let j = i + 1; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x5c) j++;
      else if (c === 0x22) return j + 1;
    }
    throw malformed();
  };
  /** The index just past the (small) value starting at `i`. */
  const valueEnd = (i: number): number => {
    const c = text.charCodeAt(i);
    if (c === 0x22) return stringEnd(i);
    if (c === 0x5b || c === 0x7b) {
      const close = big.get(i) ?? mid.get(i);
      if (close !== undefined) return close + 1;
      let depth = 0;
      for (let j = i; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === 0x22) j = stringEnd(j) - 1;
        else if (d === 0x5b || d === 0x7b) depth++;
        else if (d === 0x5d || d === 0x7d) {
          if (--depth === 0) return j + 1;
        }
      }
      throw malformed();
    }
    let j = i;
    while (j < n) {
      const d = text.charCodeAt(j);
      if (d === 0x2c || d === 0x5d || d === 0x7d || isSpace(d)) break;
      j++;
    }
    if (j === i) throw malformed();
    return j;
  };
  return { skipSpace, stringEnd, valueEnd };
}

/**
 * Parses a text the scanner passed (scan.over null, scan done), in slices. Throws RejectedInput for an
 * unstorable string (when scan.suspect), a SyntaxError with statusCode 400 for malformed JSON or a prototype key.
 * A body whose root is not a big array or object (a long string, say) is parsed in one piece: that is cheap.
 */
export async function parseJsonSliced(text: string, scanner: JsonScanner, opts: SlicedParseOptions): Promise<unknown> {
  const scan: JsonScan = scanner.result;
  const big = scanner.big;
  const n = text.length;
  const slicer = await Slicer.begin();
  const checkPiece = (value: unknown, offset: number, path: Loc) => {
    if (!scan.suspect) return;
    const found = findUnstorable(value);
    if (!found) return;
    const [first, ...rest] = found.loc;
    throw new RejectedInput(found.kind, "body", [...path, ...(typeof first === "number" ? [first + offset] : first === undefined ? [] : [first]), ...rest]);
  };
  const piece = (t: string, offset: number, path: Loc): unknown => {
    let value: unknown;
    try {
      value = opts.parsePiece(t);
    } catch (err) {
      throw Object.assign(err as Error, { statusCode: 400 });
    }
    checkPiece(value, offset, path);
    return value;
  };

  const { skipSpace, stringEnd, valueEnd } = textSteps(text, scanner);

  const container = async (open: number, close: number, path: Loc): Promise<unknown> => {
    const isArray = text.charCodeAt(open) === 0x5b;
    const array: unknown[] = [];
    const object: Record<string, unknown> = {};
    const define = (key: string, value: unknown) => {
      Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    };
    let runStart = -1;
    let runEnd = -1;
    const flush = async () => {
      if (runStart < 0) return;
      const t = text.slice(runStart, runEnd);
      runStart = -1;
      if (isArray) {
        const values = piece(`[${t}]`, array.length, path) as unknown[];
        for (const v of values) array.push(v);
      } else {
        const values = piece(`{${t}}`, 0, path) as Record<string, unknown>;
        for (const key of Object.keys(values)) define(key, values[key]);
      }
      await slicer.pause();
    };
    let k = skipSpace(open + 1);
    if (k === close) return isArray ? array : object;
    for (;;) {
      const childStart = k;
      let key: string | undefined;
      let keyEnd = k;
      if (!isArray) {
        if (text.charCodeAt(k) !== 0x22) throw malformed();
        keyEnd = stringEnd(k);
        k = skipSpace(keyEnd);
        if (text.charCodeAt(k) !== 0x3a) throw malformed();
        k = skipSpace(k + 1);
      }
      const valueStart = k;
      const bigClose = big.get(valueStart);
      const end = bigClose === undefined ? valueEnd(valueStart) : bigClose + 1;
      if (bigClose !== undefined) {
        await flush();
        if (!isArray) {
          try {
            key = JSON.parse(text.slice(childStart, keyEnd)) as string;
          } catch {
            throw malformed();
          }
          if (scan.suspect) {
            const kind = unstorable(key);
            if (kind) throw new RejectedInput(kind, "body", [...path, key]);
          }
          if (opts.poison && key === "__proto__") throw malformed("Object contains forbidden prototype property");
        }
        const value = await container(valueStart, bigClose, [...path, key ?? array.length]);
        if (isArray) array.push(value);
        else {
          if (opts.poison && key === "constructor" && value !== null && typeof value === "object" && Object.hasOwn(value, "prototype")) {
            throw malformed("Object contains forbidden prototype property");
          }
          define(key!, value);
        }
      } else {
        if (runStart < 0) runStart = childStart;
        runEnd = end;
        if (runEnd - runStart >= PIECE) await flush();
      }
      k = skipSpace(end);
      const c = text.charCodeAt(k);
      if (k === close) break;
      if (c !== 0x2c || k > close) throw malformed();
      k = skipSpace(k + 1);
    }
    await flush();
    return isArray ? array : object;
  };

  const p = skipSpace(0);
  const rootClose = big.get(p);
  if (rootClose === undefined || skipSpace(rootClose + 1) !== n) return piece(text, 0, []);
  return container(p, rootClose, []);
}
