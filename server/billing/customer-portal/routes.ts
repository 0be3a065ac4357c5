// POST /v1/customer-sessions/ (the seller's token, customer_sessions:write) and /v1/customer-portal/* with a
// customer session's token: the customer's own details, orders, subscriptions, benefit grants and license
// keys. Portal routes skip the organization authentication (caller "customer_session") and run portalAuth instead; a
// missing, unknown or expired token is a 401, and rows of other customers are 404s.
import { serverPaymentProcessor } from "../../payments/index.js";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { datetimeInput, isUuid, page, paginationQuery, parseWith, pathId, queryArray, queryBool } from "../http.js";
import { ApiError, notFound, notPermitted, unauthorized, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { payable, payLinkUrl } from "../pay-links.js";
import { MAX_ADD_ON_QUANTITY } from "../products/add-ons.js";
import { PRORATION_BEHAVIORS, type SubscriptionUpdate } from "../subscriptions/change.js";
import { CANCELLATION_REASONS } from "../../../shared/cancellation-reasons.js";
import * as service from "./service.js";
import { OrderUpdateInput } from "../orders/service.js";
import { oauthAccountsWire } from "../benefit-delivery/service.js";
import { codeLimits, tooManyRequests } from "./code-limits.js";
import * as emailUpdate from "./email-update.js";
import {
  authenticateSessionCode,
  createCustomerSession,
  CustomerSessionCodeAuthenticateInput,
  CustomerSessionCodeRequestInput,
  CustomerSessionCreateInput,
  requestSessionCode,
  resolvePortalToken,
  type PortalCaller,
} from "../customer-sessions/service.js";
import { documented, route, type V1App } from "../contract.js";
import { paymentFailed } from "../payments/errors.js";
import { alreadyCanceled, subscriptionLocked } from "../subscriptions/errors.js";
import { updateSubscriptionTerms } from "../subscriptions/invoice-terms.js";
import { purchaseOrderInput } from "../terms.js";

const PurchaseOrderBody = z.object({ purchase_order: purchaseOrderInput });

declare module "fastify" {
  interface FastifyRequest {
    portal?: PortalCaller;
  }
}

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());


export function portalAuth(db: BillingDeps["db"]) {
  return async function authenticatePortal(req: FastifyRequest): Promise<void> {
    const header = req.headers.authorization;
    const token = typeof header === "string" && /^bearer /i.test(header) ? header.slice(7).trim() : "";
    if (!token) throw unauthorized("A customer session token is required: Authorization: Bearer <token>.");
    const caller = await resolvePortalToken(db, token);
    if (!caller) throw unauthorized("The customer session is unknown or has expired.");
    if (caller.member?.role === "member" && !memberMay(req.method, req.routeOptions.url ?? "")) {
      throw notPermitted("Your role in this team does not allow this: ask its owner or a billing manager.", "role_refused");
    }
    req.portal = caller;
  };
}

/**
 * What a team member of role "member" may do in the portal: read the team and their session, use the benefits
 * (grants, downloads, license keys, usage). Orders, subscriptions, payment methods, wallets, seats, members and the
 * customer's details are for the owner and billing managers.
 */
const MEMBER_PATHS = /^\/v1\/customer-portal\/(customer-session\/|benefit-grants\/|downloadables\/|license-keys\/|meters\/)/;
function memberMay(method: string, url: string): boolean {
  if (url === "/v1/customer-portal/customers/me") return method === "GET";
  return MEMBER_PATHS.test(url.endsWith("/") ? url : `${url}/`);
}

export function portalOf(req: FastifyRequest): PortalCaller {
  if (!req.portal) throw new Error("portalOf: route registered without portalAuth");
  return req.portal;
}

const OrdersQuery = z.object({
  product_id: queryArray(uuid).optional(),
  product_billing_type: queryArray(z.enum(["one_time", "recurring"])).optional(),
  subscription_id: queryArray(uuid).optional(),
  ...paginationQuery,
});

