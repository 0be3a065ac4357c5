// /v1/discounts: create, list, get, update, delete (Polar wire).
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, parseBody, parseQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import { DiscountCreateInput, DiscountUpdateInput } from "./input.js";
import type { DiscountSort } from "./repository.js";
import * as service from "./service.js";


const ListQuery = z.object({
  organization_id: queryArray(z.string().refine(isUuid, { message: "Input should be a valid UUID" })).optional(),
  query: z.string().max(200).optional(),
  sorting: sortingQuery<DiscountSort>(["created_at", "name", "code", "redemptions_count", "ends_at"], [
    { key: "created_at", desc: true },
  ]),
  ...paginationQuery,
});

export function discountRoutes(app: FastifyInstance, { db }: BillingDeps): void {
  app.get("/discounts/", { config: { scope: "discounts:read" } }, async (req) => {
    const q = parseQuery(ListQuery, req);
    const { organizationId } = scopeOf(req);
    // an organization_id filter that leaves out the caller's organization matches nothing
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const { items, total } = await service.listDiscounts(db, organizationId, { query: q.query }, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.post("/discounts/", { config: { scope: "discounts:write" } }, async (req, reply) => {
    const input = parseBody(DiscountCreateInput, req);
    return reply.code(201).send(await service.createDiscount(db, scopeOf(req).organizationId, input));
  });

  app.get("/discounts/:id", { config: { scope: "discounts:read" } }, async (req) =>
    service.getDiscount(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/discounts/:id", { config: { scope: "discounts:write" } }, async (req) => {
    const id = pathId(req);
    return service.updateDiscount(db, scopeOf(req).organizationId, id, parseBody(DiscountUpdateInput, req));
  });

  app.delete("/discounts/:id", { config: { scope: "discounts:write" } }, async (req, reply) => {
    await service.deleteDiscount(db, scopeOf(req).organizationId, pathId(req));
    return reply.code(204).send();
  });
}
