// What Stripe's API accepts, derived from the installed `stripe` package itself (never shipped): for every request
// its client can make — the (method, path) of each `this._makeRequest(...)` in the resource classes' JS — the tree
// of parameters the same method's params type declares in the `.d.ts` beside it, walked with the TypeScript
// compiler. The Stripe stand-in (stripe-peer.ts) refuses what this table lacks, as Stripe does, so a parameter the
// pinned API version removed fails in tests the way it would fail against Stripe. When the package is upgraded the
// table follows: it is cached under .tmp/, keyed by the package's version and this module's own text.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * One node of a parameter tree, as it travels in a form-encoded request (every value a string). A node may take
 * several forms at once (a union): `string` (true: any string; a list: those values only), `boolean` ("true" or
 * "false"), `number`, `empty` ("": Stripe's way of unsetting, `Emptyable<T>` and null), `props` (an object's
 * named children), `anyKey` (the child for any other name: metadata, records), `items` (an array's element).
 * `any` takes anything (a type the walk cannot describe, or one that refers to itself).
 */
export interface ParamNode {
  any?: true;
  string?: true | string[];
  boolean?: true;
  number?: true;
  empty?: true;
  props?: Record<string, number>;
  anyKey?: number;
  items?: number;
}

export interface StripeContract {
  stripeVersion: string;
  /** The API version the package pins (`ApiVersion` in its apiVersion.js). */
  apiVersion: string;
  /** Interned nodes; children refer to them by index. */
  nodes: ParamNode[];
  /** `"POST /v1/payment_intents/{}/confirm"` → the root node of its parameters (null: the method takes none). */
  routes: Record<string, number | null>;
}

const require = createRequire(import.meta.url);
const here = fileURLToPath(import.meta.url);
const repoRoot = join(dirname(here), "..", "..");

/** The package's CommonJS directory (cjs/), found the way Node resolves `stripe`, not by a path written here. */
function stripeDir(): string {
  let dir = dirname(require.resolve("stripe"));
  while (!dir.endsWith(`${sep}cjs`)) dir = dirname(dir);
  return dir;
}

const stripeVersion = () => (JSON.parse(readFileSync(join(stripeDir(), "..", "package.json"), "utf8")) as { version: string }).version;

/** `/v1/payment_intents/:id/confirm` (a Fastify route) → `/v1/payment_intents/{}/confirm` (the table's key). */
export const routeKey = (method: string, path: string) => `${method} ${path.replace(/:[A-Za-z_]+/g, "{}")}`;

let loaded: StripeContract | undefined;

/**
 * The table for the installed package: from the cache when it is there for this version and this module, else derived.
 */
export function stripeContract(): StripeContract {
  if (loaded) return loaded;
  const version = stripeVersion();
  const key = createHash("sha256").update(version).update(ts.version).update(readFileSync(here)).digest("hex").slice(0, 16);
  const file = join(repoRoot, ".tmp", `stripe-contract-${version}-${key}.json`);
  try {
    loaded = JSON.parse(readFileSync(file, "utf8")) as StripeContract;
    return loaded;
  } catch {
    // not cached yet for this package and this module
  }
  loaded = deriveStripeContract();
  mkdirSync(dirname(file), { recursive: true });
  // written whole then renamed, so a test file starting at the same time reads either nothing or all of it
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(loaded));
  renameSync(partial, file);
  // the tables of an earlier package or module are never read again
  for (const old of readdirSync(dirname(file))) if (/^stripe-contract-.*\.json$/.test(old) && join(dirname(file), old) !== file) rmSync(join(dirname(file), old), { force: true });
  return loaded;
}

interface Call {
  cls: string;
  method: string;
  httpMethod: string;
  path: string;
}

/**
 * Every `this._makeRequest('GET', `/v1/x/${encodeURIComponent(id)}`, ...)` of a resource file, with its class and
 * method.
 */
