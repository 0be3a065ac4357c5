// GitHub's REST API as its published OpenAPI description (the devDependency @octokit/openapi, api.github.com.json)
// defines the operations the GitHub loopback peer serves: their paths, path and query parameters and JSON bodies,
// and the refusal GitHub gives a request the description does not allow. Upgrading the package moves the peer.
// The description is 13 MB (0.4 s to read and parse on an idle machine, 1.5–2 s on a loaded one; the dereferenced
// copy 73 MB and 2.5 s idle), so only the served operations are extracted, once per package version and extractor
// source, and kept under .tmp/: a process that finds them there loads them in about 30 ms.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ownSource, problemsOf, queryRecord, type Problem, type Scalar, type Shape } from "./definition-shapes.js";

/** The operations the peer serves, as method and path template in the description. */
export const GITHUB_ROUTES = {
  currentUser: ["get", "/user"],
  addCollaborator: ["put", "/repos/{owner}/{repo}/collaborators/{username}"],
  removeCollaborator: ["delete", "/repos/{owner}/{repo}/collaborators/{username}"],
  deleteInvitation: ["delete", "/repos/{owner}/{repo}/invitations/{invitation_id}"],
  installationToken: ["post", "/app/installations/{installation_id}/access_tokens"],
} as const;

export type GithubRoute = keyof typeof GITHUB_ROUTES;

interface GithubOperation {
  route: GithubRoute;
  method: string;
  template: string;
  documentationUrl: string;
  pathParams: { name: string; shape: Shape }[];
  query: Shape & { kind: "object" };
  body: { required: boolean; shape: Shape } | null;
}

const require = createRequire(import.meta.url);
const CACHE_DIR = fileURLToPath(new URL("../../.tmp/", import.meta.url));

let operations: GithubOperation[] | null = null;

function load(): GithubOperation[] {
  if (operations) return operations;
  const pkg = path.dirname(require.resolve("@octokit/openapi/package.json"));
  const version = (JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8")) as { version: string }).version;
  const key = createHash("sha256").update(JSON.stringify([version, ownSource()])).digest("hex").slice(0, 12);
  const cache = path.join(CACHE_DIR, `github-operations-${version}-${key}.json`);
  try {
    operations = JSON.parse(readFileSync(cache, "utf8")) as GithubOperation[];
  } catch {
    operations = extract(JSON.parse(readFileSync(path.join(pkg, "generated", "api.github.com.json"), "utf8")) as Description);
    mkdirSync(CACHE_DIR, { recursive: true });
    // written aside and renamed, so a process reading it alongside never sees half a file
    const partial = `${cache}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(operations));
    renameSync(partial, cache);
  }
  return operations;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };
interface Description {
  paths: Record<string, Record<string, JsonObject>>;
  components: JsonObject;
}

/** Extracts the served operations from the description (exported for the test that times it). */
export function extract(description: Description): GithubOperation[] {
  const resolve = (node: Json): Json => {
    if (!node || typeof node !== "object" || Array.isArray(node) || typeof node.$ref !== "string") return node;
    let target: Json = description as unknown as Json;
    for (const part of node.$ref.replace(/^#\//, "").split("/")) target = (target as JsonObject)[part] ?? null;
    return resolve(target);
  };
  return (Object.keys(GITHUB_ROUTES) as GithubRoute[]).map((route) => {
    const [method, template] = GITHUB_ROUTES[route];
    const op = description.paths[template]?.[method];
    if (!op) throw new Error(`GitHub's description has no ${method.toUpperCase()} ${template}`);
    const params = ((op.parameters ?? []) as Json[]).map((p) => resolve(p) as JsonObject);
    const query: Shape & { kind: "object" } = { kind: "object", properties: {}, required: [] };
    for (const p of params.filter((p) => p.in === "query")) {
      query.properties[String(p.name)] = shapeOf(p.schema ?? null, resolve);
      if (p.required === true) query.required.push(String(p.name));
    }
    const requestBody = resolve(op.requestBody ?? null) as JsonObject | null;
    const content = requestBody?.content as JsonObject | undefined;
    if (content && !content["application/json"]) throw new Error(`${template}: a body other than JSON (${Object.keys(content).join(", ")})`);
    const schema = (content?.["application/json"] as JsonObject | undefined)?.schema;
    return {
      route,
      method: method.toUpperCase(),
      template,
      documentationUrl: String((op.externalDocs as JsonObject | undefined)?.url ?? "https://docs.github.com/rest"),
      pathParams: params.filter((p) => p.in === "path").map((p) => ({ name: String(p.name), shape: shapeOf(p.schema ?? null, resolve) })),
      query,
      body: schema ? { required: requestBody?.required === true, shape: shapeOf(schema, resolve) } : null,
    };
  });
}

/** Keywords that only describe. Any other keyword must be understood below, or the extraction stops. */
const ANNOTATIONS = new Set(["description", "example", "examples", "title", "default", "deprecated", "readOnly", "writeOnly", "externalDocs"]);

