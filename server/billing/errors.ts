// The errors every billing domain answers with, in Polar's shapes: ApiError (status and body), 404
// ResourceNotFound, 403 NotPermitted, 401 Unauthorized, 422 {detail:[{loc,msg,type}]}. A leaf: it imports nothing
// of billing, so any module may throw them. A domain's own errors sit in its errors.ts (subscriptions/errors.ts, …),
// each declared once with declareError: the value a service calls to throw is the value its routes name in their
// contract's `responses`, and /api/openapi.json takes the error's model from it. Only errors.ts files construct
// an ApiError (tests/unit/errors-declared.test.ts).
import type { z } from "zod";
import type { CustomerErrorCode } from "../../shared/customer-errors.js";
import type { RejectedInput, RejectedKind } from "../http/input-guard.js";

export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
  /** till's machine code of an error a customer can meet (shared/customer-errors.ts), for the pages' words. */
  code?: CustomerErrorCode;
}

const REJECTED_TYPES: Record<RejectedKind, string> = {
  depth: "json_invalid",
  values: "json_invalid",
  keys: "json_invalid",
  names: "json_invalid",
  nul: "string_nul",
  surrogate: "string_unicode",
};

/** The input guard's refusal (server/http/input-guard.ts) as Polar's 422. */
export const rejectedInputIssue = (err: RejectedInput): ValidationIssue => ({
  loc: [err.where, ...err.loc],
  msg: err.message,
  type: REJECTED_TYPES[err.kind],
});

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.detail === "string" ? body.detail : `HTTP ${status}`);
  }
}

/**
 * The body's model as the OpenAPI document shows it: a model of @polar-sh/sdk by name, or a zod schema of till's
 * own for an error Polar does not have.
 */
export type ErrorModel = string | z.ZodType;

/**
 * An error declared once: calling it builds the ApiError to throw; a route names the declaration itself under its
 * status in `responses`, where the OpenAPI document shows its `model`.
 */
export type ErrorDeclaration<S extends number = number, A extends unknown[] = never> = ((...args: A) => ApiError) & {
  readonly status: S;
  readonly model: ErrorModel;
};

/**
 * A response Polar documents as one model that is a union of several errors (CheckoutForbiddenError: NotOpenCheckout,
 * AlreadyActiveSubscriptionError, …): the route names the union, the services throw its members.
 */
export interface ErrorUnion<S extends number = number> {
  readonly status: S;
  /** The SDK's union model by name, or a zod union of till's own errors' models (a till route's). */
  readonly model: ErrorModel;
  readonly members: ReadonlyArray<ErrorDeclaration<S, never>>;
}

/** What a route's `responses` names under an error status. */
export type DocumentedError<S extends number = number> = ErrorDeclaration<S, never> | ErrorUnion<S>;

/** An error whose body `build` makes from the call's arguments (a 422's issues, a detail and an optional code). */
export function declareBody<const S extends number, A extends unknown[]>(
  status: S,
  model: ErrorModel,
  build: (...args: A) => Record<string, unknown>,
  make: (status: S, body: Record<string, unknown>) => ApiError = (st, body) => new ApiError(st, body),
): ErrorDeclaration<S, A> {
  return Object.assign((...args: A) => make(status, build(...args)), { status, model });
}

/**
 * An error of Polar's usual body `{ error, detail, code? }`: `error` is its name (the SDK's model of the same name,
 * where it has one), `detail` its one wording (made from the arguments where it names a row), `code` the machine code
 * the pages translate (shared/customer-errors.ts). `model`: the document's model, when it is not `error`.
 */
export function declareError<const S extends number, A extends unknown[] = []>(spec: {
  status: S;
  error: string;
  detail: string | ((...args: A) => string);
  code?: CustomerErrorCode;
  model?: ErrorModel;
}): ErrorDeclaration<S, A> {
  const { status, error, detail, code, model = error } = spec;
  return declareBody(status, model, (...args: A) => ({ error, detail: typeof detail === "string" ? detail : detail(...args), ...(code ? { code } : {}) }));
}

/** The union model `model` of errors that share one status, theirs. */
export const errorUnion = <S extends number>(model: ErrorModel, members: readonly [ErrorDeclaration<S, never>, ...Array<ErrorDeclaration<S, never>>]): ErrorUnion<S> => ({
  status: members[0].status,
  model,
  members,
});

const withCode = (code: string | undefined) => (code ? { code } : {});

export const notFound = declareBody(404, "ResourceNotFound", (detail: string = "Not found") => ({ error: "ResourceNotFound", detail }));
export const notPermitted = declareBody(403, "NotPermitted", (detail: string, code?: CustomerErrorCode) => ({ error: "NotPermitted", detail, ...withCode(code) }));
/** A caller who is not signed in (or not as whom the route needs). */
export const unauthorized = declareBody(401, "Unauthorized", (detail: string) => ({ error: "Unauthorized", detail }));
export const validationError = declareBody(422, "HTTPValidationError", (issues: ValidationIssue[]) => ({ detail: issues }));
/** A processor (Stripe) that could not be read or answered without what till needs. */
export const badGateway = declareBody(502, "BadGateway", (detail: string) => ({ error: "BadGateway", detail }));

/**
 * A 422 for input its schema refused (parseWith, ingest's slices), thrown before the request changed anything:
 * the error handler marks the request (`inputRefused`), so that its Idempotency-Key stays unused, as on Stripe.
 * Throw it only there; a refusal after a change, or one that depends on stored rows, is validationError's.
 */
export class SchemaRefusal extends ApiError {
  readonly refusesInput = true;
}
export const schemaRefusal = declareBody(422, "HTTPValidationError", (issues: ValidationIssue[]) => ({ detail: issues }), (status, body) => new SchemaRefusal(status, body));

/** One 422 issue at `loc` (e.g. ["body", "code"]). */
export const invalid = (loc: Array<string | number>, msg: string, type = "value_error", code?: CustomerErrorCode) =>
  validationError([{ loc, msg, type, ...(code ? { code } : {}) }]);