function requestsOf(jsFile: string): Call[] {
  const source = ts.createSourceFile(jsFile, readFileSync(jsFile, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const calls: Call[] = [];
  const visit = (node: ts.Node, cls: string | undefined, method: string | undefined) => {
    if (ts.isClassDeclaration(node)) cls = node.name?.text;
    if (ts.isMethodDeclaration(node) && ts.isIdentifier(node.name)) method = node.name.text;
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "_makeRequest" && cls && method) {
      const [verb, path] = node.arguments;
      const template = path && pathTemplate(path);
      // a path computed at run time (an event's related object) is no route of its own
      // the stand-in speaks the v1 API (form-encoded); v2 (JSON bodies) is another contract
      if (verb && ts.isStringLiteral(verb) && template?.startsWith("/v1/")) calls.push({ cls, method, httpMethod: verb.text, path: template });
    }
    ts.forEachChild(node, (child) => visit(child, cls, method));
  };
  visit(source, undefined, undefined);
  return calls;
}

function pathTemplate(node: ts.Expression): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((span) => `{}${span.literal.text}`).join("");
  return undefined;
}

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext) && !e.name.endsWith(".d.ts"))
    .map((e) => join(e.parentPath, e.name));
}

/**
 * Derives the table. Its cost is parsing and checking the package's declarations: about 7 s of CPU (stripe
 * 23.1.0: 557 routes, 1,132 distinct nodes, 140 kB of JSON); read from the cache, 0.1 s.
 */
export function deriveStripeContract(): StripeContract {
  const dir = stripeDir();
  const calls = filesUnder(join(dir, "resources"), ".js").map((js) => ({ js, calls: requestsOf(js) }));
  const declarations = calls.map(({ js }) => js.replace(/\.js$/, ".d.ts"));
  const program = ts.createProgram(declarations, { noEmit: true, skipLibCheck: true, strict: true, types: [] });
  const checker = program.getTypeChecker();
  const walker = new ParamWalker(checker);
  const routes: Record<string, number | null> = {};
  for (const { js, calls: found } of calls) {
    const dts = program.getSourceFile(js.replace(/\.js$/, ".d.ts"));
    if (!dts) throw new Error(`stripe-contract: no declarations beside ${relative(dir, js)}`);
    for (const call of found) {
      const types = paramsTypesOf(dts, call);
      const key = `${call.httpMethod} ${call.path}`;
      const root = types.length === 0 ? null : walker.intern(walker.merge(types.map((t) => walker.walk(checker.getTypeFromTypeNode(t)))));
      const before = routes[key];
      // two methods of one route (an alias) take the union of their parameters
      routes[key] = before === undefined || before === null || root === null ? (root ?? before ?? null) : walker.intern(walker.merge([walker.shapeOf(before), walker.shapeOf(root)]));
    }
  }
  const apiVersion = (require(join(dir, "apiVersion.js")) as { ApiVersion: string }).ApiVersion;
  return { stripeVersion: stripeVersion(), apiVersion, nodes: walker.nodes, routes };
}

/** The declared type of the `params` argument of every signature of the class's method. */
function paramsTypesOf(dts: ts.SourceFile, call: Call): ts.TypeNode[] {
  const types: ts.TypeNode[] = [];
  for (const statement of dts.statements) {
    if (!ts.isClassDeclaration(statement) || statement.name?.text !== call.cls) continue;
    for (const member of statement.members) {
      if (!ts.isMethodDeclaration(member) || !ts.isIdentifier(member.name) || member.name.text !== call.method) continue;
      const params = member.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === "params");
      if (params?.type) types.push(params.type);
    }
  }
  return types;
}

/** A node while it is being built: children are shapes, interned into indexes at the end. */
interface Shape {
  any?: true;
  string?: true | Set<string>;
  boolean?: true;
  number?: true;
  empty?: true;
  props?: Map<string, Shape>;
  anyKey?: Shape;
  items?: Shape;
}

class ParamWalker {
  readonly nodes: ParamNode[] = [];
  private readonly interned = new Map<string, number>();
  private readonly byType = new Map<ts.Type, Shape>();
  private readonly walking = new Set<ts.Type>();

  constructor(private readonly checker: ts.TypeChecker) {}

  walk(type: ts.Type): Shape {
    const known = this.byType.get(type);
    if (known) return known;
    // a type that contains itself takes anything below that point: no parameter tree of Stripe's nests itself
    if (this.walking.has(type)) return { any: true };
    this.walking.add(type);
    const shape = this.describe(type);
    this.walking.delete(type);
    this.byType.set(type, shape);
    return shape;
  }

