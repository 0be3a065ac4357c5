// /v1/meters: list, create, get, update, quantities (Polar wire).
import { z } from "zod";
import { AGGREGATION_FUNCTIONS } from "../../../shared/meter-filter.js";
import type { BillingDeps } from "../deps.js";
import {
  datetimeInput,
  metadataQuery,
  page,
  paginationQuery,
  pathId,
  queryArray,
  queryBool,
  timezoneInput,
} from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import * as service from "./service.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";

const uuid = z.uuid({ message: "Input should be a valid UUID" });

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  query: z.string().max(1000).optional(),
  is_archived: queryBool.optional(),
  metadata: metadataQuery.optional(),
  sorting: sortingQuery(["created_at", "name"], [{ key: "name", desc: false }]),
  ...paginationQuery,
});


const QuantitiesQuery = z.object({
  start_timestamp: datetimeInput,
  end_timestamp: datetimeInput,
  interval: z.enum(["hour", "day", "week", "month", "year"]),
  timezone: timezoneInput.default("UTC"),
  customer_id: queryArray(uuid).optional(),
  external_customer_id: queryArray(z.string().min(1).max(256)).optional(),
  customer_aggregation_function: z.enum(AGGREGATION_FUNCTIONS).optional(),
  metadata: metadataQuery.optional(),
});

export function meterRoutes(app: V1App, { db }: BillingDeps): void {
  app.get("/meters/", route({ scope: "meters:read", operationId: "meters:list", query: ListQuery, responses: { 200: "ListResourceMeter", 422: validationError } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id && !q.organization_id.map((id) => id.toLowerCase()).includes(organizationId)) {
      return page([], 0, q.limit);
    }
    const filter = { query: q.query, isArchived: q.is_archived, metadata: q.metadata };
    const { items, total } = await service.listMeters(db, organizationId, filter, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.post("/meters/", route({ scope: "meters:write", operationId: "meters:create", body: service.MeterCreateInput, responses: { 201: "Meter", 422: validationError } }), async (req, reply) => {
    const input = req.body;
    return reply.status(201).send(await service.createMeter(db, scopeOf(req).organizationId, input));
  });

  app.get("/meters/:id", route({ scope: "meters:read", operationId: "meters:get", responses: { 200: "Meter", 404: notFound, 422: validationError } }), async (req) =>
    service.getMeter(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/meters/:id", route({
    scope: "meters:write", operationId: "meters:update", body: service.MeterUpdateInput,
    responses: { 200: "Meter", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const input = req.body;
    return service.updateMeter(db, scopeOf(req).organizationId, id, input);
  });

  app.get("/meters/:id/quantities", route({
    scope: "meters:read", operationId: "meters:quantities", query: QuantitiesQuery,
    responses: { 200: "MeterQuantities", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const q = req.query;
    return service.meterQuantities(db, scopeOf(req).organizationId, id, {
      start: q.start_timestamp,
      end: q.end_timestamp,
      interval: q.interval,
      timezone: q.timezone,
      customerIds: q.customer_id,
      externalCustomerIds: q.external_customer_id,
      metadata: q.metadata,
      customerAggregation: q.customer_aggregation_function,
    });
  });
}
