// What any client may send, checked once for every route before a handler or a validator walks it:
// - a JSON body nests at most MAX_JSON_DEPTH arrays/objects, holds at most MAX_JSON_VALUES values and no
//   object has more than MAX_JSON_KEYS keys, found by one linear scan before JSON.parse (a deep body made
//   validators and error serializers recurse or copy paths per level: seconds of blocked event loop, stack
//   overflows, 500s; a wide or dense one costs JSON.parse itself far more than its bytes suggest);
// - no string, key, query value or path parameter holds what PostgreSQL cannot store: U+0000 (text and
//   jsonb) or an unpaired UTF-16 surrogate (jsonb refuses `\ud800`; text would store U+FFFD silently).
// Each route family turns a RejectedInput into its own error shape (/v1: Polar's 422; /api/auth:
// better-auth's 400; elsewhere {error, detail}).
import { errorCodes, type FastifyInstance, type FastifyRequest } from "fastify";
import { scanJson, type JsonScan } from "./json-scan.js";
import { parseJsonSliced, scanJsonSliced, SLICED_PARSE_THRESHOLD } from "./json-sliced.js";
import { findUnstorable, RejectedInput, type Where } from "./rejected-input.js";

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

export { findUnstorable, isMalformedJson, RejectedInput, unstorable, type Loc, type RejectedKind, type Where } from "./rejected-input.js";

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
    /**
     * The route checks its own query and body characters (OAuth callbacks answer a browser with a redirect, not an
     * error).
     */
    checksOwnCharacters?: boolean;
    /**
     * The handler parses its JSON body itself (`jsonBody(req)`), once it is authenticated: `req.body` is an
     * UnparsedJson, whose text the handler may use first (events ingest starts its INSERT from it).
     */
    parsesOwnJson?: boolean;
    /** An empty `application/json` body reads as no body (an SDK sends one when every body field is optional). */
    emptyJsonBody?: boolean;
  }
}

/**
 * A JSON body the route parses itself (config.parsesOwnJson): its text, and its parse with every check above.
 * Each parse() parses the text again: the request keeps no parsed tree, so once the route is done with one (a
 * 1 MiB batch is about 10 MB of objects) it is garbage, not something each young-generation collection copies
 * while the request waits on the database.
 */
export class UnparsedJson {
  constructor(
    readonly text: string,
    private readonly parser: (text: string) => Promise<unknown>,
  ) {}
  parse(): Promise<unknown> {
    return this.parser(this.text);
  }
}

/** The request's JSON body, parsed (by the handler now, on a route with config.parsesOwnJson). */
export async function jsonBody(req: FastifyRequest): Promise<unknown> {
  return req.body instanceof UnparsedJson ? req.body.parse() : req.body;
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
    try {
      return await parseJsonSliced(text, scanner, { parsePiece, poison });
    } catch (err) {
      // the sliced parse's SyntaxError, told as Fastify's parser tells a small body's: only a malformed body is
      // an input refusal (a SyntaxError thrown elsewhere is the server's own fault)
      if (err instanceof SyntaxError) throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
      throw err;
    }
  };
  const parse = (req: FastifyRequest, text: string, done: (err: Error | null, value?: unknown) => void): unknown => {
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
  };
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit }, (req, body, done) => {
    const text = body as string;
    if (req.routeOptions.config.emptyJsonBody && text.trim() === "") return done(null, undefined);
    if (!req.routeOptions.config.parsesOwnJson) return parse(req, text, done);
    const later = (t: string) => new Promise<unknown>((resolve, reject) => parse(req, t, (err, value) => (err ? reject(err) : resolve(value))));
    done(null, new UnparsedJson(text, later));
  });
  app.addHook("onRequest", async (req) => {
    if (!req.routeOptions.config.checksOwnCharacters) checkUrl(req);
  });
}
