// /v1/refunds: create and list (Polar wire). A refund belongs to an order of the caller's organization.
import { z } from "zod";
import { serverPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, queryArray, queryBool } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import type { RefundSort } from "./repository.js";
import * as service from "./service.js";
import { route, type V1App } from "../contract.js";
import { validationError } from "../errors.js";
import { refundedAlready } from "./errors.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

const ListQuery = z.object({
  id: queryArray(uuid).optional(),
  organization_id: queryArray(uuid).optional(),
  order_id: queryArray(uuid).optional(),
  subscription_id: queryArray(uuid).optional(),
  customer_id: queryArray(uuid).optional(),
  external_customer_id: queryArray(z.string().max(256)).optional(),
  succeeded: queryBool.optional(),
  sorting: sortingQuery<RefundSort>(["created_at", "amount"], [{ key: "created_at", desc: true }]),
  ...paginationQuery,
});

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

export function refundRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const deps: service.RefundDeps = { db, processor: serverPaymentProcessor(config, secret) };

  app.get("/refunds/", route({ scope: "refunds:read", operationId: "refunds:list", query: ListQuery, responses: { 200: "ListResourceRefund", 422: validationError } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const { items, total } = await service.listRefunds(
      db,
      organizationId,
      {
        ids: lower(q.id),
        orderIds: lower(q.order_id),
        subscriptionIds: lower(q.subscription_id),
        customerIds: lower(q.customer_id),
        externalCustomerIds: q.external_customer_id,
        succeeded: q.succeeded,
      },
      q.sorting,
      q.page,
      q.limit,
    );
    return page(items, total, q.limit);
  });

  app.post("/refunds/", route({
    scope: "refunds:write", operationId: "refunds:create", body: service.RefundCreateInput,
    responses: { 201: "Refund", 403: refundedAlready, 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    const refund = await service.createRefund(deps, scopeOf(req).organizationId, input);
    return reply.status(201).send(refund);
  });
}
