// /v1/metrics: metrics.get, metrics.export (CSV), metrics.limits and the saved dashboards (Polar wire).
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { pathId, queryArray, timezoneInput } from "../http.js";
import { scopeOf } from "../route-auth.js";
import * as service from "./service.js";
import { metricsCsv } from "./wire.js";
import { route, type V1App } from "../contract.js";
import { validationError } from "../errors.js";

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

function metricsQuery(req: FastifyRequest, q: z.output<typeof MetricsQuery>): service.MetricsQuery {
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

export function metricRoutes(app: V1App, { db }: BillingDeps): void {
  app.get("/metrics/", route({ scope: "metrics:read", operationId: "metrics:get", query: MetricsQuery, responses: { 200: "MetricsResponse", 422: validationError } }), async (req) =>
    service.getMetrics(db, scopeOf(req).organizationId, metricsQuery(req, req.query)),
  );

  app.get("/metrics/export", route({ scope: "metrics:read", operationId: "metrics:export", query: MetricsQuery, responses: { 200: "text/csv", 422: validationError } }), async (req, reply) => {
    const q = metricsQuery(req, req.query);
    const body = await service.getMetrics(db, scopeOf(req).organizationId, q);
    const selected = service.checkQuery(q);
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", 'attachment; filename="metrics.csv"')
      .send(metricsCsv(selected, body.periods));
  });

  app.get("/metrics/limits", route({ scope: "metrics:read", operationId: "metrics:limits", responses: { 200: "MetricsLimits" } }), async () => service.limits());

  app.get("/metrics/dashboards", route({
    scope: "metrics:read", operationId: "metrics:list_dashboards", query: DashboardsQuery,
    responses: { 200: "MetricDashboardSchema[]", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) return [];
    return service.listDashboards(db, organizationId);
  });

  app.post("/metrics/dashboards", route({
    scope: "metrics:write", operationId: "metrics:create_dashboard", body: service.DashboardCreateInput,
    responses: { 201: "MetricDashboardSchema", 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    return reply.status(201).send(await service.createDashboard(db, scopeOf(req).organizationId, input));
  });

  app.get("/metrics/dashboards/:id", route({ scope: "metrics:read", operationId: "metrics:get_dashboard", responses: { 200: "MetricDashboardSchema", 422: validationError } }), async (req) =>
    service.getDashboard(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/metrics/dashboards/:id", route({
    scope: "metrics:write", operationId: "metrics:update_dashboard", body: service.DashboardUpdateInput,
    responses: { 200: "MetricDashboardSchema", 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const input = req.body;
    return service.updateDashboard(db, scopeOf(req).organizationId, id, input);
  });

  app.delete("/metrics/dashboards/:id", route({ scope: "metrics:write", operationId: "metrics:delete_dashboard", responses: { 204: null, 422: validationError } }), async (req, reply) => {
    await service.deleteDashboard(db, scopeOf(req).organizationId, pathId(req));
    return reply.status(204).send();
  });
}
