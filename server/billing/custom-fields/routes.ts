// /v1/custom-fields: list, create, get, update, delete (Polar wire).
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { page, paginationQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import * as service from "./service.js";
import { CUSTOM_FIELD_TYPES } from "./wire.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";

const ListQuery = z.object({
  organization_id: queryArray(z.guid({ message: "Input should be a valid UUID" })).optional(),
  query: z.string().optional(),
  type: queryArray(z.enum(CUSTOM_FIELD_TYPES)).optional(),
  sorting: sortingQuery(["created_at", "slug", "name", "type"], [{ key: "slug", desc: false }]),
  ...paginationQuery,
});

export function customFieldRoutes(app: V1App, { db }: BillingDeps): void {
  app.get("/custom-fields/", route({
    scope: "custom_fields:read", operationId: "custom-fields:list", query: ListQuery,
    responses: { 200: "ListResourceCustomField", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    // an organization_id filter that leaves out the caller's organization matches nothing
    if (q.organization_id && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) return page([], 0, q.limit);
    const { items, total } = await service.listCustomFields(
      db,
      organizationId,
      { query: q.query, types: q.type },
      q.sorting,
      q.page,
      q.limit,
    );
    return page(items, total, q.limit);
  });

  app.post("/custom-fields/", route({
    scope: "custom_fields:write", operationId: "custom-fields:create", body: service.CustomFieldCreateInput,
    responses: { 201: "CustomField", 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    return reply.status(201).send(await service.createCustomField(db, scopeOf(req).organizationId, input));
  });

  app.get("/custom-fields/:id", route({ scope: "custom_fields:read", operationId: "custom-fields:get", responses: { 200: "CustomField", 404: notFound, 422: validationError } }), async (req) =>
    service.getCustomField(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/custom-fields/:id", route({
    scope: "custom_fields:write", operationId: "custom-fields:update", body: service.CustomFieldUpdateInput,
    responses: { 200: "CustomField", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateCustomField(db, scopeOf(req).organizationId, id, req.body);
  });

  app.delete("/custom-fields/:id", route({ scope: "custom_fields:write", operationId: "custom-fields:delete", responses: { 204: null, 404: notFound, 422: validationError } }), async (req, reply) => {
    await service.deleteCustomField(db, scopeOf(req).organizationId, pathId(req));
    return reply.status(204).send();
  });
}
