// /v1/stripe/connection (till's own, not Polar's): connect the organization's account at its payment processor
// (Stripe's: the path and shapes are Stripe's), read its state, disconnect it. The keys go in once and never come
// back out (answers show a key's kind and last four). What the body holds is the processor's (its connectInput).
import type { BillingDeps } from "../deps.js";
import { parseWith } from "../http.js";
import { ApiError, notFound, schemaRefusal, validationError, type ValidationIssue } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { serverProcessorAccounts } from "../../payments/index.js";
import type { ProcessorAccounts } from "../../payments/accounts.js";
import { connect, connectionStatus, disconnect, type ConnectionDeps } from "./service.js";
import { documented, route, type V1App } from "../contract.js";
import { statusPolicy } from "../organizations/status.js";
import { z } from "zod";

/** The connection as answers show it: never a key, only its kind and last four (StripeStatusWire). */
const StripeConnection = z.looseObject({ connected: z.boolean(), test_processor: z.boolean().optional() });

/** The body parsed with the processor's schema; an error echoes no secret field's value. */
function parseConnect(accounts: ProcessorAccounts, body: unknown): unknown {
  try {
    return parseWith(accounts.connectInput, body ?? {}, "body");
  } catch (err) {
    if (!(err instanceof ApiError) || !Array.isArray(err.body.detail)) throw err;
    const issues = (err.body.detail as ValidationIssue[]).map(({ input, ...issue }) => (accounts.secretFields.has(String(issue.loc[1])) ? issue : { ...issue, input }));
    throw schemaRefusal(issues);
  }
}

export function processorConnectionRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const policy = statusPolicy(config);
  const accounts = serverProcessorAccounts(config, secret);
  const deps: ConnectionDeps = { db, accounts, testInLive: config.payments.testInLive };

  app.put("/stripe/connection", route({
    scope: "organizations:write", operationId: "till:stripe:connect", body: documented(accounts.connectInput),
    responses: { 200: StripeConnection, 422: validationError },
  }), async (req) =>
    connect(deps, scopeOf(req).organizationId, parseConnect(accounts, req.body), policy),
  );
  app.get("/stripe/connection", route({
    scope: "organizations:read", operationId: "till:stripe:get_connection", responses: { 200: StripeConnection },
  }), async (req) => connectionStatus(deps, scopeOf(req).organizationId));
  app.delete("/stripe/connection", route({
    scope: "organizations:write", operationId: "till:stripe:disconnect",
    responses: { 200: z.object({ endpoint_removed: z.boolean() }), 404: notFound },
  }), async (req) => disconnect(deps, scopeOf(req).organizationId, policy));
}
