// /v1/discounts: create, list, get, update, delete (Polar wire).
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import { DiscountCreateInput, DiscountUpdateInput } from "./input.js";
import type { DiscountSort } from "./repository.js";
import * as service from "./service.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";


const ListQuery = z.object({
  organization_id: queryArray(z.string().refine(isUuid, { message: "Input should be a valid UUID" })).optional(),
  query: z.string().max(200).optional(),
  sorting: sortingQuery<DiscountSort>(["created_at", "name", "code", "redemptions_count", "ends_at"], [
    { key: "created_at", desc: true },
  ]),
  ...paginationQuery,
});

export function discountRoutes(app: V1App, { db }: BillingDeps): void {
  app.get("/discounts/", route({ scope: "discounts:read", operationId: "discounts:list", query: ListQuery, responses: { 200: "ListResourceDiscount", 422: validationError } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    // an organization_id filter that leaves out the caller's organization matches nothing
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const { items, total } = await service.listDiscounts(db, organizationId, { query: q.query }, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.post("/discounts/", route({ scope: "discounts:write", operationId: "discounts:create", body: DiscountCreateInput, responses: { 201: "Discount", 422: validationError } }), async (req, reply) => {
    const input = req.body;
    return reply.code(201).send(await service.createDiscount(db, scopeOf(req).organizationId, input));
  });

  app.get("/discounts/:id", route({ scope: "discounts:read", operationId: "discounts:get", responses: { 200: "Discount", 404: notFound, 422: validationError } }), async (req) =>
    service.getDiscount(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/discounts/:id", route({
    scope: "discounts:write", operationId: "discounts:update", body: DiscountUpdateInput,
    responses: { 200: "Discount", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateDiscount(db, scopeOf(req).organizationId, id, req.body);
  });

  app.delete("/discounts/:id", route({ scope: "discounts:write", operationId: "discounts:delete", responses: { 204: null, 404: notFound, 422: validationError } }), async (req, reply) => {
    await service.deleteDiscount(db, scopeOf(req).organizationId, pathId(req));
    return reply.code(204).send();
  });
}
