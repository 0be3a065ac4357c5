// POST /v1/subscriptions/{id}/renew — a till extension (Polar has no such route), idempotent per period:
// - `{"current_period_start": …}` (the period the caller saw) renews that period now, as if it had ended, exactly
//   as the renewal schedule does at period end; a repeat finds it renewed and bills nothing. Tests and
//   `till trigger benefit_grant.cycled` use it to see a renewal's order and events without waiting a period.
// - a bare call (no period) renews only a period whose end has been reached, as the schedule's next run would;
//   so a bare call sent twice renews (bills) once.
import { z } from "zod";
import { serverPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../deps.js";
import { datetimeInput, pathId } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { renewNow } from "./renewal.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";

const RenewInput = z.object({ current_period_start: datetimeInput.nullish() });

export function renewalRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const deps = { processor: serverPaymentProcessor(config, secret), baseURL: config.baseURL };
  app.post("/subscriptions/:id/renew", route({
    scope: "subscriptions:write", operationId: "till:subscriptions:renew", body: RenewInput,
    responses: { 200: "Subscription", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const input = req.body;
    const periodStart = input.current_period_start ? new Date(input.current_period_start) : undefined;
    return renewNow(db, deps, scopeOf(req).organizationId, id, periodStart);
  });
}