/**
 * A JSON schema (the OpenAPI 3.0 subset the served operations use) as a Shape. A keyword not handled here stops
 * the extraction: a description that starts using it (after an upgrade) must be taught, not half-checked.
 */
function shapeOf(node: Json, resolve: (n: Json) => Json): Shape {
  const s = resolve(node);
  if (!s || typeof s !== "object" || Array.isArray(s)) throw new Error(`not a schema: ${JSON.stringify(s)}`);
  const unknown = Object.keys(s).filter((k) => !ANNOTATIONS.has(k) && !k.startsWith("x-") && !HANDLED.has(k));
  if (unknown.length > 0) throw new Error(`GitHub's description uses ${unknown.join(", ")}, which the peer's schema check does not handle yet`);
  const nullable = s.nullable === true ? { nullable: true } : {};
  const alternatives = (s.oneOf ?? s.anyOf) as Json[] | undefined;
  if (alternatives) return { kind: "anyOf", options: alternatives.map((a) => shapeOf(a, resolve)) };
  const type = s.type ?? (s.properties ? "object" : undefined);
  if (type === "object") {
    const properties: Record<string, Shape> = {};
    for (const [k, v] of Object.entries((s.properties ?? {}) as JsonObject)) properties[k] = shapeOf(v, resolve);
    const extra = s.additionalProperties;
    const additional = extra && typeof extra === "object" ? { additional: shapeOf(extra, resolve) } : {};
    if (extra === true) throw new Error("additionalProperties: true is not handled yet");
    return { kind: "object", properties, required: ((s.required ?? []) as Json[]).map(String), ...additional, ...nullable };
  }
  if (type === "array") return { kind: "array", items: shapeOf(s.items ?? null, resolve), ...nullable };
  if (type === "string" || type === "integer" || type === "number" || type === "boolean") {
    return { kind: type, ...(Array.isArray(s.enum) ? { enum: s.enum.filter((v): v is Scalar => v !== null && typeof v !== "object") } : {}), ...nullable };
  }
  throw new Error(`a schema of type ${JSON.stringify(type)} is not handled yet`);
}

const HANDLED = new Set(["type", "properties", "required", "additionalProperties", "items", "enum", "nullable", "oneOf", "anyOf"]);

export interface GithubMatch {
  route: GithubRoute;
  params: Record<string, string>;
  operation: GithubOperation;
}

/** The served operation a request names, or null (GitHub: 404). A path parameter must be of its declared type. */
export function matchGithub(method: string, pathname: string): GithubMatch | null {
  const segments = pathname.split("/");
  for (const operation of load()) {
    if (operation.method !== method) continue;
    const template = operation.template.split("/");
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = template.every((t, i) => {
      const name = /^\{(.+)\}$/.exec(t)?.[1];
      if (!name) return t === segments[i];
      params[name] = decodeURIComponent(segments[i]!);
      return params[name] !== "";
    });
    const typed = operation.pathParams.every((p) => problemsOf(p.shape, params[p.name], true).length === 0);
    if (fits && typed) return { route: operation.route, params, operation };
  }
  return null;
}

export const GITHUB_NOT_FOUND = { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" };

/**
 * GitHub's refusal of a request the operation's description does not allow, or null. GitHub checks JSON bodies
 * against its schemas and answers 422 "Invalid request." with one line per problem, in these words
 * ("\"name\" is not a permitted key.", "\"sha\" wasn't supplied.", "For 'properties/private', \"yes\" is not a
 * boolean."); a query parameter the description lacks is refused the same way here, though GitHub ignores one.
 */
export function githubRefusal(match: GithubMatch, query: URLSearchParams, body: unknown): { status: number; body: unknown } | null {
  const { operation } = match;
  const lines = problemsOf(operation.query, queryRecord(query), true).map(lineOf);
  const sent = body !== undefined && body !== "";
  if (operation.body && (sent || operation.body.required)) lines.push(...problemsOf(operation.body.shape, body).map(lineOf));
  else if (sent && !operation.body) {
    if (body && typeof body === "object" && !Array.isArray(body)) lines.push(...Object.keys(body).map((k) => lineOf({ path: [k], code: "unknown" })));
    else lines.push("This endpoint takes no request body.");
  }
  if (lines.length === 0) return null;
  return { status: 422, body: { message: `Invalid request.\n\n${lines.join("\n")}`, documentation_url: operation.documentationUrl, status: "422" } };
}

function lineOf(p: Problem): string {
  const name = p.path[p.path.length - 1] ?? "";
  const where = p.path.map((s) => (/^\d+$/.test(s) ? `items/${s}` : `properties/${s}`)).join("/");
  if (p.code === "unknown") return `"${name}" is not a permitted key.`;
  if (p.code === "required") return `"${name}" wasn't supplied.`;
  if (p.code === "type") return `For '${where}', ${JSON.stringify(p.value)} is not ${/^[aeiou]/.test(p.expected) ? "an" : "a"} ${p.expected}.`;
  return `For '${where}', ${JSON.stringify(p.value)} is not a member of ${JSON.stringify(p.allowed)}.`;
}
