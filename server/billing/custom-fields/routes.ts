// /v1/custom-fields: list, create, get, update, delete (Polar wire).
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { page, paginationQuery, parseBody, parseQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import * as service from "./service.js";
import { CUSTOM_FIELD_TYPES } from "./wire.js";

const ListQuery = z.object({
  organization_id: queryArray(z.guid({ message: "Input should be a valid UUID" })).optional(),
  query: z.string().optional(),
  type: queryArray(z.enum(CUSTOM_FIELD_TYPES)).optional(),
  sorting: sortingQuery(["created_at", "slug", "name", "type"], [{ key: "slug", desc: false }]),
  ...paginationQuery,
});

export function customFieldRoutes(app: FastifyInstance, { db }: BillingDeps): void {
  app.get("/custom-fields/", { config: { scope: "custom_fields:read" } }, async (req) => {
    const q = parseQuery(ListQuery, req);
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

  app.post("/custom-fields/", { config: { scope: "custom_fields:write" } }, async (req, reply) => {
    const input = parseBody(service.CustomFieldCreateInput, req);
    return reply.status(201).send(await service.createCustomField(db, scopeOf(req).organizationId, input));
  });

  app.get("/custom-fields/:id", { config: { scope: "custom_fields:read" } }, async (req) =>
    service.getCustomField(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/custom-fields/:id", { config: { scope: "custom_fields:write" } }, async (req) => {
    const id = pathId(req);
    return service.updateCustomField(db, scopeOf(req).organizationId, id, parseBody(service.CustomFieldUpdateInput, req));
  });

  app.delete("/custom-fields/:id", { config: { scope: "custom_fields:write" } }, async (req, reply) => {
    await service.deleteCustomField(db, scopeOf(req).organizationId, pathId(req));
    return reply.status(204).send();
  });
}
