// The customer's failed renewal orders in the portal (a customer session): the payment's status, and a retry
// now with a new card or a saved one (/v1/customer-portal/orders/{id}/payment-status, …/confirm-payment).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { serverPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../deps.js";
import { parseBody, pathId } from "../http.js";
import { portalAuth, portalOf } from "../customer-portal/routes.js";
import * as service from "./service.js";

export function dunningRoutes(app: FastifyInstance, { db, config, secret }: BillingDeps): void {
  const deps = { db, processor: serverPaymentProcessor(config, secret), baseURL: config.baseURL };
  const portal = { config: { public: true }, preHandler: portalAuth(db) };
  const me = (req: FastifyRequest) => {
    const p = portalOf(req);
    return { organizationId: p.organizationId, customerId: p.customer.id };
  };
  app.get("/customer-portal/orders/:id/payment-status", portal, async (req) => {
    const m = me(req);
    return service.paymentStatus(db, m.organizationId, m.customerId, pathId(req));
  });
  app.post("/customer-portal/orders/:id/confirm-payment", portal, async (req) => {
    const m = me(req);
    const input = parseBody(service.ConfirmRetryInput, req);
    return service.confirmRetry(deps, m.organizationId, m.customerId, pathId(req), input);
  });
}
