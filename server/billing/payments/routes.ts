// /v1/payments (every charge attempt: the seller's orders:read — till has no separate payments scope),
// /v1/customers/{id}/payment-methods (and by external id; customers:read), and the customer's own payment
// methods in the portal (/v1/customer-portal/customers/me/payment-methods, a customer session): list, add
// with a processor token, confirm, make default (till's extension), delete; plus the test processor's card
// tokenizer for the portal page.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { serverPaymentProcessor } from "../../payments/index.js";
import { processorFor } from "../../payments/processor.js";
import { paymentPurpose, tokenizeTestCard } from "../../payments/test-processor.js";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, parseWith, pathId, queryArray } from "../http.js";
import { invalid, notFound, unauthorized, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import { portalAuth, portalOf } from "../customer-portal/routes.js";
import * as methods from "./methods.js";
import * as service from "./service.js";
import { route, type V1App } from "../contract.js";
import { paymentMethodInUse, paymentMethodSetupFailed } from "./errors.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

const PaymentsQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  checkout_id: queryArray(uuid).optional(),
  order_id: queryArray(uuid).optional(),
  customer_id: queryArray(uuid).optional(),
  customer_email: z.string().max(320).optional(),
  status: queryArray(z.enum(["pending", "succeeded", "failed"])).optional(),
  method: queryArray(z.string().max(64)).optional(),
  sorting: sortingQuery(["created_at", "status", "amount", "method"], [{ key: "created_at", desc: true }]),
  ...paginationQuery,
});
const MethodsQuery = z.object(paginationQuery);
const ExternalIdPath = z.object({ external_id: z.string().min(1).max(256) });
const TestCardInput = z.object({
  number: z.string().min(1).max(32),
  exp_month: z.int().min(1).max(12),
  exp_year: z.int().min(0).max(9999),
  cvc: z.string().regex(/^\d{3,4}$/, "Your card's security code is invalid."),
});
/** How the portal page takes a card for this organization (till's own route): Stripe's Payment Element with the
 *  organization's publishable key, or the built-in test processor's card form. */
const PortalProcessor = z.object({ processor: z.enum(["stripe", "test"]), publishable_key: z.string().nullable() });
/** The test tokenizer's answer (till's own route, for the portal page). */
const TestCardToken = z.object({
  confirmation_token_id: z.string(),
  card: z.object({ brand: z.string(), last4: z.string(), exp_month: z.int(), exp_year: z.int() }),
});

