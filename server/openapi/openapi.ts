// /api/openapi.json, generated: @fastify/swagger collects every /v1 route with the contract it declares
// (billing/contract.ts: kind of caller, scope, query and body as zod, responses by Polar model name or error
// declaration); zod's
// schemas become JSON Schema (fastify-type-provider-zod), Polar's models come from @polar-sh/sdk's own zod
// schemas (the contract the SDK validates responses against), and better-auth's document joins under /api/auth.
import fastifySwagger, { type SwaggerTransform } from "@fastify/swagger";
import type { FastifyInstance, RouteOptions } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { z } from "zod";
import { type Auth } from "../auth/index.js";
import { AUTH_BASE_PATH } from "../../shared/auth-mount.js";
import { callerOf, documentedError, type CallerKind, type ResponseModel, type Responses } from "../billing/contract.js";
import { IDEMPOTENCY_PARAMETER, takesIdempotencyKey } from "../http/idempotency.js";
import { summaryOf, V1_TAGS } from "./openapi-summaries.js";
import { POLAR_MODELS } from "./polar-models.js";
import { POLAR_UNIONS, type PolarUnion } from "./polar-unions.js";
import { methodsOf } from "../http/route-hooks.js";

type Json = Record<string, unknown>;
type Operation = Json & { parameters?: unknown[]; responses?: Json; description?: string };
export type OpenApiDoc = Json & { paths?: Record<string, Record<string, Operation>>; components?: Json & { schemas?: Json } };

const CALLERS: Record<CallerKind, { security: Array<Record<string, string[]>> | null; text: string }> = {
  organization: { security: null, text: "An organization access token (API key) or a member's session." },
  customer_session: { security: [{ customer_session: [] }], text: "A customer session's token (the customer portal)." },
  client_secret: { security: [], text: "No token: the secret in the request (a checkout's client secret, a token or a signed URL) is the credential." },
  none: { security: [], text: "No authentication." },
  platform_admin: {
    security: [{ admin_session: [] }],
    text: "A platform admin's session (the admin role, or a user id in TILL_ADMIN_USER_IDS); anyone else is refused with 403.",
  },
};

const SECURITY_SCHEMES = {
  organization_token: {
    type: "http",
    scheme: "bearer",
    description: "An organization access token (`till_…` API key) or a member's session token; the scopes listed on an operation are required.",
  },
  customer_session: { type: "http", scheme: "bearer", description: "A customer session token (`POST /v1/customer-sessions/`)." },
  admin_session: { type: "http", scheme: "bearer", description: "A platform admin's session token (`till login` as a user with the admin role)." },
} as const;

/** What the document needs to know of each /v1 route, by "get /v1/products/{id}". */
interface Declared {
  responses: Responses;
}

const openApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, "{$1}");

/** The path parameters of a URL (`:id` is a UUID, as `pathId` checks; others are strings). */
function pathParams(url: string): Json | undefined {
  const names = [...url.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1] ?? "");
  if (names.length === 0) return undefined;
  const properties = Object.fromEntries(names.map((n) => [n, n === "id" || n.endsWith("_id") ? { type: "string", format: "uuid" } : { type: "string" }]));
  return { type: "object", properties, required: names };
}

function describe(route: RouteOptions, caller: CallerKind, given: unknown): string {
  const scope = route.config?.scope;
  const lines = [typeof given === "string" ? given : "", CALLERS[caller].text, scope ? `**Scopes**: \`${scope}\`` : ""];
  return lines.filter(Boolean).join("\n\n");
}

