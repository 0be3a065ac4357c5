// /v1/stripe/connection (till's own, not Polar's): connect the organization's Stripe account, read its state,
// disconnect it. The keys go in once and never come back out (answers show a key's kind and last four).
import type { FastifyInstance } from "fastify";
import type { BillingDeps } from "../deps.js";
import { parseWith } from "../http.js";
import { ApiError, type ValidationIssue } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { connectStripe, disconnectStripe, StripeConnectInput, stripeStatus, type StripeDeps } from "./service.js";

/** Fields whose value an error must never echo. */
const SECRET_FIELDS = new Set(["secret_key", "webhook_secret"]);

function parseConnect(body: unknown): StripeConnectInput {
  try {
    return parseWith(StripeConnectInput, body ?? {}, "body");
  } catch (err) {
    if (!(err instanceof ApiError) || !Array.isArray(err.body.detail)) throw err;
    const issues = (err.body.detail as ValidationIssue[]).map(({ input, ...issue }) => (SECRET_FIELDS.has(String(issue.loc[1])) ? issue : { ...issue, input }));
    throw new ApiError(err.status, { detail: issues });
  }
}

export function stripeRoutes(app: FastifyInstance, { db, config, secret }: BillingDeps): void {
  const deps: StripeDeps = { db, secret, baseURL: config.baseURL, stripeApiUrl: config.payments.stripeApiUrl };

  app.put("/stripe/connection", { config: { scope: "organizations:write" } }, async (req) =>
    connectStripe(deps, scopeOf(req).organizationId, parseConnect(req.body)),
  );
  app.get("/stripe/connection", { config: { scope: "organizations:read" } }, async (req) => stripeStatus(deps, scopeOf(req).organizationId));
  app.delete("/stripe/connection", { config: { scope: "organizations:write" } }, async (req) => disconnectStripe(deps, scopeOf(req).organizationId));
}
