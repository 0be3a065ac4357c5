// The errors every billing domain answers with, in Polar's shapes: ApiError (status and body), 404
// ResourceNotFound, 403 NotPermitted, 422 {detail:[{loc,msg,type}]}. A leaf: it imports nothing of billing, so
// any module may throw them. A domain's own errors sit in its errors.ts (subscriptions/errors.ts, …).
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

export const notFound = (detail = "Not found") => new ApiError(404, { error: "ResourceNotFound", detail });
export const notPermitted = (detail: string, code?: CustomerErrorCode) => new ApiError(403, { error: "NotPermitted", detail, ...(code ? { code } : {}) });
export const validationError = (issues: ValidationIssue[]) => new ApiError(422, { detail: issues });

/**
 * A 422 for input its schema refused (parseWith, ingest's slices), thrown before the request changed anything:
 * the error handler marks the request (`inputRefused`), so that its Idempotency-Key stays unused, as on Stripe.
 * Throw it only there; a refusal after a change, or one that depends on stored rows, is validationError's.
 */
export class SchemaRefusal extends ApiError {
  readonly refusesInput = true;
}
export const schemaRefusal = (issues: ValidationIssue[]) => new SchemaRefusal(422, { detail: issues });

/** One 422 issue at `loc` (e.g. ["body", "code"]). */
export const invalid = (loc: Array<string | number>, msg: string, type = "value_error", code?: CustomerErrorCode) =>
  validationError([{ loc, msg, type, ...(code ? { code } : {}) }]);
