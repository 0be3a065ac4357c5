// POST /v1/subscriptions/{id}/renew — a till extension (Polar has no such route): renews the subscription
// now, as if its period had ended, exactly as the renewal schedule does at period end. Tests and
// `till trigger benefit_grant.cycled` use it to see a renewal's order and events without waiting a period.
import type { FastifyInstance } from "fastify";
import { createPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../index.js";
import { pathId, scopeOf } from "../http.js";
import { renewNow } from "./renewal.js";

export function renewalRoutes(app: FastifyInstance, { db, config }: BillingDeps): void {
  const deps = { processor: createPaymentProcessor(), baseURL: config.baseURL };
  app.post("/subscriptions/:id/renew", { config: { scope: "subscriptions:write" } }, async (req) =>
    renewNow(db, deps, scopeOf(req).organizationId, pathId(req)),
  );
}
