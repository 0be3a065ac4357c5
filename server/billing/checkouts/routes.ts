// /v1/checkouts: the seller's create, list, get and update (bearer token), and the customer's page through
// the client secret — get, update, confirm, the event stream, and the test processor's card tokenizer.
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { serverPaymentProcessor } from "../../payments/index.js";
import { paymentPurpose, tokenizeTestCard } from "../../payments/test-processor.js";
import type { BillingDeps } from "../deps.js";
import { isUuid, openEventStream, page, paginationQuery, parseBody, pathId, queryArray } from "../http.js";
import { invalid, notFound, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import { clientConfirmCheckout } from "./confirm.js";
import { subscribeCheckoutEvents, type CheckoutEvent } from "./events.js";
import { CheckoutConfirmInput, CheckoutCreateInput, CheckoutUpdateInput, CheckoutUpdatePublicInput, TestCardInput } from "./input.js";
import type { CheckoutSort } from "./repository.js";
import * as service from "./service.js";
import { createCheckout } from "./create.js";
import { statusOf } from "./wire.js";
import { documented, route, type V1App } from "../contract.js";
import { checkoutForbidden, expiredCheckout } from "./errors.js";
import { paymentError } from "../payments/errors.js";

/** The test tokenizer's answer (till's own route, for the checkout page). */
const TestCardToken = z.looseObject({ confirmation_token_id: z.string() });

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const STATUSES = ["open", "expired", "confirmed", "succeeded", "failed"] as const;

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  product_id: queryArray(uuid).optional(),
  customer_id: queryArray(uuid).optional(),
  external_customer_id: queryArray(z.string().max(256)).optional(),
  status: queryArray(z.enum(STATUSES)).optional(),
  query: z.string().max(200).optional(),
  sorting: sortingQuery<CheckoutSort>(["created_at", "expires_at", "status"], [{ key: "created_at", desc: true }]),
  ...paginationQuery,
});

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());
const secretOf = (req: FastifyRequest) => String((req.params as { client_secret?: unknown }).client_secret ?? "");

export function checkoutRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const deps: service.CheckoutDeps = { db, baseURL: config.baseURL, processor: serverPaymentProcessor(config, secret), log: app.log, reviewRequired: config.organizations.reviewRequired };
  const streams = new Set<FastifyReply>();
  app.addHook("onClose", async () => {
    for (const reply of streams) reply.raw.end();
  });

  // ---- the seller -------------------------------------------------------------------------------------

  app.get("/checkouts/", route({ scope: "checkouts:read", operationId: "checkouts:list", query: ListQuery, responses: { 200: "ListResourceCheckout", 422: validationError } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const { items, total } = await service.listCheckouts(
      deps,
      organizationId,
      {
        productIds: lower(q.product_id),
        customerIds: lower(q.customer_id),
        externalCustomerIds: q.external_customer_id,
        statuses: q.status,
        query: q.query,
      },
      q.sorting,
      q.page,
      q.limit,
    );
    return page(items, total, q.limit);
  });

  app.post("/checkouts/", route({ scope: "checkouts:write", operationId: "checkouts:create", body: CheckoutCreateInput, responses: { 201: "Checkout", 422: validationError } }), async (req, reply) => {
    const input = req.body;
    return reply.code(201).send(await createCheckout(deps, scopeOf(req).organizationId, input));
  });

  app.get("/checkouts/:id", route({ scope: "checkouts:read", operationId: "checkouts:get", responses: { 200: "Checkout", 404: notFound, 422: validationError } }), async (req) =>
    service.getCheckout(deps, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/checkouts/:id", route({
    scope: "checkouts:write", operationId: "checkouts:update", body: CheckoutUpdateInput,
    responses: { 200: "Checkout", 403: checkoutForbidden, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateCheckout(deps, scopeOf(req).organizationId, id, req.body);
  });

  // ---- the customer's page: the client secret is the credential -----------------------------------------

  app.get("/checkouts/client/:client_secret", route({
    caller: "client_secret", operationId: "checkouts:client_get",
    responses: { 200: "CheckoutPublic", 404: notFound, 410: expiredCheckout, 422: validationError },
  }), async (req) =>
    service.clientGetCheckout(deps, secretOf(req)),
  );

  app.patch("/checkouts/client/:client_secret", route({
    caller: "client_secret", operationId: "checkouts:client_update", body: CheckoutUpdatePublicInput,
    responses: { 200: "CheckoutPublic", 403: checkoutForbidden, 404: notFound, 410: expiredCheckout, 422: validationError },
  }), async (req) =>
    service.clientUpdateCheckout(deps, secretOf(req), req.body, req.ip),
  );

  app.post("/checkouts/client/:client_secret/confirm", route({
    caller: "client_secret", operationId: "checkouts:client_confirm", body: CheckoutConfirmInput,
    responses: { 200: "CheckoutPublicConfirmed", 400: paymentError, 403: checkoutForbidden, 404: notFound, 410: expiredCheckout, 422: validationError },
  }), async (req) =>
    clientConfirmCheckout(deps, secretOf(req), req.body, req.ip),
  );

  /** The test processor's tokenizer: the card goes here, the checkout is confirmed with the token. */
  app.post("/checkouts/client/:client_secret/test-card", route({
    caller: "client_secret", operationId: "till:checkouts:client_test_card", body: documented(TestCardInput),
    responses: { 200: TestCardToken, 404: notFound, 422: validationError },
  }), async (req) => {
    const row = await service.clientCheckoutRow(deps, secretOf(req));
    if (deps.processor.id !== "test") throw invalid(["path", "client_secret"], "This checkout does not use the test payment processor.");
    // the body is read after the checkout is found: an unknown or expired checkout answers 404/410 whatever is sent
    const card = parseBody(TestCardInput, req);
    const result = tokenizeTestCard(card, paymentPurpose({ checkout_id: row.id }));
    if (!result.ok) throw invalid(["body", result.field], result.message, "card_error", result.code);
    return {
      confirmation_token_id: result.token,
      checkout_id: row.id,
      card: { brand: result.brand, last4: result.last4, exp_month: card.exp_month, exp_year: card.exp_year },
    };
  });

  /** Server-sent events: the current status at once, then every change until the client leaves. */
  app.get("/checkouts/client/:client_secret/stream", route({
    caller: "client_secret", operationId: "till:checkouts:client_stream",
    responses: { 200: "text/event-stream", 404: notFound },
  }), async (req, reply) => {
    const row = await service.clientCheckoutRow(deps, secretOf(req));
    const raw = openEventStream(reply, config.streamKeepAliveMs);
    const send = (e: CheckoutEvent) => raw.write(`data: ${JSON.stringify(e)}\n\n`);
    send({ key: "checkout.updated", payload: { status: statusOf(row) } });
    const unsubscribe = subscribeCheckoutEvents(row.id, send);
    const keepalive = setInterval(() => raw.write(": keep-alive\n\n"), config.streamKeepAliveMs); // proxies keep an idle stream open
    streams.add(reply);
    const done = () => {
      clearInterval(keepalive);
      unsubscribe();
      streams.delete(reply);
    };
    raw.on("close", done);
  });
}
