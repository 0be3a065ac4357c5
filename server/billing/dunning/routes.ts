// The customer's failed renewal orders in the portal (a customer session): the payment's status, and a retry
// now with a new card or a saved one (/v1/customer-portal/orders/{id}/payment-status, …/confirm-payment).
import type { FastifyRequest } from "fastify";
import { serverPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../deps.js";
import { pathId } from "../http.js";
import { portalAuth, portalOf } from "../customer-portal/routes.js";
import * as service from "./service.js";
import { MarkPaidInput, markOrderPaid } from "./mark-paid.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { manualRetryLimitExceeded, markPaidRefused, notEligibleForRetry, paymentInProgress } from "./errors.js";

export function dunningRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const deps = { db, processor: serverPaymentProcessor(config, secret), baseURL: config.baseURL };
  const portal = { caller: "customer_session" as const, preHandler: portalAuth(db) };
  const me = (req: FastifyRequest) => {
    const p = portalOf(req);
    return { organizationId: p.organizationId, customerId: p.customer.id };
  };
  // till's own: the seller records money received outside the processor (who and when); safe to repeat
  app.post("/orders/:id/mark-paid", route({
    scope: "orders:write", operationId: "till:orders:mark_paid", body: MarkPaidInput, emptyJsonBody: true,
    responses: { 200: "Order", 404: notFound, 409: markPaidRefused, 422: validationError },
  }), async (req) => {
    const { organizationId, caller } = scopeOf(req);
    const by = caller.kind === "session" && caller.user
      ? { kind: "user" as const, id: caller.user.id, name: caller.user.email }
      : { kind: "token" as const, id: caller.apiKeyId ?? "", name: caller.apiKey?.name ?? null };
    return markOrderPaid(deps, organizationId, pathId(req), by, req.body ?? {});
  });
  app.get("/customer-portal/orders/:id/payment-status", route({
    ...portal, operationId: "customer_portal:orders:get_payment_status",
    responses: { 200: "CustomerOrderPaymentStatus", 404: notFound, 422: validationError },
  }), async (req) => {
    const m = me(req);
    return service.paymentStatus(db, m.organizationId, m.customerId, pathId(req));
  });
  app.post("/customer-portal/orders/:id/confirm-payment", route({
    ...portal, operationId: "customer_portal:orders:confirm_retry_payment", body: service.ConfirmRetryInput,
    responses: { 200: "CustomerOrderPaymentConfirmation", 404: notFound, 409: paymentInProgress, 422: notEligibleForRetry, 429: manualRetryLimitExceeded },
  }), async (req) => {
    const m = me(req);
    const input = req.body;
    return service.confirmRetry(deps, m.organizationId, m.customerId, pathId(req), input);
  });
}
