// /v1/usage-alerts (till's own API; no Polar counterpart, so no SDK method): a seller's usage alerts on meters.
// Scopes are the meters' (an alert is part of a meter's configuration).
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../../deps.js";
import { parseBody, parseQuery, pathId } from "../../http.js";
import { scopeOf } from "../../route-auth.js";
import * as service from "./service.js";

const ListQuery = z.object({ meter_id: z.guid({ message: "Input should be a valid UUID" }).optional() });

export function usageAlertRoutes(app: FastifyInstance, { db }: BillingDeps): void {
  app.get("/usage-alerts/", { config: { scope: "meters:read" } }, async (req) => {
    const q = parseQuery(ListQuery, req);
    const items = await service.listAlerts(db, scopeOf(req).organizationId, q.meter_id);
    return { items, pagination: { total_count: items.length, max_page: 1 } };
  });

  app.post("/usage-alerts/", { config: { scope: "meters:write" } }, async (req, reply) => {
    const input = parseBody(service.UsageAlertCreateInput, req);
    return reply.status(201).send(await service.createAlert(db, scopeOf(req).organizationId, input));
  });

  app.get("/usage-alerts/:id", { config: { scope: "meters:read" } }, async (req) =>
    service.getAlert(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.delete("/usage-alerts/:id", { config: { scope: "meters:write" } }, async (req, reply) => {
    await service.deleteAlert(db, scopeOf(req).organizationId, pathId(req));
    return reply.status(204).send();
  });
}
