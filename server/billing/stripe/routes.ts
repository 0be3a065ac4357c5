// /v1/stripe/connection (till's own, not Polar's): connect the organization's Stripe account, read its state,
// disconnect it. The keys go in once and never come back out (answers show a key's kind and last four).
import type { BillingDeps } from "../deps.js";
import { parseWith } from "../http.js";
import { ApiError, notFound, schemaRefusal, validationError, type ValidationIssue } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { connectStripe, disconnectStripe, StripeConnectInput, stripeStatus, type StripeDeps } from "./service.js";
import { documented, route, type V1App } from "../contract.js";
import { statusPolicy } from "../organizations/status.js";
import { z } from "zod";

/** The connection as answers show it: never a key, only its kind and last four (StripeStatusWire). */
const StripeConnection = z.looseObject({ connected: z.boolean(), test_processor: z.boolean().optional() });

/** Fields whose value an error must never echo. */
const SECRET_FIELDS = new Set(["secret_key", "webhook_secret"]);

function parseConnect(body: unknown): StripeConnectInput {
  try {
    return parseWith(StripeConnectInput, body ?? {}, "body");
  } catch (err) {
    if (!(err instanceof ApiError) || !Array.isArray(err.body.detail)) throw err;
    const issues = (err.body.detail as ValidationIssue[]).map(({ input, ...issue }) => (SECRET_FIELDS.has(String(issue.loc[1])) ? issue : { ...issue, input }));
    throw schemaRefusal(issues);
  }
}

export function stripeRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const policy = statusPolicy(config);
  const deps: StripeDeps = { db, secret, baseURL: config.baseURL, stripeApiUrl: config.payments.stripeApiUrl, testInLive: config.payments.testInLive };

  app.put("/stripe/connection", route({ scope: "organizations:write", operationId: "till:stripe:connect", body: documented(StripeConnectInput), responses: { 200: StripeConnection, 422: validationError } }), async (req) =>
    connectStripe(deps, scopeOf(req).organizationId, parseConnect(req.body), policy),
  );
  app.get("/stripe/connection", route({ scope: "organizations:read", operationId: "till:stripe:get_connection", responses: { 200: StripeConnection } }), async (req) => stripeStatus(deps, scopeOf(req).organizationId));
  app.delete("/stripe/connection", route({ scope: "organizations:write", operationId: "till:stripe:disconnect", responses: { 200: z.object({ endpoint_removed: z.boolean() }), 404: notFound } }), async (req) => disconnectStripe(deps, scopeOf(req).organizationId, policy));
}
