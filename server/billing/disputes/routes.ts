// /v1/disputes (Polar wire): list and get, and accept (SDK 0.49.0's disputes.accept: the seller concedes, the
// dispute is closed at Stripe and lost). Disputes are made by Stripe's events (billing/stripe-events), never here.
// A dispute is of an order: the orders scopes cover it.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, parseQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import * as service from "./service.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  order_id: queryArray(uuid).optional(),
  status: queryArray(z.enum(service.DISPUTE_STATUSES)).optional(),
  sorting: sortingQuery<service.DisputeSort>(["created_at", "amount"], [{ key: "created_at", desc: true }]),
  ...paginationQuery,
});

export function disputeRoutes(app: FastifyInstance, { db, config, secret }: BillingDeps): void {
  app.get("/disputes/", { config: { scope: "orders:read" } }, async (req) => {
    const q = parseQuery(ListQuery, req);
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
  });

  app.get("/disputes/:id", { config: { scope: "orders:read" } }, async (req) => service.getDispute(db, scopeOf(req).organizationId, pathId(req)));

  app.post("/disputes/:id/accept", { config: { scope: "orders:write" } }, async (req) =>
    service.acceptDispute({ db, secret, stripeApiUrl: config.payments.stripeApiUrl }, scopeOf(req).organizationId, pathId(req)),
  );
}
