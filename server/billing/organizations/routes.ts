// /v1/organizations: list, get, update (Polar wire).
import { z } from "zod";
import type { FastifyRequest } from "fastify";
import type { BillingDeps } from "../index.js";
import type { FastifyInstance } from "fastify";
import { notFound, page, paginationQuery, parseBody, parseQuery, pathId, scopeOf } from "../http.js";
import * as service from "./service.js";

const ListQuery = z.object({ slug: z.string().optional(), ...paginationQuery });

export function organizationRoutes(app: FastifyInstance, { db }: BillingDeps): void {
  /** An organization id from the path that the caller may act on (else 404, never 403). */
  async function ownOrganization(req: FastifyRequest): Promise<string> {
    const id = pathId(req);
    const visible = await service.visibleOrganizationIds(db, scopeOf(req).caller);
    if (!visible.includes(id)) throw notFound("Organization not found");
    return id;
  }

  app.get("/organizations/", { config: { scope: "organizations:read", orgOptional: true } }, async (req) => {
    const q = parseQuery(ListQuery, req);
    const { items, total } = await service.listOrganizations(db, scopeOf(req).caller, { slug: q.slug }, q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.get("/organizations/:id", { config: { scope: "organizations:read", orgOptional: true } }, async (req) =>
    service.getOrganization(db, await ownOrganization(req)),
  );

  app.patch("/organizations/:id", { config: { scope: "organizations:write", orgScopeFromPath: true } }, async (req) => {
    const id = await ownOrganization(req);
    return service.updateOrganization(db, id, parseBody(service.OrganizationUpdateInput, req));
  });
}
