// /v1/webhooks: endpoints (create, list, get, update, delete, reset secret), the delivery log, redelivery.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { grants } from "../../../shared/scopes.js";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, parseBody, parseQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import * as service from "./service.js";
import type { WebhookEndpointWire } from "./wire.js";

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

export function webhookRoutes(app: FastifyInstance, { db, config }: BillingDeps): void {
  const allowPrivate = config.webhooks.allowPrivate;

  app.get("/webhooks/endpoints", { config: { scope: "webhooks:read" } }, async (req) => {
    const q = parseQuery(EndpointListQuery, req);
    const { organizationId } = scopeOf(req);
    // an organization_id filter that leaves out the caller's organization matches nothing
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const { items, total } = await service.listEndpoints(db, organizationId, q.page, q.limit);
    return page(items.map((e) => shown(req, e)), total, q.limit);
  });

  app.post("/webhooks/endpoints", { config: { scope: "webhooks:write" } }, async (req, reply) => {
    const input = parseBody(service.EndpointCreateInput, req);
    return reply.code(201).send(await service.createEndpoint(db, scopeOf(req).organizationId, input, allowPrivate));
  });

  app.get("/webhooks/endpoints/:id", { config: { scope: "webhooks:read" } }, async (req) =>
    shown(req, await service.getEndpoint(db, scopeOf(req).organizationId, pathId(req))),
  );

  app.patch("/webhooks/endpoints/:id", { config: { scope: "webhooks:write" } }, async (req) => {
    const id = pathId(req);
    const input = parseBody(service.EndpointUpdateInput, req);
    return service.updateEndpoint(db, scopeOf(req).organizationId, id, input, allowPrivate);
  });

  app.delete("/webhooks/endpoints/:id", { config: { scope: "webhooks:write" } }, async (req, reply) => {
    await service.deleteEndpoint(db, scopeOf(req).organizationId, pathId(req));
    return reply.code(204).send();
  });

  app.patch("/webhooks/endpoints/:id/secret", { config: { scope: "webhooks:write" } }, async (req) =>
    service.resetSecret(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.get("/webhooks/deliveries", { config: { scope: "webhooks:read" } }, async (req) => {
    const q = parseQuery(service.DeliveryListQuery, req);
    const { items, total } = await service.listDeliveries(db, scopeOf(req).organizationId, q);
    return page(items, total, q.limit);
  });

  app.post("/webhooks/events/:id/redeliver", { config: { scope: "webhooks:write" } }, async (req, reply) => {
    await service.redeliverEvent(db, scopeOf(req).organizationId, pathId(req));
    return reply.code(202).send({});
  });
}
