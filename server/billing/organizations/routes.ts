// /v1/organizations: list, get, update (Polar wire).
import { z } from "zod";
import type { FastifyRequest } from "fastify";
import type { BillingDeps } from "../deps.js";
import { page, paginationQuery, pathId } from "../http.js";
import { invalid, notFound, notPermitted, validationError } from "../errors.js";
import { apiKeyCannotCreateOrganization, cannotCreateOrganization } from "./errors.js";
import { scopeOf } from "../route-auth.js";
import * as service from "./service.js";
import { ORGANIZATION_STATUSES, statusPolicy, statusReport } from "./status.js";
import { route, type V1App } from "../contract.js";

/** The status report's shape, for the document (organizations/status.ts statusReport). */
const StatusReport = z.looseObject({
  organization_id: z.string(),
  status: z.enum(ORGANIZATION_STATUSES),
  lifecycle_status: z.enum(ORGANIZATION_STATUSES),
  live_payments: z.boolean(),
  steps: z.array(z.looseObject({ step: z.string(), done: z.boolean(), text: z.string(), command: z.string().nullable() })),
  next_step: z.looseObject({ step: z.string(), text: z.string() }).nullable(),
});

const ListQuery = z.object({ slug: z.string().optional(), ...paginationQuery });

/** Who calls (set by authenticate() for every non-public /v1 route, with or without an organization). */
function scopeOfCaller(req: FastifyRequest) {
  if (!req.caller) throw new Error("scopeOfCaller: route registered outside the /v1 plugin");
  return req.caller;
}

export function organizationRoutes(app: V1App, { db, config }: BillingDeps): void {
  const policy = statusPolicy(config);
  /** An organization id from the path that the caller may act on (else 404, never 403). */
  async function ownOrganization(req: FastifyRequest): Promise<string> {
    const id = pathId(req);
    const visible = await service.visibleOrganizationIds(db, scopeOf(req).caller);
    if (!visible.includes(id)) throw notFound("Organization not found");
    return id;
  }

  app.get("/organizations/", route({
    scope: "organizations:read", orgOptional: true, operationId: "organizations:list", query: ListQuery,
    responses: { 200: "ListResourceOrganization", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { items, total } = await service.listOrganizations(db, scopeOf(req).caller, { slug: q.slug }, q.page, q.limit, policy);
    return page(items, total, q.limit);
  });

  // organizations.create: a signed-in user's new organization (they own it), made by better-auth's organization
  // plugin (its hooks: the sandbox twin, the owner's membership) through the server's own /api/auth route with the
  // caller's bearer token; then the settings of the body. An organization's API key cannot create organizations.
  app.post("/organizations/", route({
    orgOptional: true, operationId: "organizations:create", body: service.OrganizationCreateInput,
    responses: { 201: "Organization", 422: validationError },
  }), async (req, reply) => {
    const caller = scopeOfCaller(req);
    if (caller.kind !== "session" || !caller.user) {
      throw apiKeyCannotCreateOrganization();
    }
    const input = req.body;
    const made = await req.server.inject({
      method: "POST",
      url: "/api/auth/organization/create",
      headers: { authorization: req.headers.authorization ?? "", "content-type": "application/json", origin: new URL(config.baseURL).origin },
      payload: { name: input.name, slug: input.slug, keepCurrentActiveOrganization: true },
    });
    const body = made.json<{ id?: unknown; message?: unknown }>();
    if (made.statusCode >= 400 || typeof body.id !== "string") {
      const message = typeof body.message === "string" ? body.message : "";
      if (/slug|exists/i.test(message)) throw invalid(["body", "slug"], "An organization with this slug already exists.");
      if (made.statusCode === 403) throw cannotCreateOrganization(message);
      throw invalid(["body"], message || "The organization could not be created.");
    }
    const settings: service.OrganizationUpdateInput = { ...input, name: undefined, slug: undefined };
    const created = Object.values(settings).some((v) => v !== undefined)
      ? await service.updateOrganization(db, body.id, settings, policy)
      : await service.getOrganization(db, body.id, policy);
    return reply.status(201).send(created);
  });

  app.get("/organizations/:id", route({
    scope: "organizations:read", orgOptional: true, operationId: "organizations:get",
    responses: { 200: "Organization", 404: notFound, 422: validationError },
  }), async (req) =>
    service.getOrganization(db, await ownOrganization(req), policy),
  );

  app.patch("/organizations/:id", route({
    scope: "organizations:write", orgScopeFromPath: true, operationId: "organizations:update",
    body: service.OrganizationUpdateInput,
    responses: { 200: "Organization", 403: notPermitted, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = await ownOrganization(req);
    return service.updateOrganization(db, id, req.body, policy);
  });

  app.get("/organizations/:id/status", route({
    scope: "organizations:read", orgOptional: true, operationId: "till:organizations:status",
    responses: { 200: StatusReport, 404: notFound, 422: validationError },
  }), async (req) => {
    const report = await statusReport(db, await ownOrganization(req), policy);
    if (!report) throw notFound("Organization not found");
    return report;
  });
}
