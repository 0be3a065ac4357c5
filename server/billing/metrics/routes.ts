// /v1/metrics: metrics.get, metrics.export (CSV), metrics.limits and the saved dashboards (Polar wire).
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { parseBody, parseQuery, pathId, queryArray, timezoneInput } from "../http.js";
import { scopeOf } from "../route-auth.js";
import * as service from "./service.js";
import { metricsCsv, METRICS } from "./wire.js";

const uuid = z.uuid({ message: "Input should be a valid UUID" });
const date = z.iso.date({ message: "Input should be a valid date in the format YYYY-MM-DD" });


const MetricsQuery = z.object({
  start_date: date,
  end_date: date,
  timezone: timezoneInput.default("UTC"),
  interval: z.enum(service.UNITS),
  organization_id: queryArray(uuid).optional(),
  product_id: queryArray(uuid).optional(),
  billing_type: queryArray(z.enum(["one_time", "recurring"])).optional(),
  customer_id: queryArray(uuid).optional(),
  metrics: queryArray(z.string().max(100)).optional(),
});

const DashboardsQuery = z.object({ organization_id: queryArray(uuid).optional() });

function metricsQuery(req: Parameters<typeof parseQuery>[1]): service.MetricsQuery {
  const q = parseQuery(MetricsQuery, req);
  const { organizationId } = scopeOf(req);
  const lower = (ids?: string[]) => ids?.map((id) => id.toLowerCase());
  return {
    startDate: q.start_date,
    endDate: q.end_date,
    interval: q.interval,
    timezone: q.timezone,
    productIds: lower(q.product_id),
    customerIds: lower(q.customer_id),
    billingTypes: q.billing_type,
    // an organization_id filter that leaves out the caller's organization matches nothing
    empty: q.organization_id !== undefined && !q.organization_id.some((id) => id.toLowerCase() === organizationId),
    metrics: q.metrics,
  };
}

export function metricRoutes(app: FastifyInstance, { db }: BillingDeps): void {
  app.get("/metrics/", { config: { scope: "metrics:read" } }, async (req) =>
    service.getMetrics(db, scopeOf(req).organizationId, metricsQuery(req)),
  );

  app.get("/metrics/export", { config: { scope: "metrics:read" } }, async (req, reply) => {
    const q = metricsQuery(req);
    const body = await service.getMetrics(db, scopeOf(req).organizationId, q);
    const selected = q.metrics ? METRICS.filter((d) => q.metrics?.includes(d.slug)) : METRICS;
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", 'attachment; filename="metrics.csv"')
      .send(metricsCsv(selected, body.periods));
  });

  app.get("/metrics/limits", { config: { scope: "metrics:read" } }, async () => service.limits());

  app.get("/metrics/dashboards", { config: { scope: "metrics:read" } }, async (req) => {
    const q = parseQuery(DashboardsQuery, req);
    const { organizationId } = scopeOf(req);
    if (q.organization_id && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) return [];
    return service.listDashboards(db, organizationId);
  });

  app.post("/metrics/dashboards", { config: { scope: "metrics:write" } }, async (req, reply) => {
    const input = parseBody(service.DashboardCreateInput, req);
    return reply.status(201).send(await service.createDashboard(db, scopeOf(req).organizationId, input));
  });

  app.get("/metrics/dashboards/:id", { config: { scope: "metrics:read" } }, async (req) =>
    service.getDashboard(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/metrics/dashboards/:id", { config: { scope: "metrics:write" } }, async (req) => {
    const id = pathId(req);
    const input = parseBody(service.DashboardUpdateInput, req);
    return service.updateDashboard(db, scopeOf(req).organizationId, id, input);
  });

  app.delete("/metrics/dashboards/:id", { config: { scope: "metrics:write" } }, async (req, reply) => {
    await service.deleteDashboard(db, scopeOf(req).organizationId, pathId(req));
    return reply.status(204).send();
  });
}
