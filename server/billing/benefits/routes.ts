// /v1/benefits (create, list, get, update, delete, grants) and /v1/benefit-grants (list), Polar wire.
import { z } from "zod";
import { BENEFIT_TYPES } from "../../../shared/kinds.js";
import type { BillingDeps } from "../deps.js";
import { checkDiscordBenefit, integrationWarning } from "../benefit-delivery/service.js";
import { isUuid, metadataQuery, page, paginationQuery, pathId, queryArray, queryBool } from "../http.js";
import { invalid, notFound, notPermitted, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import { BenefitCreateInput, BenefitUpdateInput } from "./properties.js";
import * as service from "./service.js";
import { route, type V1App } from "../contract.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const uuids = queryArray(uuid).optional();
const NEWEST_FIRST = [{ key: "created_at" as const, desc: true }];

// 0.49.0 knows slack_shared_channel; filtering by it is valid and finds nothing
const typeFilter = queryArray(z.enum([...BENEFIT_TYPES, "slack_shared_channel"])).optional();

const BenefitListQuery = z.object({
  organization_id: uuids,
  type: typeFilter,
  id: uuids,
  exclude_id: uuids,
  query: z.string().max(200).optional(),
  sorting: sortingQuery(["created_at", "description", "type", "user_order"], NEWEST_FIRST),
  metadata: metadataQuery.optional(),
  ...paginationQuery,
});

const GrantListQuery = z.object({
  organization_id: uuids,
  customer_id: uuids,
  external_customer_id: queryArray(z.string().max(200)).optional(),
  benefit_id: uuids,
  is_granted: queryBool.optional(),
  sorting: sortingQuery(["created_at", "granted_at", "revoked_at"], NEWEST_FIRST),
  ...paginationQuery,
});

const BenefitGrantsQuery = z.object({
  customer_id: uuids,
  member_id: uuids,
  is_granted: queryBool.optional(),
  ...paginationQuery,
});

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

/** An organization_id filter that leaves out the caller's organization matches nothing. */
const excludesCaller = (filter: string[] | undefined, organizationId: string) =>
  filter !== undefined && filter.length > 0 && !lower(filter)?.includes(organizationId);

/** A discord benefit's role must be one the connected bot can give (422 otherwise; see benefit-delivery). */
async function checkDiscordRole(deps: BillingDeps, organizationId: string, input: { type: string; properties?: unknown }): Promise<void> {
  if (input.type !== "discord" || !input.properties) return;
  const problem = await checkDiscordBenefit(deps.db, { secret: deps.secret, services: deps.config.benefits }, organizationId, input.properties);
  if (problem) throw invalid(["body", "properties", "role_id"], problem);
}

export function benefitRoutes(app: V1App, deps: BillingDeps): void {
  const { db } = deps;
  app.get("/benefits/", route({ scope: "benefits:read", operationId: "benefits:list", query: BenefitListQuery, responses: { 200: "ListResourceBenefit", 422: validationError } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (excludesCaller(q.organization_id, organizationId)) return page([], 0, q.limit);
    const filter = { types: q.type, ids: lower(q.id), excludeIds: lower(q.exclude_id), query: q.query, metadata: q.metadata };
    const { items, total } = await service.listBenefits(db, organizationId, filter, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.post("/benefits/", route({ scope: "benefits:write", operationId: "benefits:create", body: BenefitCreateInput, responses: { 201: "Benefit", 422: validationError } }), async (req, reply) => {
    const input = req.body;
    await checkDiscordRole(deps, scopeOf(req).organizationId, input);
    const created = await service.createBenefit(db, scopeOf(req).organizationId, input);
    // a till-only field (the SDKs drop it): the seller learns at once why its grants will wait
    const warning = await integrationWarning(db, scopeOf(req).organizationId, input.type);
    return reply.code(201).send(warning ? { ...created, warnings: [warning] } : created);
  });

  app.get("/benefits/:id", route({ scope: "benefits:read", operationId: "benefits:get", responses: { 200: "Benefit", 404: notFound, 422: validationError } }), async (req) =>
    service.getBenefit(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/benefits/:id", route({
    scope: "benefits:write", operationId: "benefits:update", body: BenefitUpdateInput,
    responses: { 200: "Benefit", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const input = req.body;
    await checkDiscordRole(deps, scopeOf(req).organizationId, input);
    return service.updateBenefit(db, scopeOf(req).organizationId, id, input);
  });

  app.delete("/benefits/:id", route({
    scope: "benefits:write", operationId: "benefits:delete",
    responses: { 204: null, 403: notPermitted, 404: notFound, 422: validationError },
  }), async (req, reply) => {
    await service.deleteBenefit(db, scopeOf(req).organizationId, pathId(req));
    return reply.code(204).send();
  });

  app.get("/benefits/:id/grants", route({
    scope: "benefits:read", operationId: "benefits:grants", query: BenefitGrantsQuery,
    responses: { 200: "ListResourceBenefitGrant", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const q = req.query;
    const { organizationId } = scopeOf(req);
    const filter = { customerIds: lower(q.customer_id), isGranted: q.is_granted, memberIds: lower(q.member_id) };
    const { items, total } = await service.listGrantsOfBenefit(db, organizationId, id, filter, q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.get("/benefit-grants/", route({
    scope: "benefits:read", operationId: "benefit-grants:list", query: GrantListQuery,
    responses: { 200: "ListResourceBenefitGrant", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (excludesCaller(q.organization_id, organizationId)) return page([], 0, q.limit);
    const filter = {
      customerIds: lower(q.customer_id),
      externalCustomerIds: q.external_customer_id,
      benefitIds: lower(q.benefit_id),
      isGranted: q.is_granted,
    };
    const { items, total } = await service.listGrants(db, organizationId, filter, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });
}