  private describe(type: ts.Type): Shape {
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { any: true };
    if (type.isUnion()) return this.merge(type.types.map((t) => this.walk(t)));
    // a Decimal (the package's branded `DecimalImpl & {…}`) is sent as its string
    if (type.aliasSymbol?.getName() === "Decimal") return { number: true, string: true };
    // `OtherString` (string & Record<never, never>) is how the package leaves an enum open: any string
    if (type.isIntersection()) return type.types.some((t) => t.flags & ts.TypeFlags.String) ? { string: true } : this.merge(type.types.map((t) => this.walk(t)));
    if (type.isStringLiteral()) return type.value === "" ? { empty: true } : { string: new Set([type.value]) };
    if (f & ts.TypeFlags.StringLike) return { string: true };
    if (f & ts.TypeFlags.NumberLike) return { number: true };
    if (f & ts.TypeFlags.BooleanLike) return { boolean: true };
    // stripe-node sends null as "" (there is no null in a form)
    if (f & ts.TypeFlags.Null) return { empty: true };
    if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Never)) return {};
    if (this.checker.isArrayType(type) || this.checker.isTupleType(type)) {
      const [element] = this.checker.getTypeArguments(type as ts.TypeReference);
      return { items: element ? this.walk(element) : { any: true } };
    }
    const name = type.getSymbol()?.getName();
    // a Decimal is sent as its string; a Date as a Unix timestamp; a file upload (multipart) is not a form value
    if (name === "Decimal" || name === "Date") return { number: true, string: true };
    if (f & ts.TypeFlags.Object) return this.object(type);
    return { any: true };
  }

  private object(type: ts.Type): Shape {
    const props = new Map<string, Shape>();
    for (const prop of this.checker.getPropertiesOfType(type)) props.set(prop.getName(), this.walk(this.checker.getTypeOfSymbol(prop)));
    const index = this.checker.getIndexInfosOfType(type).map((info) => this.walk(info.type));
    return { props, ...(index.length > 0 ? { anyKey: this.merge(index) } : {}) };
  }

  /** A union: every form any member takes (two object members: each name as either declares it). */
  merge(shapes: Shape[]): Shape {
    const out: Shape = {};
    for (const s of shapes) {
      if (s.any) return { any: true };
      if (s.string) out.string = s.string === true || out.string === true ? true : new Set([...(out.string ?? []), ...s.string]);
      if (s.boolean) out.boolean = true;
      if (s.number) out.number = true;
      if (s.empty) out.empty = true;
      if (s.props) {
        const props = new Map(out.props ?? []);
        for (const [k, v] of s.props) props.set(k, props.has(k) ? this.merge([props.get(k) as Shape, v]) : v);
        out.props = props;
      }
      if (s.anyKey) out.anyKey = out.anyKey ? this.merge([out.anyKey, s.anyKey]) : s.anyKey;
      if (s.items) out.items = out.items ? this.merge([out.items, s.items]) : s.items;
    }
    return out;
  }

  /** The node's index; equal nodes (the same nested params under many methods) are stored once. */
  intern(shape: Shape): number {
    const node: ParamNode = {};
    if (shape.any) node.any = true;
    if (shape.string) node.string = shape.string === true ? true : [...shape.string].sort();
    if (shape.boolean) node.boolean = true;
    if (shape.number) node.number = true;
    if (shape.empty) node.empty = true;
    if (shape.props) node.props = Object.fromEntries([...shape.props].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, this.intern(v)]));
    if (shape.anyKey) node.anyKey = this.intern(shape.anyKey);
    if (shape.items) node.items = this.intern(shape.items);
    const key = JSON.stringify(node);
    const seen = this.interned.get(key);
    if (seen !== undefined) return seen;
    this.nodes.push(node);
    this.interned.set(key, this.nodes.length - 1);
    return this.nodes.length - 1;
  }

  /** An interned node back as a shape (to merge two methods of one route). */
  shapeOf(index: number): Shape {
    const node = this.nodes[index] ?? { any: true };
    return {
      ...(node.any ? { any: true as const } : {}),
      ...(node.string ? { string: node.string === true ? (true as const) : new Set(node.string) } : {}),
      ...(node.boolean ? { boolean: true as const } : {}),
      ...(node.number ? { number: true as const } : {}),
      ...(node.empty ? { empty: true as const } : {}),
      ...(node.props ? { props: new Map(Object.entries(node.props).map(([k, v]) => [k, this.shapeOf(v)])) } : {}),
      ...(node.anyKey !== undefined ? { anyKey: this.shapeOf(node.anyKey) } : {}),
      ...(node.items !== undefined ? { items: this.shapeOf(node.items) } : {}),
    };
  }
}