export function paymentRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const deps: methods.PaymentsDeps = { db, processor: serverPaymentProcessor(config, secret) };

  app.get("/payments/", route({ scope: "orders:read", operationId: "payments:list", query: PaymentsQuery, responses: { 200: "ListResourcePayment", 422: validationError } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    // another organization's id filters everything out, as Polar's organization_id filter does
    if (q.organization_id && !lower(q.organization_id)?.includes(organizationId)) return page([], 0, q.limit);
    const filter = {
      checkoutIds: lower(q.checkout_id),
      orderIds: lower(q.order_id),
      customerIds: lower(q.customer_id),
      customerEmail: q.customer_email,
      statuses: q.status,
      methods: q.method,
    };
    const { items, total } = await service.listPayments(db, organizationId, filter, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });
  app.get("/payments/:id", route({
    scope: "orders:read", operationId: "payments:get",
    responses: { 200: "Payment", 404: notFound, 422: validationError },
  }), async (req) => service.getPayment(db, scopeOf(req).organizationId, pathId(req)));

  const methodsOf = async (req: FastifyRequest, q: z.output<typeof MethodsQuery>, ref: { id: string } | { externalId: string }) => {
    const { items, total } = await methods.listMethodsOf(deps, scopeOf(req).organizationId, ref, q.page, q.limit);
    return page(items, total, q.limit);
  };
  app.get("/customers/:id/payment-methods", route({
    scope: "customers:read", operationId: "till:customers:list_payment_methods", query: MethodsQuery,
    responses: { 200: "ListResourceCustomerPaymentMethod", 404: notFound, 422: validationError },
  }), async (req) => methodsOf(req, req.query, { id: pathId(req) }));
  app.get("/customers/external/:external_id/payment-methods", route({
    scope: "customers:read", operationId: "till:customers:list_payment_methods_external", query: MethodsQuery,
    responses: { 200: "ListResourceCustomerPaymentMethod", 404: notFound, 422: validationError },
  }), async (req) =>
    methodsOf(req, req.query, { externalId: parseWith(ExternalIdPath, req.params, "path").external_id }),
  );

  // the customer's own, with a customer session
  const portal = { caller: "customer_session" as const, preHandler: portalAuth(db) };
  const me = (req: FastifyRequest) => {
    const p = portalOf(req);
    return { organizationId: p.organizationId, customerId: p.customer.id };
  };
  const base = "/customer-portal/customers/me/payment-methods";
  app.get(base, route({
    ...portal, operationId: "customer_portal:customers:list_payment_methods", query: MethodsQuery,
    responses: { 200: "ListResourceCustomerPaymentMethod", 401: unauthorized, 422: validationError },
  }), async (req) => {
    const q = req.query;
    const m = me(req);
    const { items, total } = await methods.listCustomerMethods(deps, m.organizationId, m.customerId, q.page, q.limit);
    return page(items, total, q.limit);
  });
  app.post(base, route({
    ...portal, operationId: "customer_portal:customers:add_payment_method", body: methods.PaymentMethodCreateInput,
    responses: { 201: "CustomerPaymentMethodCreateResponse", 401: unauthorized, 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    const m = me(req);
    reply.status(201);
    return methods.addMethod(deps, m.organizationId, m.customerId, input.confirmation_token_id, input.set_default);
  });
  // Stripe confirms a setup that asked for an action (3-D Secure); the test processor never asks, so the
  // token is saved as it is here (a refused one: 422 on setup_intent_id, the error both SDKs model here)
  app.post(`${base}/confirm`, route({
    ...portal, operationId: "customer_portal:customers:confirm_payment_method", body: methods.PaymentMethodConfirmInput,
    responses: { 201: "CustomerPaymentMethodCreateResponse", 400: paymentMethodSetupFailed, 401: unauthorized, 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    const m = me(req);
    reply.status(201);
    return methods.addMethod(deps, m.organizationId, m.customerId, input.setup_intent_id, input.set_default, "confirm");
  });
  app.post(`${base}/:id/default`, route({
    ...portal, operationId: "till:customer_portal:customers:set_default_payment_method",
    responses: { 200: "CustomerPaymentMethod", 401: unauthorized, 404: notFound, 422: validationError },
  }), async (req) => {
    const m = me(req);
    return methods.makeDefault(db, m.organizationId, m.customerId, pathId(req), deps.processor);
  });
  app.delete(`${base}/:id`, route({
    ...portal, operationId: "customer_portal:customers:delete_payment_method",
    responses: { 204: null, 400: paymentMethodInUse, 401: unauthorized, 404: notFound, 422: validationError },
  }), async (req, reply) => {
    const m = me(req);
    await methods.deleteMethod(deps, m.organizationId, m.customerId, pathId(req));
    return reply.status(204).send();
  });
  app.get(`${base}/processor`, route({ ...portal, operationId: "till:customer_portal:customers:payment_processor", responses: { 200: PortalProcessor, 401: unauthorized } }), async (req) => {
    const m = me(req);
    const processor = await processorFor(deps.processor, db, m.organizationId);
    if (processor.id === "test") return { processor: "test" as const, publishable_key: null };
    // (the checkout's metadata of a Stripe account: its publishable key, never the secret one)
    const metadata = processor.checkoutMetadata({ clientSecret: "", baseURL: config.baseURL });
    return { processor: "stripe" as const, publishable_key: metadata.publishable_key ?? null };
  });
  /** The test processor's tokenizer for the portal page: the card goes here, the token is added or paid with. */
  app.post(`${base}/test-card`, route({
    ...portal, operationId: "till:customer_portal:customers:test_card", body: TestCardInput,
    responses: { 200: TestCardToken, 401: unauthorized, 422: validationError },
  }), async (req) => {
    const m = me(req);
    if (deps.processor.id !== "test") throw invalid(["body"], "The server does not use the test payment processor.");
    const card = req.body;
    const result = tokenizeTestCard(card, paymentPurpose({ customer_id: m.customerId }));
    if (!result.ok) throw invalid(["body", result.field], result.message, "card_error", result.code);
    return { confirmation_token_id: result.token, card: { brand: result.brand, last4: result.last4, exp_month: card.exp_month, exp_year: card.exp_year } };
  });
}
