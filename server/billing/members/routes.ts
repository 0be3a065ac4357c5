// Members of team customers. The seller (customers:read/write): /v1/members/ (SDK 0.47.1's members.*, and
// members.list of both), /v1/customers/{id}/members and /v1/customers/external/{external_id}/members (0.49.0's
// customers.members.*). The team itself, with a customer session: /v1/customer-portal/members (both SDKs'
// customerPortal.members.*). Polar routes the nested and portal paths without a trailing slash; the router
// serves both forms.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, parseWith, pathId } from "../http.js";
import { invalid, notFound, notPermitted, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import { portalAuth, portalOf } from "../customer-portal/routes.js";
import type { CustomerRef } from "../customers/service.js";
import { revokeSeatsOfMember } from "../customer-seats/service.js";
import * as service from "./service.js";
import { MEMBER_ROLES } from "./wire.js";
import { route, type V1App } from "../contract.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const externalText = z.string().min(1).max(256);

const ListQuery = z.object({
  customer_id: uuid.optional(),
  external_customer_id: externalText.optional(),
  role: z.enum(MEMBER_ROLES).optional(),
  sorting: sortingQuery(["created_at"], [{ key: "created_at", desc: false }]),
  ...paginationQuery,
});
const CustomerListQuery = z.object({ role: z.enum(MEMBER_ROLES).optional(), ...paginationQuery });
/** /v1/members/external/{external_id}: the member's customer, by one of its ids. */
const ExternalMemberQuery = z.object({ customer_id: uuid.optional(), external_customer_id: externalText.optional() });
const PortalListQuery = z.object(paginationQuery);

const param = (req: FastifyRequest, name: string) => parseWith(z.object({ [name]: externalText }), req.params, "path")[name] as string;

function customerOfQuery(q: z.output<typeof ExternalMemberQuery>): CustomerRef {
  if ((q.customer_id === undefined) === (q.external_customer_id === undefined)) {
    throw invalid(["query", "customer_id"], "Give exactly one of customer_id or external_customer_id", "missing");
  }
  return q.customer_id ? { id: q.customer_id.toLowerCase() } : { externalId: q.external_customer_id ?? "" };
}

const errors = { 404: notFound, 422: validationError } as const;

export function memberRoutes(app: V1App, { db }: BillingDeps): void {
  const read = { scope: "customers:read" as const };
  const write = { scope: "customers:write" as const };
  const org = (req: FastifyRequest) => scopeOf(req).organizationId;

  app.get("/members/", route({ ...read, operationId: "members:list_members", query: ListQuery, responses: { 200: "ListResourceMember", 422: validationError } }), async (req) => {
    const q = req.query;
    const filter = { customerId: q.customer_id?.toLowerCase(), externalCustomerId: q.external_customer_id, role: q.role };
    const { items, total } = await service.listMembers(db, org(req), filter, q.sorting[0]?.desc ?? false, q.page, q.limit);
    return page(items, total, q.limit);
  });
  app.post("/members/", route({ ...write, operationId: "members:create_member", body: service.MemberCreateInput, responses: { 201: "Member", 403: notPermitted, ...errors } }), async (req, reply) => {
    const { customer_id, ...input } = req.body;
    return reply.status(201).send(await service.createMember(db, org(req), { id: customer_id.toLowerCase() }, input));
  });

  // one member by id, by the seller's id (with its customer in the query), and under a customer (0.49.0)
  const refs: Array<{ path: string; by: string; ref: (req: FastifyRequest) => service.MemberRef; query?: typeof ExternalMemberQuery }> = [
    { path: "/members/:id", by: "_member", ref: (req) => ({ id: pathId(req) }) },
    {
      path: "/members/external/:external_id",
      by: "_member_by_external_id",
      query: ExternalMemberQuery,
      ref: (req) => ({ customer: customerOfQuery(req.query as z.output<typeof ExternalMemberQuery>), externalId: param(req, "external_id") }),
    },
    { path: "/customers/:id/members/:member_id", by: "", ref: (req) => ({ customer: { id: pathId(req) }, id: pathId(req, "member_id") }) },
    {
      path: "/customers/external/:external_id/members/:member_external_id",
      by: "_external",
      ref: (req) => ({ customer: { externalId: param(req, "external_id") }, externalId: param(req, "member_external_id") }),
    },
  ];
  for (const { path, by, ref, query } of refs) {
    const nested = path.startsWith("/customers/");
    const op = (verb: string) => (nested ? `customers:members:${verb}${by}` : `members:${verb}${by}`);
    app.get(path, route({ ...read, operationId: op("get"), ...(query ? { query } : {}), responses: { 200: "Member", ...errors } }), async (req) => service.getMember(db, org(req), ref(req)));
    app.patch(path, route({ ...write, operationId: op("update"), ...(query ? { query } : {}), body: service.MemberUpdateInput, responses: { 200: "Member", ...errors } }), async (req) =>
      service.updateMember(db, org(req), ref(req), req.body),
    );
    app.delete(path, route({ ...write, operationId: op("delete"), ...(query ? { query } : {}), responses: { 204: null, 403: notPermitted, ...errors } }), async (req, reply) => {
      await service.deleteMember(db, org(req), ref(req), revokeSeatsOfMember);
      return reply.status(204).send();
    });
  }

  // a customer's members (0.49.0: create; the list is Polar's newer customers.members.list)
  const customers: Array<{ path: string; by: string; ref: (req: FastifyRequest) => CustomerRef }> = [
    { path: "/customers/:id/members", by: "", ref: (req) => ({ id: pathId(req) }) },
    { path: "/customers/external/:external_id/members", by: "_external", ref: (req) => ({ externalId: param(req, "external_id") }) },
  ];
  for (const { path, by, ref } of customers) {
    app.get(path, route({ ...read, operationId: `customers:members:list${by}`, query: CustomerListQuery, responses: { 200: "ListResourceMember", ...errors } }), async (req) => {
      const q = req.query;
      const c = await service.customerIdOf(db, org(req), ref(req));
      const { items, total } = await service.listMembers(db, org(req), { customerId: c, role: q.role }, false, q.page, q.limit);
      return page(items, total, q.limit);
    });
    app.post(path, route({
      ...write, operationId: `customers:members:create${by}`, body: service.MemberCreateFromCustomerInput,
      responses: { 201: "Member", 403: notPermitted, ...errors },
    }), async (req, reply) =>
      reply.status(201).send(await service.createMember(db, org(req), ref(req), req.body)),
    );
  }

  // the team in the customer portal (the owner and billing managers)
  const portal = { caller: "customer_session" as const, preHandler: portalAuth(db) };
  const actor = (req: FastifyRequest): service.PortalActor => {
    const p = portalOf(req);
    return { organizationId: p.organizationId, customer: p.customer, member: p.member };
  };
  const portalErrors = { 403: notPermitted, 404: notFound, 422: validationError } as const;
  app.get("/customer-portal/members", route({
    ...portal, operationId: "customer_portal:members:list_members", query: PortalListQuery,
    responses: { 200: "ListResourceCustomerPortalMember", ...portalErrors },
  }), async (req) => {
    const q = req.query;
    const { items, total } = await service.portalListMembers(db, actor(req), q.page, q.limit);
    return page(items, total, q.limit);
  });
  app.post("/customer-portal/members", route({
    ...portal, operationId: "customer_portal:members:add_member", body: service.PortalMemberCreateInput,
    responses: { 201: "CustomerPortalMember", ...portalErrors },
  }), async (req, reply) =>
    reply.status(201).send(await service.portalAddMember(db, actor(req), req.body)),
  );
  app.patch("/customer-portal/members/:id", route({
    ...portal, operationId: "customer_portal:members:update_member", body: service.PortalMemberUpdateInput,
    responses: { 200: "CustomerPortalMember", ...portalErrors },
  }), async (req) =>
    service.portalUpdateMember(db, actor(req), pathId(req), req.body),
  );
  app.delete("/customer-portal/members/:id", route({ ...portal, operationId: "customer_portal:members:remove_member", responses: { 204: null, ...portalErrors } }), async (req, reply) => {
    await service.portalRemoveMember(db, actor(req), pathId(req), revokeSeatsOfMember);
    return reply.status(204).send();
  });
}