/** Stripe's answer to a request its API would refuse for its parameters: the error object of a 400. */
export interface ParamRefusal {
  type: "invalid_request_error";
  code?: string;
  param: string;
  message: string;
}

const unknown = (param: string): ParamRefusal => ({ type: "invalid_request_error", code: "parameter_unknown", param, message: `Received unknown parameter: ${param}` });
const invalid = (param: string, message: string, code?: string): ParamRefusal => ({ type: "invalid_request_error", ...(code ? { code } : {}), param, message });
const oneOf = (values: string[]) => (values.length < 2 ? values.join("") : `${values.slice(0, -1).join(", ")}, or ${values.at(-1) ?? ""}`);

/**
 * Checks a request's parsed parameters (the query of a GET or DELETE, the form body of a POST) against the route's
 * tree. The first refusal in the order Stripe reads them (a name it does not know, then a value of the wrong kind)
 * is returned, worded as Stripe words it; nothing when the request would be accepted.
 */
export function checkParams(contract: StripeContract, root: number | null, params: Record<string, unknown>): ParamRefusal | undefined {
  const names = Object.keys(params);
  if (root === null) return names[0] === undefined ? undefined : unknown(names[0]);
  return checkValue(contract, root, params, "");
}

function checkValue(contract: StripeContract, index: number, value: unknown, path: string): ParamRefusal | undefined {
  const node = contract.nodes[index];
  if (!node || node.any) return undefined;
  if (typeof value === "string") return checkString(node, value, path);
  if (Array.isArray(value)) {
    if (node.items !== undefined) return firstOf(value.map((v, i) => [`${path}[${i}]`, node.items as number, v] as const), contract);
    // `metadata[0]=x` arrives as an array: its indexes are names like any other
    if (node.anyKey !== undefined) return firstOf(value.map((v, i) => [`${path}[${i}]`, node.anyKey as number, v] as const), contract);
    return node.props ? unknown(`${path}[0]`) : invalid(path, `Invalid ${kindOf(node)}`);
  }
  if (value !== null && typeof value === "object") {
    if (!node.props && node.anyKey === undefined) return invalid(path, `Invalid ${kindOf(node)}`);
    const children: Array<readonly [string, number, unknown]> = [];
    for (const [name, child] of Object.entries(value)) {
      const param = path ? `${path}[${name}]` : name;
      const next = node.props?.[name] ?? node.anyKey;
      if (next === undefined) return unknown(param);
      children.push([param, next, child]);
    }
    return firstOf(children, contract);
  }
  return undefined;
}

function firstOf(children: ReadonlyArray<readonly [string, number, unknown]>, contract: StripeContract): ParamRefusal | undefined {
  for (const [param, index, value] of children) {
    const refusal = checkValue(contract, index, value, param);
    if (refusal) return refusal;
  }
  return undefined;
}

function checkString(node: ParamNode, value: string, path: string): ParamRefusal | undefined {
  if (node.string === true) return undefined;
  if (value === "" && node.empty) return undefined;
  if (Array.isArray(node.string) && node.string.includes(value)) return undefined;
  if (node.boolean && (value === "true" || value === "false")) return undefined;
  if (node.number && value.trim() !== "" && Number.isFinite(Number(value))) return undefined;
  if (Array.isArray(node.string)) return invalid(path, `Invalid ${path}: must be one of ${oneOf(node.string)}`);
  if (node.number) return invalid(path, `Invalid integer: ${value}`, "parameter_invalid_integer");
  if (node.boolean) return invalid(path, `Invalid boolean: ${value}`);
  return invalid(path, `Invalid ${kindOf(node)}`);
}

/** What a node takes, in the words of Stripe's "Invalid object" / "Invalid array". */
const kindOf = (node: ParamNode) => (node.items !== undefined ? "array" : node.props || node.anyKey !== undefined ? "object" : node.number ? "integer" : node.boolean ? "boolean" : "string");