const SubscriptionsQuery = z.object({ product_id: queryArray(uuid).optional(), active: queryBool.optional(), ...paginationQuery });
const GrantsQuery = z.object({ benefit_id: queryArray(uuid).optional(), member_id: queryArray(uuid).optional(), ...paginationQuery });
const MetersQuery = z.object({ meter_id: queryArray(uuid).optional(), ...paginationQuery });
const LicenseKeysQuery = z.object({ benefit_id: queryArray(uuid).optional(), ...paginationQuery });

const CancelBody = z.object({
  cancel_at_period_end: z.boolean().nullish(),
  cancellation_reason: z.enum(CANCELLATION_REASONS).nullish(),
  cancellation_comment: z.string().max(10_000).nullish(),
});
/** till's own `proration_date` (as the seller's PATCH): a preview's instant, so the change bills what it showed. */
const ProductBody = z.object({ product_id: uuid, proration_date: datetimeInput.nullish() });
const SeatsBody = z.object({
  seats: z.int().min(1).max(2_147_483_647),
  proration_behavior: z.enum(PRORATION_BEHAVIORS).nullish(),
  proration_date: datetimeInput.nullish(),
});
/** till's own: the add-ons as they should be (the seller's `items`), prorated as the seller's settings say. */
const AddOnsBody = z.object({
  items: z.array(z.object({ product_id: uuid, quantity: z.int().min(1).max(MAX_ADD_ON_QUANTITY).default(1) })).max(100),
  proration_date: datetimeInput.nullish(),
});
const dateOf = (iso: string | null | undefined) => (iso ? new Date(iso) : undefined);

/**
 * CustomerSubscriptionUpdate: CustomerSubscriptionUpdateProduct | …Seats | CustomerSubscriptionCancel, told apart by
 * their keys.
 */
/** The bodies the portal's PATCH accepts, for the document: parseSubscriptionUpdate tells them apart (its own 422s). */
const CustomerSubscriptionUpdate = documented(z.union([ProductBody, SeatsBody, AddOnsBody, CancelBody]));
/** The preview's answer, for the document (subscription-changes/preview.ts; the subscription in the customer's wire) */
const PortalDraftWire = z.looseObject({ total_amount: z.number(), due_amount: z.number(), items: z.array(z.looseObject({ label: z.string(), amount: z.number() })) });
const PortalPreviewWire = z.looseObject({ proration_date: z.string(), order: PortalDraftWire.nullable(), next_renewal: PortalDraftWire.nullable() });

function parseSubscriptionUpdate(body: unknown): SubscriptionUpdate {
  const b = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if ("product_id" in b) {
    const c = parseWith(ProductBody, b, "body");
    return { kind: "change", productId: c.product_id.toLowerCase(), prorationDate: dateOf(c.proration_date) };
  }
  if ("items" in b) {
    const a = parseWith(AddOnsBody, b, "body");
    const items = a.items.map((i) => ({ productId: i.product_id.toLowerCase(), quantity: i.quantity }));
    return { kind: "add_ons", items, prorationDate: dateOf(a.proration_date) };
  }
  if ("seats" in b) {
    const s = parseWith(SeatsBody, b, "body");
    return { kind: "seats", seats: s.seats, prorationBehavior: s.proration_behavior, prorationDate: dateOf(s.proration_date) };
  }
  const c = parseWith(CancelBody, b, "body");
  return { kind: "cancel", cancelAtPeriodEnd: c.cancel_at_period_end ?? true, reason: c.cancellation_reason, comment: c.cancellation_comment };
}

