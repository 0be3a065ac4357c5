// /v1/products: list, create, get, update, update benefits (Polar wire).
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { metadataQuery, page, paginationQuery, pathId, queryArray, queryBool } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import * as service from "./service.js";
import * as input from "./input.js";
import * as writes from "./writes.js";
import { INTERVALS, VISIBILITIES } from "./wire.js";
import { PRICE_KINDS } from "../../../shared/kinds.js";
import { route, type V1App } from "../contract.js";
import { notFound, notPermitted, validationError } from "../errors.js";

const uuid = z.guid({ message: "Input should be a valid UUID" });

const ListQuery = z.object({
  id: queryArray(uuid).optional(),
  organization_id: queryArray(uuid).optional(),
  query: z.string().optional(),
  is_archived: queryBool.optional(),
  is_recurring: queryBool.optional(),
  benefit_id: queryArray(uuid).optional(),
  visibility: queryArray(z.enum(VISIBILITIES)).optional(),
  // till's own (the seller app's pricing filter): billed on one of these intervals; with an active price of one of
  // these kinds (metered, per seat…)
  recurring_interval: queryArray(z.enum(INTERVALS)).optional(),
  price_amount_type: queryArray(z.enum(PRICE_KINDS)).optional(),
  metadata: metadataQuery.optional(),
  sorting: sortingQuery(["created_at", "name", "price_amount_type", "price_amount"], [{ key: "created_at", desc: true }]),
  ...paginationQuery,
});

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

export function productRoutes(app: V1App, { db, config }: BillingDeps): void {
  const baseURL = config.baseURL;

  app.get("/products/", route({ scope: "products:read", operationId: "products:list", query: ListQuery, responses: { 200: "ListResourceProduct", 422: validationError } }), async (req) => {
    const q = req.query;
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
      recurringIntervals: q.recurring_interval,
      priceKinds: q.price_amount_type,
      metadata: q.metadata,
    };
    const { items, total } = await service.listProducts(db, organizationId, filter, q.sorting, q.page, q.limit, baseURL);
    return page(items, total, q.limit);
  });

  app.post("/products/", route({
    scope: "products:write", operationId: "products:create", body: input.ProductCreateInput,
    responses: { 201: "Product", 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    return reply.status(201).send(await writes.createProduct(db, scopeOf(req).organizationId, input, baseURL));
  });

  app.get("/products/:id", route({ scope: "products:read", operationId: "products:get", responses: { 200: "Product", 404: notFound, 422: validationError } }), async (req) =>
    service.getProduct(db, scopeOf(req).organizationId, pathId(req), baseURL),
  );

  app.patch("/products/:id", route({
    scope: "products:write", operationId: "products:update", body: input.ProductUpdateInput,
    responses: { 200: "Product", 403: notPermitted, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return writes.updateProduct(db, scopeOf(req).organizationId, id, req.body, baseURL);
  });

  app.post("/products/:id/benefits", route({
    scope: "products:write", operationId: "products:update_benefits", body: input.ProductBenefitsInput,
    responses: { 200: "Product", 403: notPermitted, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const { benefits } = req.body;
    return writes.updateProductBenefits(db, scopeOf(req).organizationId, id, benefits, baseURL);
  });
}
