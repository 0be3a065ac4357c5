// /v1/disputes (Polar wire): list and get, and accept (SDK 0.49.0's disputes.accept: the seller concedes, the
// dispute is closed at the processor and lost). Disputes are made by the processor's events (billing/processor-events),
// never here.
// A dispute is of an order: the orders scopes cover it.
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import * as service from "./service.js";
import type { DisputeSort } from "./repository.js";
import { DISPUTE_STATUSES } from "../../payments/accounts.js";
import { serverProcessorAccounts } from "../../payments/index.js";
import { route, type V1App } from "../contract.js";
import { notFound, notPermitted, validationError } from "../errors.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  order_id: queryArray(uuid).optional(),
  status: queryArray(z.enum(DISPUTE_STATUSES)).optional(),
  sorting: sortingQuery<DisputeSort>(["created_at", "amount"], [{ key: "created_at", desc: true }]),
  ...paginationQuery,
});

/** A dispute as the wire shows it (Polar's Dispute, SDK 0.49.0; 0.47.1 has no model of it). */
const Dispute = z.object({
  created_at: z.iso.datetime(),
  modified_at: z.iso.datetime().nullable(),
  id: z.uuid(),
  status: z.enum(DISPUTE_STATUSES),
  resolved: z.boolean(),
  closed: z.boolean(),
  amount: z.int(),
  tax_amount: z.int(),
  currency: z.string(),
  reason: z.string().nullable(),
  evidence_due_by: z.iso.datetime().nullable(),
  past_due: z.boolean(),
  order_id: z.uuid(),
  payment_id: z.uuid().nullable(),
  customer: z.looseObject({ id: z.uuid() }).nullable(),
  case_id: z.string().nullable(),
});
const ListResourceDispute = z.object({
  items: z.array(Dispute),
  pagination: z.object({ total_count: z.int(), max_page: z.int() }),
});

export function disputeRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const accounts = serverProcessorAccounts(config, secret);
  app.get(
    "/disputes/",
    route({ scope: "orders:read", operationId: "disputes:list", query: ListQuery, responses: { 200: ListResourceDispute, 422: validationError } }),
    async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) return page([], 0, q.limit);
    const { items, total } = await service.listDisputes(
      db,
      organizationId,
      { orderIds: q.order_id?.map((id) => id.toLowerCase()), statuses: q.status },
      q.sorting,
      q.page,
      q.limit,
    );
    return page(items, total, q.limit);
    },
  );

  app.get(
    "/disputes/:id",
    route({ scope: "orders:read", operationId: "disputes:get", responses: { 200: Dispute, 404: notFound, 422: validationError } }),
    async (req) => service.getDispute(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.post(
    "/disputes/:id/accept",
    route({ scope: "orders:write", operationId: "disputes:accept", responses: { 200: Dispute, 403: notPermitted, 404: notFound, 422: validationError } }),
    async (req) =>
    service.acceptDispute({ db, accounts }, scopeOf(req).organizationId, pathId(req)),
  );
}
