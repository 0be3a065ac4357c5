// /v1/customers: list, create, get, update, delete, state — by id and by the seller's external id.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { isUuid, metadataQuery, page, paginationQuery, parseWith, pathId, queryArray, queryBool } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { organizationSelected, sendCsv, withoutRows } from "../csv.js";
import { sortingQuery } from "../listing.js";
import * as service from "./service.js";
import { CustomerCreateInput, CustomerUpdateExternalInput, CustomerUpdateInput } from "./input.js";
import { deleteCustomer } from "../customer-state/delete.js";
import { getCustomerState } from "../customer-state/state.js";
import { getCustomerMeter, listCustomerMeters } from "../customer-state/meters.js";
import { route, type V1App } from "../contract.js";
import { addOwner } from "../members/service.js";
import { notFound, validationError } from "../errors.js";

const ListQuery = z.object({
  organization_id: queryArray(z.uuid({ message: "Input should be a valid UUID" })).optional(),
  email: z.string().max(320).optional(),
  query: z.string().max(1000).optional(),
  metadata: metadataQuery.optional(),
  sorting: sortingQuery(["created_at", "email", "name"], [{ key: "created_at", desc: true }]),
  ...paginationQuery,
});

const uuidInput = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const CustomerMetersQuery = z.object({
  organization_id: queryArray(uuidInput).optional(),
  customer_id: queryArray(uuidInput).optional(),
  external_customer_id: queryArray(z.string().min(1).max(256)).optional(),
  meter_id: queryArray(uuidInput).optional(),
  sorting: sortingQuery(
    ["created_at", "modified_at", "customer_id", "customer_name", "meter_id", "meter_name", "consumed_units", "credited_units", "balance"],
    [{ key: "created_at", desc: true }],
  ),
  ...paginationQuery,
});

const ExportQuery = z.object({
  organization_id: queryArray(z.uuid({ message: "Input should be a valid UUID" })).optional(),
});

const DeleteQuery = z.object({ anonymize: queryBool.default(false) });

const ExternalIdPath = z.object({ external_id: z.string().min(1).max(256) });

/** The seller's own id for a customer, from the path (NUL characters and overlong ids are a 422). */
function externalRef(req: FastifyRequest): service.CustomerRef {
  return { externalId: parseWith(ExternalIdPath, req.params, "path").external_id };
}

const idRef = (req: FastifyRequest): service.CustomerRef => ({ id: pathId(req) });

export function customerRoutes(app: V1App, { db, config }: BillingDeps): void {
  app.get("/customers/", route({ scope: "customers:read", operationId: "customers:list", query: ListQuery, responses: { 200: "ListResourceCustomer", 422: validationError } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id && !q.organization_id.map((id) => id.toLowerCase()).includes(organizationId)) {
      return page([], 0, q.limit);
    }
    const filter = { email: q.email, query: q.query, metadata: q.metadata };
    const { items, total } = await service.listCustomers(db, organizationId, filter, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });

  // Polar's CustomerMeter: a customer's usage of a meter (customer-state/meters.ts), under the customers scope
  app.get("/customer-meters/", route({
    scope: "customers:read", operationId: "customer_meters:list", query: CustomerMetersQuery,
    responses: { 200: "ListResourceCustomerMeter", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id && !q.organization_id.map((id) => id.toLowerCase()).includes(organizationId)) return page([], 0, q.limit);
    const filter = { customerIds: q.customer_id?.map((id) => id.toLowerCase()), externalCustomerIds: q.external_customer_id, meterIds: q.meter_id };
    const { items, total } = await listCustomerMeters(db, organizationId, filter, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });
  app.get("/customer-meters/:id", route({
    scope: "customers:read", operationId: "customer_meters:get",
    responses: { 200: "CustomerMeter", 404: notFound, 422: validationError },
  }), async (req) => getCustomerMeter(db, scopeOf(req).organizationId, pathId(req)));

  // a static segment: find-my-way prefers it to /customers/:id whatever the order of registration
  app.get("/customers/export", route({ scope: "customers:read", operationId: "customers:export", query: ExportQuery, responses: { 200: "text/csv", 422: validationError } }), async (req, reply) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    const csv = service.customerExport(organizationId);
    return sendCsv(reply, db, organizationSelected(q.organization_id, organizationId) ? csv : withoutRows(csv));
  });

  app.post("/customers/", route({ scope: "customers:write", operationId: "customers:create", body: CustomerCreateInput, responses: { 201: "Customer", 422: validationError } }), async (req, reply) => {
    const input = req.body;
    // a team gets its owner member in the same transaction (billing/members)
    const owner: service.BecameTeam = (tx, row) => addOwner(tx, row, input.owner);
    return reply.status(201).send(await service.createCustomer(db, scopeOf(req).organizationId, input, owner));
  });

  // the same four operations by id and by external id
  const refs = [
    { path: "/customers/:id", ref: idRef, update: CustomerUpdateInput, by: "" },
    { path: "/customers/external/:external_id", ref: externalRef, update: CustomerUpdateExternalInput, by: "_external" },
  ];
  const errors = { 404: notFound, 422: validationError } as const;
  for (const { path, ref, update, by } of refs) {
    app.get(path, route({ scope: "customers:read", operationId: `customers:get${by}`, responses: { 200: "Customer", ...errors } }), async (req) =>
      service.getCustomer(db, scopeOf(req).organizationId, ref(req)),
    );

    app.patch(path, route({ scope: "customers:write", operationId: `customers:update${by}`, body: update, responses: { 200: "Customer", ...errors } }), async (req) => {
      const target = ref(req);
      const input = req.body;
      return service.updateCustomer(db, scopeOf(req).organizationId, target, input, (tx, row) => addOwner(tx, row, null));
    });

    app.delete(path, route({ scope: "customers:write", operationId: `customers:delete${by}`, query: DeleteQuery, responses: { 204: null, ...errors } }), async (req, reply) => {
      const target = ref(req);
      const q = req.query;
      await deleteCustomer(db, scopeOf(req).organizationId, target, q.anonymize, config.baseURL);
      return reply.status(204).send();
    });

    app.get(`${path}/state`, route({ scope: "customers:read", operationId: `customers:get_state${by}`, responses: { 200: "CustomerState", ...errors } }), async (req) =>
      getCustomerState(db, scopeOf(req).organizationId, ref(req)),
    );
  }
}