export function customerPortalRoutes(app: V1App, { db, config, secret, mailer }: BillingDeps): void {
  const deps: service.PortalDeps = { db, baseURL: config.baseURL, secret, processor: serverPaymentProcessor(config, secret) };

  app.post("/customer-sessions/", route({
    scope: "customer_sessions:write", operationId: "customer-sessions:create", body: CustomerSessionCreateInput,
    responses: { 201: "CustomerSession", 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    return reply.status(201).send(await createCustomerSession(db, scopeOf(req).organizationId, input, config.baseURL));
  });

  // public: the seller's name, settings and public products, by slug
  app.get("/customer-portal/organizations/:slug", route({
    caller: "none", operationId: "customer_portal:organizations:get",
    responses: { 200: "CustomerOrganizationData", 404: notFound, 422: validationError },
  }), async (req) => {
    const slug = String((req.params as { slug?: unknown }).slug ?? "");
    if (slug.length > 100) throw notFound("Organization not found");
    return service.organizationBySlug(deps, slug);
  });

  // public: a customer without a link asks for a code by email, and trades it for a session
  // (throttled per client address and per email; a code is void after five wrong tries: code-limits.ts)
  const limits = codeLimits(db, config.rateLimit.enabled);
  app.post("/customer-portal/customer-session/request", route({
    caller: "none", operationId: "till:customer_portal:customer_session:request", body: CustomerSessionCodeRequestInput,
    responses: { 202: null, 429: null, 422: validationError },
  }), async (req, reply) => {
    const input = req.body;
    const wait = await limits.request(req.ip, input.organization_id, input.email);
    if (wait !== null) return tooManyRequests(reply, wait);
    await requestSessionCode(db, mailer, config.baseURL, input);
    return reply.status(202).send();
  });
  app.post("/customer-portal/customer-session/authenticate", route({
    caller: "none", operationId: "till:customer_portal:customer_session:authenticate",
    body: CustomerSessionCodeAuthenticateInput,
    responses: { 200: z.object({ token: z.string() }), 401: unauthorized, 429: null, 422: validationError },
  }), async (req, reply) => {
    const { code } = req.body;
    const wait = await limits.guessesBlocked(req.ip);
    if (wait !== null) return tooManyRequests(reply, wait);
    try {
      return await authenticateSessionCode(db, code);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) await limits.wrongGuess(req.ip);
      throw err;
    }
  });

  const portal = { caller: "customer_session" as const, preHandler: portalAuth(db) };
  const me = (req: FastifyRequest) => portalOf(req);

  app.get("/customer-portal/customer-session/introspect", route({
    ...portal, operationId: "customer_portal:customer-session:introspect",
    responses: { 200: "CustomerCustomerSession" },
  }), async (req) => service.introspect(me(req)));
  app.get("/customer-portal/customer-session/user", route({
    ...portal, operationId: "customer_portal:customer-session:get_authenticated_user",
    responses: { 200: "PortalAuthenticatedUser" },
  }), async (req) => service.authenticatedUser(me(req)));

  // oauth_accounts: the customer's connected GitHub / Discord accounts (billing/benefit-delivery)
  const withAccounts = async <T extends object>(req: FastifyRequest, wire: T) => ({
    ...wire,
    oauth_accounts: await oauthAccountsWire(db, me(req).organizationId, me(req).customer.id),
  });
  app.get("/customer-portal/customers/me", route({
    ...portal, operationId: "customer_portal:customers:get", responses: { 200: "CustomerPortalCustomer" },
  }), async (req) => withAccounts(req, service.getMe(me(req))));
  app.patch("/customer-portal/customers/me", route({
    ...portal, operationId: "customer_portal:customers:update", body: service.PortalCustomerUpdateInput,
    responses: { 200: "CustomerPortalCustomer", 422: validationError },
  }), async (req) =>
    withAccounts(req, await service.updateMe(deps, me(req), req.body)),
  );

  // a new email address: a link mailed to it (portal), checked and verified by its token (public)
  const updates: emailUpdate.EmailUpdateDeps = { db, secret, baseURL: config.baseURL };
  app.post("/customer-portal/customers/me/email-update/request", route({
    ...portal, operationId: "customer_portal:customers:request_email_update", body: emailUpdate.EmailUpdateRequestInput,
    responses: { 202: null, 422: validationError },
  }), async (req, reply) => {
    const { email } = req.body;
    await emailUpdate.requestEmailUpdate(updates, me(req), email);
    return reply.status(202).type("application/json").send("null");
  });
  app.get("/customer-portal/customers/me/email-update/check", route({
    caller: "client_secret", operationId: "customer_portal:customers:check_email_update",
    query: emailUpdate.EmailUpdateCheckQuery, responses: { 204: null, 422: validationError },
  }), async (req, reply) => {
    const { token } = req.query;
    await emailUpdate.checkEmailUpdate(updates, token);
    return reply.status(204).send();
  });
  app.post("/customer-portal/customers/me/email-update/verify", route({
    caller: "client_secret", operationId: "customer_portal:customers:verify_email_update",
    body: emailUpdate.EmailUpdateVerifyInput, responses: { 200: "CustomerEmailUpdateVerifyResponse" },
  }), async (req) =>
    emailUpdate.verifyEmailUpdate(updates, req.body.token),
  );

  customerPurchaseRoutes(app, deps, portal);
  purchaseOrderRoute(app, deps, portal);
}

/** The options of a route a customer session's token authenticates. */
type PortalRoute = { caller: "customer_session"; preHandler: ReturnType<typeof portalAuth> };

/** till's own: the buyer's purchase order number, printed on the subscription's next invoices. */
function purchaseOrderRoute(app: V1App, deps: service.PortalDeps, portal: PortalRoute): void {
  app.patch("/customer-portal/subscriptions/:id/purchase-order", route({
    ...portal, operationId: "till:customer_portal:subscriptions:purchase_order", body: PurchaseOrderBody,
    responses: { 200: "CustomerSubscription", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    const p = portalOf(req);
    await updateSubscriptionTerms(deps.db, p.organizationId, id, { purchase_order: req.body.purchase_order }, deps.baseURL, p.customer.id);
    return service.getMySubscription(deps, p, id);
  });
}

/** till's `pay_url` (the SDKs drop it): an unpaid order's hosted page, to pass on to whoever pays; null once paid. */
const withPayUrl = <O extends { id: string; status: string; due_amount: number }>(baseURL: string, organizationId: string, o: O, now = new Date()) => ({
  ...o,
  pay_url: payable(o) ? payLinkUrl(baseURL, organizationId, o.id, now) : null,
});

/**
 * What the customer bought, in the portal: orders, subscriptions, benefit grants, downloadables, meters, license keys.
 */
function customerPurchaseRoutes(app: V1App, deps: service.PortalDeps, portal: PortalRoute): void {
  const me = portalOf;

  app.get("/customer-portal/orders/", route({
    ...portal, operationId: "customer_portal:orders:list", query: OrdersQuery,
    responses: { 200: "ListResourceCustomerOrder", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const filter = { productIds: lower(q.product_id), subscriptionIds: lower(q.subscription_id), billingTypes: q.product_billing_type };
    const p = me(req);
    const { items, total } = await service.listMyOrders(deps, p, filter, q.page, q.limit);
    const now = new Date();
    return page(items.map((o) => withPayUrl(deps.baseURL, p.organizationId, o, now)), total, q.limit);
  });
  app.get("/customer-portal/orders/:id", route({
    ...portal, operationId: "customer_portal:orders:get",
    responses: { 200: "CustomerOrder", 404: notFound, 422: validationError },
  }), async (req) => withPayUrl(deps.baseURL, me(req).organizationId, await service.getMyOrder(deps, me(req), pathId(req))));
  app.patch("/customer-portal/orders/:id", route({
    ...portal, operationId: "customer_portal:orders:update", body: OrderUpdateInput,
    responses: { 200: "CustomerOrder", 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateMyOrder(deps, me(req), id, req.body);
  });

  app.get("/customer-portal/subscriptions/", route({
    ...portal, operationId: "customer_portal:subscriptions:list", query: SubscriptionsQuery,
    responses: { 200: "ListResourceCustomerSubscription", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { items, total } = await service.listMySubscriptions(deps, me(req), { productIds: lower(q.product_id), active: q.active }, q.page, q.limit);
    return page(items, total, q.limit);
  });
  app.get("/customer-portal/subscriptions/:id", route({
    ...portal, operationId: "customer_portal:subscriptions:get",
    responses: { 200: "CustomerSubscription", 404: notFound, 422: validationError },
  }), async (req) => service.getMySubscription(deps, me(req), pathId(req)));
  app.patch("/customer-portal/subscriptions/:id", route({
    ...portal, operationId: "customer_portal:subscriptions:update", body: CustomerSubscriptionUpdate,
    responses: { 200: "CustomerSubscription", 402: paymentFailed, 403: alreadyCanceled, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateMySubscription(deps, me(req), id, parseSubscriptionUpdate(req.body));
  });
  // till's own: what the PATCH with the same body would bill, written nowhere (the seller's preview, run on the
  // customer's own subscription only); its proration_date sent back with the PATCH bills exactly what it showed
  app.post("/customer-portal/subscriptions/:id/preview", route({
    ...portal, operationId: "till:customer_portal:subscriptions:preview", body: CustomerSubscriptionUpdate,
    responses: { 200: PortalPreviewWire, 403: alreadyCanceled, 404: notFound, 409: subscriptionLocked, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.previewMySubscription(deps, me(req), id, parseSubscriptionUpdate(req.body), req.headers["accept-language"]);
  });
  // DELETE cancels at the end of the period, as Polar's customer portal does
  app.delete("/customer-portal/subscriptions/:id", route({
    ...portal, operationId: "customer_portal:subscriptions:cancel",
    responses: { 200: "CustomerSubscription", 403: alreadyCanceled, 404: notFound, 422: validationError },
  }), async (req) =>
    service.updateMySubscription(deps, me(req), pathId(req), { kind: "cancel", cancelAtPeriodEnd: true }),
  );

  app.get("/customer-portal/benefit-grants/", route({
    ...portal, operationId: "customer_portal:benefit-grants:list", query: GrantsQuery,
    responses: { 200: "ListResourceCustomerBenefitGrant", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { items, total } = await service.listMyGrants(deps, me(req), { benefitIds: lower(q.benefit_id), memberIds: lower(q.member_id) }, q.page, q.limit);
    return page(items, total, q.limit);
  });
  app.get("/customer-portal/benefit-grants/:id", route({
    ...portal, operationId: "customer_portal:benefit-grants:get",
    responses: { 200: "CustomerBenefitGrant", 404: notFound, 422: validationError },
  }), async (req) => service.getMyGrant(deps, me(req), pathId(req)));
  app.patch("/customer-portal/benefit-grants/:id", route({
    ...portal, operationId: "customer_portal:benefit-grants:update", body: service.PortalGrantUpdateInput,
    responses: { 200: "CustomerBenefitGrant", 403: notPermitted, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateMyGrant(deps, me(req), id, req.body);
  });

  app.get("/customer-portal/downloadables/", route({
    ...portal, operationId: "customer_portal:downloadables:list", query: GrantsQuery,
    responses: { 200: "ListResourceDownloadableRead", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { items, total } = await service.listMyDownloadables(deps, me(req), lower(q.benefit_id), q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.get("/customer-portal/meters/", route({
    ...portal, operationId: "customer_portal:customer_meters:list", query: MetersQuery,
    responses: { 200: "ListResourceCustomerCustomerMeter", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { items, total } = await service.listMyMeters(deps, me(req), lower(q.meter_id), q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.get("/customer-portal/meters/:id", route({
    ...portal, operationId: "customer_portal:customer_meters:get",
    responses: { 200: "CustomerCustomerMeter", 404: notFound, 422: validationError },
  }), async (req) => service.getMyMeter(deps, me(req), pathId(req)));

  app.get("/customer-portal/license-keys/", route({
    ...portal, operationId: "customer_portal:license_keys:list", query: LicenseKeysQuery,
    responses: { 200: "ListResourceLicenseKeyRead", 401: unauthorized, 404: notFound, 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { items, total } = await service.listMyLicenseKeys(deps, me(req), lower(q.benefit_id), q.page, q.limit);
    return page(items, total, q.limit);
  });
  app.get("/customer-portal/license-keys/:id", route({
    ...portal, operationId: "customer_portal:license_keys:get",
    responses: { 200: "LicenseKeyWithActivations", 404: notFound, 422: validationError },
  }), async (req) => service.getMyLicenseKey(deps, me(req), pathId(req)));
}
