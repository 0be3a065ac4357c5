// Discord's REST API as discord-api-types (the devDependency Discord's libraries are typed with) defines the routes
// the Discord loopback peer serves: the paths from its runtime `Routes`, the methods each route has from the
// "Route for:" list documented on it, and the JSON bodies and queries from the declared types
// (`REST<Method>API<Route>JSONBody`, `…Query`; the OAuth2 token form and authorize query by their own names), read
// with the TypeScript compiler. Upgrading the package moves the peer. Building the program over the declarations
// takes 3–5 s (measured), so the shapes are extracted once per package, compiler and extractor source and kept
// under .tmp/; a process that finds them there does not load the compiler at all.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Routes } from "discord-api-types/v10";
import type ts from "typescript";
import { ownSource, problemsOf, queryRecord, type Problem, type Shape } from "./definition-shapes.js";

/** The bot routes the peer serves: method and the `Routes` entry (its path parameters are snowflakes). */
export const DISCORD_ROUTES = {
  currentUser: ["GET", "user"],
  guildRoles: ["GET", "guildRoles"],
  getMember: ["GET", "guildMember"],
  addMember: ["PUT", "guildMember"],
  removeMember: ["DELETE", "guildMember"],
  addMemberRole: ["PUT", "guildMemberRole"],
  removeMemberRole: ["DELETE", "guildMemberRole"],
} as const;

export type DiscordRoute = keyof typeof DISCORD_ROUTES;
type RouteKey = (typeof DISCORD_ROUTES)[DiscordRoute][1];

/**
 * The type-name stem of a `Routes` entry where it is not the entry's own name (`Routes.user()` is the current user).
 */
const TYPE_STEM: Partial<Record<RouteKey, string>> = { user: "CurrentUser" };

/** The OAuth2 endpoints' declared form and query (the server's, beside the bot routes). */
const OAUTH_TYPES = {
  token: ["RESTPostOAuth2AccessTokenURLEncodedData", "RESTPostOAuth2RefreshTokenURLEncodedData"],
  authorize: ["RESTOAuth2AuthorizationQuery"],
} as const;

interface Extracted {
  routes: Record<DiscordRoute, { body: Shape | null; query: Shape | null }>;
  oauth: Record<keyof typeof OAUTH_TYPES, Shape>;
}

const require = createRequire(import.meta.url);
const CACHE_DIR = fileURLToPath(new URL("../../.tmp/", import.meta.url));
let extracted: Extracted | null = null;

/** The TypeScript compiler, loaded only when the shapes are extracted (not when they are read from the cache). */
const compiler = (): typeof ts => require("typescript") as typeof ts;
const versionOf = (pkg: string) => (JSON.parse(readFileSync(require.resolve(pkg), "utf8")) as { version: string }).version;

