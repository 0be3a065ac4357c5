// /v1/usage-alerts (till's own API; no Polar counterpart, so no SDK method): a seller's usage alerts on meters.
// Scopes are the meters' (an alert is part of a meter's configuration).
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { pathId } from "../http.js";
import { scopeOf } from "../route-auth.js";
import * as service from "./service.js";
import { route, type V1App } from "../contract.js";
import { USAGE_ALERT_KINDS, UsageAlertCreateInput } from "./wire.js";
import { notFound, validationError } from "../errors.js";

const ListQuery = z.object({ meter_id: z.guid({ message: "Input should be a valid UUID" }).optional() });

/** An alert as the wire shows it (UsageAlertWire). */
const UsageAlert = z.object({
  id: z.uuid(),
  created_at: z.iso.datetime(),
  modified_at: z.iso.datetime().nullable(),
  organization_id: z.uuid(),
  meter_id: z.uuid(),
  customer_id: z.uuid().nullable(),
  kind: z.enum(USAGE_ALERT_KINDS),
  threshold: z.number(),
  notify_customer: z.boolean(),
});
const UsageAlertList = z.object({ items: z.array(UsageAlert), pagination: z.object({ total_count: z.int(), max_page: z.int() }) });

export function usageAlertRoutes(app: V1App, { db }: BillingDeps): void {
  const read = { scope: "meters:read", responses: { 200: UsageAlert, 404: notFound, 422: validationError } } as const;
  app.get("/usage-alerts/", route({ ...read, operationId: "till:usage_alerts:list", query: ListQuery, responses: { 200: UsageAlertList, 422: validationError } }), async (req) => {
    const q = req.query;
    const items = await service.listAlerts(db, scopeOf(req).organizationId, q.meter_id);
    return { items, pagination: { total_count: items.length, max_page: 1 } };
  });

  const create = route({
    scope: "meters:write",
    operationId: "till:usage_alerts:create",
    body: UsageAlertCreateInput,
    responses: { 201: UsageAlert, 404: notFound, 422: validationError },
  });
  app.post("/usage-alerts/", create, async (req, reply) => {
    const input = req.body;
    return reply.status(201).send(await service.createAlert(db, scopeOf(req).organizationId, input));
  });

  app.get("/usage-alerts/:id", route({ ...read, operationId: "till:usage_alerts:get" }), async (req) =>
    service.getAlert(db, scopeOf(req).organizationId, pathId(req)),
  );

  const remove = route({ scope: "meters:write", operationId: "till:usage_alerts:delete", responses: { 204: null, 404: notFound, 422: validationError } });
  app.delete("/usage-alerts/:id", remove, async (req, reply) => {
    await service.deleteAlert(db, scopeOf(req).organizationId, pathId(req));
    return reply.status(204).send();
  });
}
