// /v1/products: list, create, get, update, update benefits (Polar wire).
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { metadataQuery, page, paginationQuery, parseBody, parseQuery, pathId, queryArray, queryBool } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import * as service from "./service.js";
import { VISIBILITIES } from "./wire.js";

const uuid = z.guid({ message: "Input should be a valid UUID" });

const ListQuery = z.object({
  id: queryArray(uuid).optional(),
  organization_id: queryArray(uuid).optional(),
  query: z.string().optional(),
  is_archived: queryBool.optional(),
  is_recurring: queryBool.optional(),
  benefit_id: queryArray(uuid).optional(),
  visibility: queryArray(z.enum(VISIBILITIES)).optional(),
  metadata: metadataQuery.optional(),
  sorting: sortingQuery(["created_at", "name", "price_amount_type", "price_amount"], [{ key: "created_at", desc: true }]),
  ...paginationQuery,
});

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

export function productRoutes(app: FastifyInstance, { db, config }: BillingDeps): void {
  const baseURL = config.baseURL;

  app.get("/products/", { config: { scope: "products:read" } }, async (req) => {
    const q = parseQuery(ListQuery, req);
    const { organizationId } = scopeOf(req);
    // an organization_id filter that leaves out the caller's organization matches nothing
    if (q.organization_id && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) return page([], 0, q.limit);
    const filter = {
      ids: lower(q.id),
      query: q.query,
      isArchived: q.is_archived,
      isRecurring: q.is_recurring,
      benefitIds: lower(q.benefit_id),
      visibility: q.visibility,
      metadata: q.metadata,
    };
    const { items, total } = await service.listProducts(db, organizationId, filter, q.sorting, q.page, q.limit, baseURL);
    return page(items, total, q.limit);
  });

  app.post("/products/", { config: { scope: "products:write" } }, async (req, reply) => {
    const input = parseBody(service.ProductCreateInput, req);
    return reply.status(201).send(await service.createProduct(db, scopeOf(req).organizationId, input, baseURL));
  });

  app.get("/products/:id", { config: { scope: "products:read" } }, async (req) =>
    service.getProduct(db, scopeOf(req).organizationId, pathId(req), baseURL),
  );

  app.patch("/products/:id", { config: { scope: "products:write" } }, async (req) => {
    const id = pathId(req);
    return service.updateProduct(db, scopeOf(req).organizationId, id, parseBody(service.ProductUpdateInput, req), baseURL);
  });

  app.post("/products/:id/benefits", { config: { scope: "products:write" } }, async (req) => {
    const id = pathId(req);
    const { benefits } = parseBody(service.ProductBenefitsInput, req);
    return service.updateProductBenefits(db, scopeOf(req).organizationId, id, benefits, baseURL);
  });
}