function load(): Extracted {
  if (extracted) return extracted;
  const root = path.dirname(require.resolve("discord-api-types/v10"));
  const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
  const key = createHash("sha256").update(JSON.stringify([version, versionOf("typescript/package.json"), ownSource()])).digest("hex").slice(0, 12);
  const cache = path.join(CACHE_DIR, `discord-shapes-${version}-${key}.json`);
  try {
    extracted = JSON.parse(readFileSync(cache, "utf8")) as Extracted;
  } catch {
    extracted = extract(root);
    mkdirSync(CACHE_DIR, { recursive: true });
    // written aside and renamed, so a process reading it alongside never sees half a file
    const partial = `${cache}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(extracted));
    renameSync(partial, cache);
  }
  return extracted;
}

/** Reads the shapes from the declarations (exported for the test that times it). */
export function extract(root = path.dirname(require.resolve("discord-api-types/v10"))): Extracted {
  const entry = path.join(root, "rest", "v10", "index.d.ts");
  const program = compiler().createProgram([entry], { noEmit: true, skipLibCheck: true, strict: true, types: [], lib: ["lib.es5.d.ts"] });
  const checker = program.getTypeChecker();
  const exports = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!).map((s) => [s.name, s]));
  const declared = (name: string): ts.Type | null => {
    let symbol = exports.get(name);
    if (!symbol) return null;
    if (symbol.flags & compiler().SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return checker.getDeclaredTypeOfSymbol(symbol);
  };
  const methodsOf = routeMethods(checker, exports.get("Routes"));
  const routes = {} as Extracted["routes"];
  for (const route of Object.keys(DISCORD_ROUTES) as DiscordRoute[]) {
    const [method, key] = DISCORD_ROUTES[route];
    if (!methodsOf(key).includes(method)) throw new Error(`discord-api-types documents no ${method} for Routes.${key}`);
    const stem = `REST${method[0]}${method.slice(1).toLowerCase()}API${TYPE_STEM[key] ?? key[0]!.toUpperCase() + key.slice(1)}`;
    // the route's result type is declared for every route; its absence means the naming above went wrong
    if (!declared(`${stem}Result`)) throw new Error(`discord-api-types declares no ${stem}Result`);
    const body = declared(`${stem}JSONBody`);
    const query = declared(`${stem}Query`);
    routes[route] = { body: body ? shapeOf(checker, body) : null, query: query ? shapeOf(checker, query) : null };
  }
  const union = (names: readonly string[]): Shape => {
    const options = names.map((n) => {
      const t = declared(n);
      if (!t) throw new Error(`discord-api-types declares no ${n}`);
      return shapeOf(checker, t);
    });
    return options.length === 1 ? options[0]! : { kind: "anyOf", options };
  };
  return { routes, oauth: { token: union(OAUTH_TYPES.token), authorize: union(OAUTH_TYPES.authorize) } };
}

/**
 * The methods the "Route for:" list of a `Routes` entry names (`- PUT \`/guilds/{guild.id}/members/{user.id}\``).
 */
function routeMethods(checker: ts.TypeChecker, routesSymbol: ts.Symbol | undefined) {
  if (!routesSymbol) throw new Error("discord-api-types exports no Routes");
  const routes = checker.getTypeOfSymbol(routesSymbol.flags & compiler().SymbolFlags.Alias ? checker.getAliasedSymbol(routesSymbol) : routesSymbol);
  return (key: string): string[] => {
    const member = routes.getProperty(key);
    if (!member) throw new Error(`discord-api-types has no Routes.${key}`);
    const doc = compiler().displayPartsToString(member.getDocumentationComment(checker));
    return [...doc.matchAll(/^\s*-\s+(GET|PUT|POST|PATCH|DELETE)\s/gm)].map((m) => m[1]!);
  };
}

/** A declared type as a Shape; a form not handled here stops the extraction rather than passing unchecked. */
function shapeOf(checker: ts.TypeChecker, type: ts.Type): Shape {
  const F = compiler().TypeFlags;
  if (type.isUnion()) {
    const members = type.types.filter((t) => !(t.flags & F.Undefined));
    const nullable = members.some((t) => t.flags & F.Null);
    const rest = members.filter((t) => !(t.flags & F.Null));
    const extra = nullable ? { nullable: true } : {};
    if (rest.length === 0) return { kind: "never" };
    if (rest.every((t) => t.flags & F.BooleanLiteral)) return { kind: "boolean", ...extra };
    if (rest.every((t) => t.isStringLiteral())) return { kind: "string", enum: rest.map((t) => (t as ts.StringLiteralType).value), ...extra };
    if (rest.length === 1) return { ...shapeOf(checker, rest[0]!), ...extra } as Shape;
    return { kind: "anyOf", options: rest.map((t) => shapeOf(checker, t)) };
  }
  if (type.isStringLiteral()) return { kind: "string", enum: [type.value] };
  if (type.isNumberLiteral()) return { kind: "number", enum: [type.value] };
  if (type.flags & F.String) return { kind: "string" };
  if (type.flags & F.Number) return { kind: "number" };
  if (type.flags & (F.Boolean | F.BooleanLiteral)) return { kind: "boolean" };
  // `client_id?: never` reads as undefined: a property that must not be sent
  if (type.flags & (F.Never | F.Undefined)) return { kind: "never" };
  if (checker.isArrayType(type)) return { kind: "array", items: shapeOf(checker, checker.getTypeArguments(type as ts.TypeReference)[0]!) };
  if ((type.flags & F.Object || type.isIntersection()) && checker.getIndexInfosOfType(type).length === 0) {
    const properties: Record<string, Shape> = {};
    const required: string[] = [];
    for (const p of checker.getPropertiesOfType(type)) {
      properties[p.name] = shapeOf(checker, checker.getTypeOfSymbol(p));
      if (!(p.flags & compiler().SymbolFlags.Optional)) required.push(p.name);
    }
    return { kind: "object", properties, required };
  }
  throw new Error(`the peer's check does not handle the declared type ${checker.typeToString(type)} yet`);
}

export interface DiscordMatch {
  route: DiscordRoute;
  params: string[];
}

const SNOWFLAKE = /^\d{1,20}$/;

/**
 * The served route a request names (the path after /api/v10), or null (Discord: 404). The path is the `Routes`
 * entry's own, called with placeholders; each placeholder must be a snowflake (`Routes.user()` is `@me` itself).
 */
export function matchDiscord(method: string, apiPath: string): DiscordMatch | null {
  const segments = apiPath.split("/");
  for (const route of Object.keys(DISCORD_ROUTES) as DiscordRoute[]) {
    const [m, key] = DISCORD_ROUTES[route];
    if (m !== method) continue;
    const template = templateOf(key).split("/");
    if (template.length !== segments.length) continue;
    const params: string[] = [];
    const fits = template.every((t, i) => {
      if (!t.startsWith(PLACEHOLDER)) return t === segments[i];
      params.push(segments[i]!);
      return SNOWFLAKE.test(segments[i]!);
    });
    if (fits) return { route, params };
  }
  return null;
}

// plain letters: Routes percent-encodes what it is given
const PLACEHOLDER = "peer-param-";

function templateOf(key: RouteKey): string {
  const fn = Routes[key] as (...args: string[]) => string;
  // user() names the current user by default, the only user the bot asks about
  if (key === "user") return fn();
  // more placeholders than parameters: a parameter with a default does not count in fn.length
  return fn(...Array.from({ length: 8 }, (_, i) => `${PLACEHOLDER}${i}`));
}

export const DISCORD_NOT_FOUND = { message: "404: Not Found", code: 0 };

/**
 * Discord's refusal of a request its declared body or query does not allow: 400 `Invalid Form Body` (code 50035)
 * with the problems under `errors`, keyed by the field's path, each `{_errors: [{code, message}]}`. Discord drops
 * a body property it does not know; the peer refuses it (code UNKNOWN_FIELD, the peer's own) so that till never
 * sends what Discord would silently ignore.
 */
export function discordRefusal(match: DiscordMatch, query: URLSearchParams, body: unknown): { status: number; body: unknown } | null {
  const declared = load().routes[match.route];
  const problems = problemsOf(declared.query ?? EMPTY, queryRecord(query), true);
  const sent = body !== undefined && body !== "";
  if (declared.body) problems.push(...problemsOf(declared.body, sent ? body : {}));
  else if (sent) problems.push(...problemsOf(EMPTY, body));
  return problems.length === 0 ? null : invalidFormBody(problems);
}

/**
 * PKCE (RFC 7636) on the OAuth2 endpoints. discord-api-types does not declare its parameters; Discord's published
 * authorization-server metadata (https://discord.com/.well-known/oauth-authorization-server) does:
 * `code_challenge_methods_supported: ["S256"]`. So they are taken from that document, beside the declared types.
 */
const PKCE: Record<keyof typeof OAUTH_TYPES, Record<string, Shape>> = {
  authorize: { code_challenge: { kind: "string" }, code_challenge_method: { kind: "string", enum: ["S256"] } },
  token: { code_verifier: { kind: "string" } },
};

/**
 * The OAuth2 server's refusal of a token form or authorize query that its declared type (with PKCE) does not
 * allow: 400 `invalid_request` (RFC 6749 §5.2). RFC 6749 has the server ignore a parameter it does not know; the
 * peer refuses it, so that till never sends what Discord would ignore.
 */
export function discordOauthRefusal(endpoint: keyof typeof OAUTH_TYPES, values: Record<string, string>): { status: number; body: unknown } | null {
  const problems = problemsOf(withProperties(load().oauth[endpoint], PKCE[endpoint]), values, true);
  if (problems.length === 0) return null;
  const described = problems.map((p) => `${p.path.join(".")}: ${p.code === "unknown" ? "not a parameter of this endpoint" : p.code === "required" ? "required" : "invalid"}`);
  return { status: 400, body: { error: "invalid_request", error_description: described.join("; ") } };
}

function withProperties(shape: Shape, extra: Record<string, Shape>): Shape {
  if (shape.kind === "anyOf") return { ...shape, options: shape.options.map((o) => withProperties(o, extra)) };
  if (shape.kind === "object") return { ...shape, properties: { ...shape.properties, ...extra } };
  return shape;
}

const EMPTY: Shape = { kind: "object", properties: {}, required: [] };

function invalidFormBody(problems: Problem[]) {
  const errors: Record<string, unknown> = {};
  for (const p of problems) {
    let at = errors;
    for (const segment of p.path) at = (at[segment] ??= {}) as Record<string, unknown>;
    ((at._errors ??= []) as unknown[]).push(errorOf(p));
  }
  return { status: 400, body: { code: 50035, message: "Invalid Form Body", errors } };
}

function errorOf(p: Problem): { code: string; message: string } {
  if (p.code === "required") return { code: "BASE_TYPE_REQUIRED", message: "This field is required" };
  if (p.code === "unknown") return { code: "UNKNOWN_FIELD", message: "This field is not in Discord's definition" };
  if (p.code === "enum") return { code: "BASE_TYPE_CHOICES", message: `Value must be one of ${JSON.stringify(p.allowed)}.` };
  return { code: `${p.expected.toUpperCase()}_TYPE_CONVERT`, message: `Could not interpret ${JSON.stringify(p.value)} as ${p.expected}.` };
}
