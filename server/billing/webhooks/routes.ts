// /v1/webhooks: endpoints (create, list, get, update, delete, reset secret), the delivery log, redelivery.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { grants } from "../../../shared/scopes.js";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import * as service from "./service.js";
import type { WebhookEndpointWire } from "./wire.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";

const EndpointListQuery = z.object({
  organization_id: queryArray(z.string().refine(isUuid, { message: "Input should be a valid UUID" })).optional(),
  ...paginationQuery,
});

/**
 * The signing secret lets its holder forge webhooks to the seller's app: only callers that may manage endpoints
 * (webhooks:write) see it; read-only callers (e.g. members without that permission) get an empty string.
 */
function shown(req: FastifyRequest, endpoint: WebhookEndpointWire): WebhookEndpointWire {
  return grants(scopeOf(req).permissions, "webhooks:write") ? endpoint : { ...endpoint, secret: "" };
}

export function webhookRoutes(app: V1App, { db, config }: BillingDeps): void {
  const allowPrivate = config.webhooks.allowPrivate;

  app.get("/webhooks/endpoints", route({
    scope: "webhooks:read", operationId: "webhooks:list_webhook_endpoints", query: EndpointListQuery,
    responses: { 200: "ListResourceWebhookEndpoint", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    // an organization_id filter that leaves out the caller's organization matches nothing
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const { items, total } = await service.listEndpoints(db, organizationId, q.page, q.limit);
    return page(items.map((e) => shown(req, e)), total, q.limit);
  });

  app.post("/webhooks/endpoints", route({
    scope: "webhooks:write", operationId: "webhooks:create_webhook_endpoint", body: service.EndpointCreateInput,
    responses: { 201: "WebhookEndpoint", 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    return reply.code(201).send(await service.createEndpoint(db, scopeOf(req).organizationId, input, allowPrivate));
  });

  app.get("/webhooks/endpoints/:id", route({
    scope: "webhooks:read", operationId: "webhooks:get_webhook_endpoint",
    responses: { 200: "WebhookEndpoint", 404: notFound, 422: validationError },
  }), async (req) =>
    shown(req, await service.getEndpoint(db, scopeOf(req).organizationId, pathId(req))),
  );

  app.patch("/webhooks/endpoints/:id", route({
    scope: "webhooks:write", operationId: "webhooks:update_webhook_endpoint", body: service.EndpointUpdateInput,
    responses: { 200: "WebhookEndpoint", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const input = req.body;
    return service.updateEndpoint(db, scopeOf(req).organizationId, id, input, allowPrivate);
  });

  app.delete("/webhooks/endpoints/:id", route({
    scope: "webhooks:write", operationId: "webhooks:delete_webhook_endpoint",
    responses: { 204: null, 404: notFound, 422: validationError },
  }), async (req, reply) => {
    await service.deleteEndpoint(db, scopeOf(req).organizationId, pathId(req));
    return reply.code(204).send();
  });

  app.patch("/webhooks/endpoints/:id/secret", route({
    scope: "webhooks:write", operationId: "webhooks:reset_webhook_endpoint_secret",
    responses: { 200: "WebhookEndpoint", 404: notFound, 422: validationError },
  }), async (req) =>
    service.resetSecret(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.get("/webhooks/deliveries", route({
    scope: "webhooks:read", operationId: "webhooks:list_webhook_deliveries", query: service.DeliveryListQuery,
    responses: { 200: "ListResourceWebhookDelivery", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { items, total } = await service.listDeliveries(db, scopeOf(req).organizationId, q);
    return page(items, total, q.limit);
  });

  app.post("/webhooks/events/:id/redeliver", route({
    scope: "webhooks:write", operationId: "webhooks:redeliver_webhook_event",
    responses: { 202: null, 404: notFound, 422: validationError },
  }), async (req, reply) => {
    await service.redeliverEvent(db, scopeOf(req).organizationId, pathId(req));
    return reply.code(202).send({});
  });
}
