// /v1/orders: list, get and update (Polar wire). Orders are created by confirmed checkouts.
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { isUuid, metadataQuery, page, paginationQuery, parseWith, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { organizationSelected, sendCsv, withoutRows } from "../csv.js";
import { sortingQuery } from "../listing.js";
import type { OrderSort } from "./repository.js";
import * as service from "./service.js";
import * as manual from "./manual.js";
import { documented, route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";
import { payable, payLinkUrl } from "../pay-links.js";
import { ORDER_STATUSES, type OrderWire } from "./wire.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  product_id: queryArray(uuid).optional(),
  product_billing_type: queryArray(z.enum(["one_time", "recurring"])).optional(),
  discount_id: queryArray(uuid).optional(),
  customer_id: queryArray(uuid).optional(),
  external_customer_id: queryArray(z.string().max(256)).optional(),
  checkout_id: queryArray(uuid).optional(),
  subscription_id: queryArray(uuid).optional(),
  /** till's own (the SDKs send no such filter): orders in these statuses */
  status: queryArray(z.enum(ORDER_STATUSES)).optional(),
  metadata: metadataQuery.optional(),
  sorting: sortingQuery<OrderSort>(
    ["created_at", "status", "invoice_number", "amount", "net_amount", "customer", "product", "discount", "subscription"],
    [{ key: "created_at", desc: true }],
  ),
  ...paginationQuery,
});

const ExportQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  product_id: queryArray(uuid).optional(),
});

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

/**
 * The order with till's `pay_url` (the SDKs drop it): the hosted page that pays it while it is owed, else null.
 */
export const withPayUrl = (baseURL: string, o: OrderWire, now = new Date()) => ({
  ...o,
  pay_url: payable(o) ? payLinkUrl(baseURL, o.customer.organization_id, o.id, now) : null,
});

export function orderRoutes(app: V1App, { db, config }: BillingDeps): void {
  app.get("/orders/", route({ scope: "orders:read", operationId: "orders:list", query: ListQuery, responses: { 200: "ListResourceOrder", 422: validationError } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const { items, total } = await service.listOrders(
      db,
      organizationId,
      {
        productIds: lower(q.product_id),
        billingTypes: q.product_billing_type,
        discountIds: lower(q.discount_id),
        customerIds: lower(q.customer_id),
        externalCustomerIds: q.external_customer_id,
        checkoutIds: lower(q.checkout_id),
        subscriptionIds: lower(q.subscription_id),
        statuses: q.status,
        metadata: q.metadata,
      },
      q.sorting,
      q.page,
      q.limit,
    );
    const now = new Date();
    return page(items.map((o) => withPayUrl(config.baseURL, o, now)), total, q.limit);
  });

  app.get("/orders/export", route({ scope: "orders:read", operationId: "orders:export", query: ExportQuery, responses: { 200: "text/csv", 422: validationError } }), async (req, reply) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    const csv = service.orderExport(organizationId, lower(q.product_id));
    return sendCsv(reply, db, organizationSelected(q.organization_id, organizationId) ? csv : withoutRows(csv));
  });

  app.get("/orders/:id", route({ scope: "orders:read", operationId: "orders:get", responses: { 200: "Order", 404: notFound, 422: validationError } }), async (req) =>
    withPayUrl(config.baseURL, await service.getOrder(db, scopeOf(req).organizationId, pathId(req))),
  );

  // SDK 0.49.0: a draft order charged to the customer's saved method on finalize (orders/manual.ts)
  app.post("/orders/", route({ scope: "orders:write", operationId: "orders:create", body: manual.OrderCreateInput, responses: { 201: "Order", 422: validationError } }), async (req, reply) => {
    const input = req.body;
    return reply.status(201).send(await manual.createDraftOrder(db, scopeOf(req).organizationId, input));
  });
  // OrderFinalize's only field is optional: 0.49.0 sends an empty JSON body without it
  app.post("/orders/:id/finalize", route({
    scope: "orders:write", emptyJsonBody: true, operationId: "orders:finalize",
    body: documented(manual.OrderFinalizeInput), responses: { 200: "Order", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const input = parseWith(manual.OrderFinalizeInput, req.body ?? {}, "body");
    return manual.finalizeOrder(db, scopeOf(req).organizationId, id, input.payment_method_id ?? null);
  });

  app.patch("/orders/:id", route({
    scope: "orders:write", operationId: "orders:update", body: service.OrderUpdateInput,
    responses: { 200: "Order", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateOrder(db, scopeOf(req).organizationId, id, req.body);
  });
}