/** @fastify/swagger's transform: /v1 routes only, their zod parts as JSON Schema, the caller as security. */
function transformFor(declared: Map<string, Declared>): SwaggerTransform {
  return (input) => {
    const { url, route } = input;
    if (!url.startsWith("/v1/")) return { schema: { hide: true }, url };
    const schema = (input.schema ?? {}) as Json;
    const { response: _response, description, ...rest } = schema;
    const { schema: transformed } = jsonSchemaTransform({ ...input, schema: rest } as Parameters<typeof jsonSchemaTransform>[0]);
    const caller = callerOf(route.config);
    const scope = route.config?.scope;
    const security = CALLERS[caller].security ?? [{ organization_token: scope ? [scope] : [] }];
    const methods = methodsOf(route);
    for (const m of methods) declared.set(`${m.toLowerCase()} ${openApiPath(url)}`, { responses: route.config?.responses ?? {} });
    const params = (transformed as Json).params ?? pathParams(url);
    return {
      url,
      schema: { summary: summaryOf(schema.operationId), ...transformed, ...(params ? { params } : {}), tags: [url.split("/")[2] ?? "v1"], description: describe(route, caller, description), security },
    };
  };
}

interface Unions {
  byName: Map<string, PolarUnion>;
  /** A union's name by its schema object, as the SDK's other models hold it. */
  bySchema: Map<unknown, string>;
}
let unionsLoaded: Promise<Unions> | undefined;
const unions = () =>
  (unionsLoaded ??= (async () => {
    const entries = await Promise.all(Object.entries(POLAR_UNIONS).map(async ([name, load]) => [name, await load()] as const));
    return { byName: new Map(entries), bySchema: new Map(entries.map(([name, u]) => [u.union, name])) };
  })());

const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * An SDK schema as JSON Schema (the wire side, before the SDK maps it); a union of server/openapi/polar-unions.ts met
 * inside becomes a reference to its component, its name added to `found`.
 */
function toJsonSchema(schema: z.core.$ZodType, u: Unions, found: Set<string>): Json {
  const json = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: (ctx) => {
      const name = u.bySchema.get(ctx.zodSchema);
      if (!name) return;
      const target = ctx.jsonSchema as Json;
      for (const key of Object.keys(target)) delete target[key];
      Object.assign(target, componentRef(name));
      found.add(name);
    },
  }) as Json;
  return withoutSdkFields(json);
}

/**
 * Adds the Polar model `name` to `components` from @polar-sh/sdk's inbound zod schema; a smart union as `anyOf` its
 * members, each a component, and the unions found inside, each once.
 */
async function addPolarModel(name: string, components: Json): Promise<void> {
  if (components[name]) return;
  const u = await unions();
  const found = new Set<string>();
  const union = u.byName.get(name);
  if (union) {
    components[name] = { anyOf: Object.keys(union.members).map(componentRef) };
    for (const [member, schema] of Object.entries(union.members)) {
      if (!(schema instanceof z.core.$ZodType)) throw new Error(`openapi: ${name}'s member ${member} is not a schema (server/openapi/polar-unions.ts)`);
      components[member] ??= toJsonSchema(schema, u, found);
    }
  } else {
    const schema = await POLAR_MODELS[name]?.();
    if (!(schema instanceof z.core.$ZodType)) throw new Error(`openapi: no model ${name} in server/openapi/polar-models.ts (add it from @polar-sh/sdk)`);
    components[name] = toJsonSchema(schema, u, found);
  }
  for (const inner of found) await addPolarModel(inner, components);
}

/** The SDK's error models carry request$/response$/body$ of its own; the wire does not. */
function withoutSdkFields(schema: Json): Json {
  const { $schema: _drop, ...rest } = schema;
  const props = rest.properties as Json | undefined;
  if (!props) return rest;
  const keep = Object.keys(props).filter((k) => !k.endsWith("$"));
  return {
    ...rest,
    properties: Object.fromEntries(keep.map((k) => [k, props[k]])),
    ...(Array.isArray(rest.required) ? { required: (rest.required as string[]).filter((k) => !k.endsWith("$")) } : {}),
  };
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 302: "Found", 307: "Temporary Redirect", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
  404: "Not Found", 409: "Conflict", 410: "Gone", 413: "Payload Too Large", 422: "Validation Error", 429: "Too Many Requests",
};

