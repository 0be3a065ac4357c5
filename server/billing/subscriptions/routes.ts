// /v1/subscriptions: list and get (Polar wire). Subscriptions are created by confirmed checkouts.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../index.js";
import { datetimeInput, isUuid, metadataQuery, page, paginationQuery, parseQuery, pathId, queryArray, queryBool, scopeOf } from "../http.js";
import { sortingQuery } from "../listing.js";
import type { SubscriptionSort } from "./repository.js";
import * as service from "./service.js";
import { SUBSCRIPTION_STATUSES } from "./wire.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const CANCELLATION_REASONS = [
  "customer_service", "low_quality", "missing_features", "switched_service", "too_complex", "too_expensive", "unused", "other",
] as const;

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  product_id: queryArray(uuid).optional(),
  customer_id: queryArray(uuid).optional(),
  external_customer_id: queryArray(z.string().max(256)).optional(),
  discount_id: queryArray(uuid).optional(),
  status: queryArray(z.enum(SUBSCRIPTION_STATUSES)).optional(),
  active: queryBool.optional(),
  cancel_at_period_end: queryBool.optional(),
  customer_cancellation_reason: queryArray(z.enum(CANCELLATION_REASONS)).optional(),
  canceled_at_after: datetimeInput.optional(),
  canceled_at_before: datetimeInput.optional(),
  metadata: metadataQuery.optional(),
  sorting: sortingQuery<SubscriptionSort>(
    ["customer", "status", "started_at", "current_period_end", "ended_at", "ends_at", "amount", "product", "discount"],
    [{ key: "started_at", desc: true }],
  ),
  ...paginationQuery,
});

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

export function subscriptionRoutes(app: FastifyInstance, { db, config }: BillingDeps): void {
  app.get("/subscriptions/", { config: { scope: "subscriptions:read" } }, async (req) => {
    const q = parseQuery(ListQuery, req);
    const { organizationId } = scopeOf(req);
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const { items, total } = await service.listSubscriptions(
      db,
      organizationId,
      {
        productIds: lower(q.product_id),
        customerIds: lower(q.customer_id),
        externalCustomerIds: q.external_customer_id,
        discountIds: lower(q.discount_id),
        statuses: q.status,
        active: q.active,
        cancelAtPeriodEnd: q.cancel_at_period_end,
        cancellationReasons: q.customer_cancellation_reason,
        canceledAtAfter: q.canceled_at_after ? new Date(q.canceled_at_after) : undefined,
        canceledAtBefore: q.canceled_at_before ? new Date(q.canceled_at_before) : undefined,
        metadata: q.metadata,
      },
      q.sorting,
      q.page,
      q.limit,
      config.baseURL,
    );
    return page(items, total, q.limit);
  });

  app.get("/subscriptions/:id", { config: { scope: "subscriptions:read" } }, async (req) =>
    service.getSubscription(db, scopeOf(req).organizationId, pathId(req), config.baseURL),
  );
}
