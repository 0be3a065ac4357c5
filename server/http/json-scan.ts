// The linear scan of a JSON text before anything parses it (server/http/input-guard.ts applies it to every
// body): nesting depth, values, keys and key names against their bounds, and which escapes its strings hold.
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
 * strings, and which escapes the strings hold. A string's first characters are read one by one (most strings are short,
 * and an indexOf call costs more than a few reads); past INLINE plain characters its end is found with indexOf, the
 * next quote and the next backslash each searched again only once passed, so every character is looked at a bounded
 * number of times. Malformed JSON is left to JSON.parse, which refuses it anyway. Text decoded from UTF-8 holds no raw
 * unpaired surrogate (the decoder makes U+FFFD of one), so only escapes can bring them.
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