async function responsesOf(responses: Responses, components: Json): Promise<Json> {
  const out: Json = {};
  for (const [status, entry] of Object.entries(responses)) {
    const description = STATUS_TEXT[Number(status)] ?? `HTTP ${status}`;
    // an error's declaration shows its model (an SDK error, or a union of them)
    const error = documentedError(entry);
    if (error && error.status !== Number(status)) throw new Error(`openapi: the ${error.model} declared under ${status} answers ${error.status}`);
    const model: ResponseModel = error ? error.model : (entry as ResponseModel);
    if (!error && Number(status) >= 400 && typeof model === "string" && !model.includes("/")) {
      throw new Error(`openapi: ${status} names the model ${model}: name the error's declaration (its domain's errors.ts)`);
    }
    if (model === null) {
      out[status] = { description };
    } else if (typeof model === "string" && model.includes("/")) {
      // a media type: the bytes of a file, a CSV, a stream of server-sent events
      const binary = model.startsWith("application/");
      out[status] = { description, content: { [model]: { schema: binary ? { type: "string", format: "binary" } : { type: "string" } } } };
    } else if (typeof model === "string") {
      // "Model" or "Model[]" (a JSON array of them)
      const name = model.replace(/\[\]$/, "");
      await addPolarModel(name, components);
      const ref = { $ref: `#/components/schemas/${name}` };
      out[status] = { description, content: { "application/json": { schema: name === model ? ref : { type: "array", items: ref } } } };
    } else {
      const { $schema: _drop, ...schema } = z.toJSONSchema(model, { io: "output", unrepresentable: "any" }) as Json;
      out[status] = { description, content: { "application/json": { schema } } };
    }
  }
  return out;
}

/** Registers @fastify/swagger on the root instance (before any route, so it sees them all). */
export async function installOpenApi(app: FastifyInstance, baseURL: string): Promise<() => Promise<OpenApiDoc>> {
  const declared = new Map<string, Declared>();
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "till API",
        version: "1",
        description: "Accounts and organizations (/api/auth); the billing API (/v1), wire-compatible with Polar's (`@polar-sh/sdk` works against it).",
      },
      servers: [{ url: baseURL }],
      tags: V1_TAGS,
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: transformFor(declared),
  });
  return async () => {
    const doc = structuredClone(app.swagger()) as OpenApiDoc;
    const schemas: Json = (doc.components ??= {}).schemas ?? {};
    doc.components.schemas = schemas;
    for (const [p, ops] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(ops)) {
        const d = declared.get(`${method} ${p}`);
        if (d) op.responses = await responsesOf(d.responses, schemas);
      }
    }
    return doc;
  };
}

/** Declares the Idempotency-Key header on each operation that takes it (server/http/idempotency.ts). */
function withIdempotencyKey(paths: NonNullable<OpenApiDoc["paths"]>): void {
  for (const [p, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (takesIdempotencyKey(method.toUpperCase(), p)) ops[method] = { ...op, parameters: [...(op.parameters ?? []), IDEMPOTENCY_PARAMETER] };
    }
  }
}

/** The whole document: /v1 from the routes, better-auth's paths under /api/auth with its components. */
export async function mergedDocument(v1: () => Promise<OpenApiDoc>, auth: Auth): Promise<OpenApiDoc> {
  const [doc, generated] = await Promise.all([v1(), auth.api.generateOpenAPISchema() as unknown as Promise<OpenApiDoc>]);
  const paths: NonNullable<OpenApiDoc["paths"]> = { ...doc.paths };
  for (const [p, ops] of Object.entries(generated.paths ?? {})) {
    paths[`${AUTH_BASE_PATH}${p}`] = Object.fromEntries(Object.entries(ops).map(([m, op]) => [m, { ...op, tags: ["auth", ...((op.tags as string[] | undefined) ?? [])] }]));
  }
  withIdempotencyKey(paths);
  const authComponents = generated.components ?? {};
  return {
    ...doc,
    paths,
    components: {
      ...doc.components,
      schemas: { ...(authComponents.schemas as Json | undefined), ...doc.components?.schemas },
      securitySchemes: { ...(authComponents.securitySchemes as Json | undefined), ...(doc.components?.securitySchemes as Json | undefined) },
    },
  };
}
