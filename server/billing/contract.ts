// A /v1 route's declared contract: who may call it (the kind of caller), its query and body as the zod schemas
// the route validates with, and its responses: a success by Polar model name, an error by its declaration (an
// errors.ts's, never a model's name: the value the service throws is the value the document shows). The billing
// plugin validates what a route declares (validateContract, after authentication, with Polar's 422) and
// /api/openapi.json is generated from it.
import type {
  FastifyBaseLogger,
  FastifyContextConfig,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteOptions,
} from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { DocumentedError, ErrorModel } from "./errors.js";
import { normalizeQuery, parseWith } from "./http.js";
import { withHook } from "../http/route-hooks.js";

/**
 * Who calls a route. `organization`: an organization API key or a member's session (bearer), the default;
 * `customer_session`: a customer portal session (bearer); `client_secret`: a per-object secret in the path
 * (a checkout's client secret, an invitation token, a signed download); `none`: anyone (the route may check a
 * signature or a code in the body itself); `platform_admin`: a platform admin's session, across organizations.
 */
export const CALLER_KINDS = ["organization", "customer_session", "client_secret", "none", "platform_admin"] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

/**
 * A success as the document shows it: a model of `@polar-sh/sdk` by name ("Product", "ListResourceProduct";
 * "Model[]" for an array of them; "text/csv"), a zod schema of ours (till's own routes), or null for an empty
 * body (204, 202).
 */
export type ResponseModel = string | z.ZodType | null;

type SuccessStatus = 200 | 201 | 202 | 204 | 302 | 307;
type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 410 | 412 | 413 | 422 | 429 | 502;
/** A media type ("text/plain"): a page for a browser, not an API error. */
type MediaType = `${string}/${string}`;
/**
 * A route's answers by status: a success as its model, an error as its declaration (`410: expiredCheckout`, whose
 * status must be 410; never a model's name), a media type for a browser's page, or null where no body is documented
 * (a 429 of a rate limit).
 */
export type Responses = { readonly [S in SuccessStatus]?: ResponseModel } & {
  readonly [S in ErrorStatus]?: DocumentedError<S> | MediaType | null;
};

/** A route's `responses` entry under an error status, as the document's model and status (null for anything else). */
export function documentedError(entry: unknown): { status: number; model: ErrorModel } | null {
  if ((typeof entry !== "function" && typeof entry !== "object") || entry === null) return null;
  const { status, model } = entry as Partial<DocumentedError>;
  return typeof status === "number" && model !== undefined ? { status, model } : null;
}

/** The instance every domain's routes register on: request parts typed from their zod schemas. */
export type V1App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

declare module "fastify" {
  interface FastifyContextConfig {
    /** Who calls the route (default: organization). */
    caller?: CallerKind;
    /** The route's answers by status, for the document; the route serializes as before (JSON). */
    responses?: Responses;
  }
}

/** What a route declares (`route({...})` gives the options of `app.get(url, options, handler)`). */
export interface Contract<Q extends z.ZodType | undefined, B extends z.ZodType | undefined> extends FastifyContextConfig {
  /** Polar's operationId where Polar has the operation ("products:list"), else till's own ("till:…"). */
  operationId: string;
  summary?: string;
  /** The query, as the route's zod schema (parsed from the SDK's encodings, then validated). */
  query?: Q;
  /** The JSON body, as the route's zod schema. */
  body?: B;
  responses: Responses;
  preHandler?: RouteOptions["preHandler"];
  bodyLimit?: number;
}

/** A route's options from its contract: the schemas where fastify (and the type provider) read them. */
export function route<Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  contract: Contract<Q, B>,
) {
  const { operationId, summary, query, body, preHandler, bodyLimit, ...config } = contract;
  return {
    config,
    // only the parts declared (fastify warns of a part present and undefined); typed as declared
    schema: Object.fromEntries(Object.entries({ operationId, summary, querystring: query, body }).filter(([, v]) => v !== undefined)) as {
      operationId: string;
      querystring: Q;
      body: B;
    },
    ...(preHandler ? { preHandler } : {}),
    ...(bodyLimit ? { bodyLimit } : {}),
  };
}

/** Schemas the route validates itself (events ingest's own parser): in the document, not validated again. */
const documentOnly = new WeakSet<z.ZodType>();
export function documented<S extends z.ZodType>(schema: S): S {
  documentOnly.add(schema);
  return schema;
}

type RouteSchema = { querystring?: unknown; body?: unknown };
const isZod = (s: unknown): s is z.ZodType => s instanceof z.ZodType;

/**
 * preHandler appended to every /v1 route that declares a query or a body: parses them with the declared schema
 * after authentication (as the handlers did themselves before), replacing them with the parsed values, so a
 * handler reads `req.query` / `req.body` typed and valid. Failures are Polar's 422 (`parseWith`).
 */
async function validateContract(req: FastifyRequest): Promise<void> {
  const schema = req.routeOptions.schema as RouteSchema | undefined;
  const query = schema?.querystring;
  if (isZod(query) && !documentOnly.has(query)) req.query = parseWith(query, normalizeQuery(req.query), "query");
  const body = schema?.body;
  if (isZod(body) && !documentOnly.has(body)) req.body = parseWith(body, req.body ?? {}, "body");
}

/**
 * onRoute for the /v1 plugin: validation from the declared schemas, after the route's own preHandlers and before
 * idempotency's check (kept last: a request its input refuses never began, so its key stays unused, as Stripe's).
 */
export function declareContract(route: RouteOptions): void {
  const schema = route.schema as RouteSchema | undefined;
  const validates = [schema?.querystring, schema?.body].some((s) => isZod(s) && !documentOnly.has(s));
  if (!validates) return;
  route.preHandler = withHook(route.preHandler, validateContract);
}

/** The /v1 plugin's compilers: fastify neither validates (validateContract does) nor serializes by schema. */
export function installContractCompilers(app: V1App): void {
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}

/** The caller kind of a route's config. */
export const callerOf = (config: { caller?: CallerKind } | undefined): CallerKind => config?.caller ?? "organization";
