// /v1/checkout-links: the seller's create, list, get, update and delete (bearer token), and the link's public
// URL, `GET /v1/checkout-links/{client_secret}/redirect`, which opens a fresh checkout and redirects to it.
import { z } from "zod";
import { serverPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import { CheckoutLinkCreateInput, CheckoutLinkUpdateInput, METADATA_KEYS, PREFILL_KEYS, prefillOf } from "./input.js";
import type { CheckoutLinkSort } from "./repository.js";
import * as service from "./service.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  product_id: queryArray(uuid).optional(),
  sorting: sortingQuery<CheckoutLinkSort>(["created_at", "label", "success_url", "allow_discount_codes"], [{ key: "created_at", desc: false }]),
  ...paginationQuery,
});

/** Query keys the redirect uses itself; the others are passed on to the checkout page (`theme`, `embed`, …). */
const CONSUMED = new Set<string>([...PREFILL_KEYS, ...METADATA_KEYS, "embed_origin"]);

function forwardedQuery(rawUrl: string): URLSearchParams {
  const q = rawUrl.indexOf("?");
  const params = new URLSearchParams(q < 0 ? "" : rawUrl.slice(q + 1));
  for (const key of [...params.keys()]) if (CONSUMED.has(key)) params.delete(key);
  return params;
}

export function checkoutLinkRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const deps = { db, baseURL: config.baseURL, processor: serverPaymentProcessor(config, secret), reviewRequired: config.organizations.reviewRequired };

  app.get("/checkout-links/", route({
    scope: "checkout_links:read", operationId: "checkout-links:list", query: ListQuery,
    responses: { 200: "ListResourceCheckoutLink", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const productIds = q.product_id?.map((id) => id.toLowerCase());
    const { items, total } = await service.listCheckoutLinks(deps, organizationId, { productIds }, q.sorting, q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.post("/checkout-links/", route({
    scope: "checkout_links:write", operationId: "checkout-links:create", body: CheckoutLinkCreateInput,
    responses: { 201: "CheckoutLink", 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    return reply.code(201).send(await service.createCheckoutLink(deps, scopeOf(req).organizationId, input));
  });

  app.get("/checkout-links/:id", route({ scope: "checkout_links:read", operationId: "checkout-links:get", responses: { 200: "CheckoutLink", 404: notFound, 422: validationError } }), async (req) =>
    service.getCheckoutLink(deps, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/checkout-links/:id", route({
    scope: "checkout_links:write", operationId: "checkout-links:update", body: CheckoutLinkUpdateInput,
    responses: { 200: "CheckoutLink", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateCheckoutLink(deps, scopeOf(req).organizationId, id, req.body);
  });

  app.delete("/checkout-links/:id", route({
    scope: "checkout_links:write", operationId: "checkout-links:delete",
    responses: { 204: null, 404: notFound, 422: validationError },
  }), async (req, reply) => {
    await service.deleteCheckoutLink(db, scopeOf(req).organizationId, pathId(req));
    return reply.code(204).send();
  });

  // ---- the shared URL: the client secret is the credential; every visit is a new checkout ---------------

  app.get("/checkout-links/:client_secret/redirect", route({
    caller: "client_secret", operationId: "till:checkout_links:redirect",
    responses: { 307: null, 404: notFound, 422: validationError },
  }), async (req, reply) => {
    const secret = String((req.params as { client_secret?: unknown }).client_secret ?? "");
    const url = new URL(await service.openCheckout(deps, secret, prefillOf(req.query), req.ip));
    for (const [key, value] of forwardedQuery(req.url)) url.searchParams.append(key, value);
    // never cached: each visit must open its own checkout
    return reply.header("cache-control", "no-store").redirect(url.toString(), 307);
  });
}
