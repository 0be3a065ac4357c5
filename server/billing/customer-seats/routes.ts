// /v1/customer-seats (the seller: customer_seats:read/write; the claim and its info are public, the invitation
// token is the credential) and /v1/customer-portal/seats (the buyer, with a customer session). Polar routes
// these without a trailing slash; the app's router serves both forms.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { isUuid, page, paginationQuery, pathId } from "../http.js";
import { invalid, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { portalAuth, portalOf } from "../customer-portal/routes.js";
import { toCustomerSubscriptionWire } from "../customer-portal/wire.js";
import { getOrganization } from "../organizations/service.js";
import { loadSubscriptionRows } from "../subscriptions/service.js";
import { toWires } from "../subscriptions/load.js";
import * as service from "./service.js";
import { claimSeat, getClaimInfo, SeatClaimInput } from "./claim.js";
import type { SeatOwnerRef } from "./repository.js";
import { route, type V1App } from "../contract.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const SeatsQuery = z.object({ subscription_id: uuid.optional(), order_id: uuid.optional() });
const ClaimedQuery = z.object(paginationQuery);

/** `subscription_id` or `order_id` of a list query, exactly one. */
function ownerRef(q: z.output<typeof SeatsQuery>): SeatOwnerRef {
  if ((q.subscription_id === undefined) === (q.order_id === undefined)) {
    throw invalid(["query", "subscription_id"], "Give exactly one of subscription_id or order_id", "missing");
  }
  return q.subscription_id ? { subscriptionId: q.subscription_id.toLowerCase() } : { orderId: (q.order_id ?? "").toLowerCase() };
}

export function customerSeatRoutes(app: V1App, { db, config }: BillingDeps): void {
  const seller = { kind: "seller" } as const;
  const read = { scope: "customer_seats:read" as const };
  const write = { scope: "customer_seats:write" as const };

  app.get("/customer-seats", route({
    ...read, operationId: "customer-seats:list_seats", query: SeatsQuery,
    responses: { 200: "SeatsList", 422: validationError },
  }), async (req) => service.listSeats(db, scopeOf(req).organizationId, ownerRef(req.query), seller));
  app.post("/customer-seats", route({
    ...write, operationId: "customer-seats:assign_seat", body: service.SeatAssignInput,
    responses: { 200: "CustomerSeat", 422: validationError },
  }), async (req) => service.assignSeat(db, scopeOf(req).organizationId, req.body, seller));
  app.delete("/customer-seats/:seat_id", route({
    ...write, operationId: "customer-seats:revoke_seat", responses: { 200: "CustomerSeat", 422: validationError },
  }), async (req) => service.revokeSeat(db, scopeOf(req).organizationId, pathId(req, "seat_id"), seller));
  app.post("/customer-seats/:seat_id/resend", route({ ...write, operationId: "customer-seats:resend_invitation", responses: { 200: "CustomerSeat", 422: validationError } }), async (req) =>
    service.resendInvitation(db, scopeOf(req).organizationId, pathId(req, "seat_id"), seller),
  );

  // public: whoever holds the invitation's token (the claim page)
  app.get("/customer-seats/claim/:invitation_token", route({
    caller: "client_secret", operationId: "customer-seats:get_claim_info",
    responses: { 200: "SeatClaimInfo", 422: validationError },
  }), async (req) => {
    const token = String((req.params as { invitation_token?: unknown }).invitation_token ?? "");
    return getClaimInfo(db, token.slice(0, 300));
  });
  app.post("/customer-seats/claim", route({
    caller: "client_secret", operationId: "customer-seats:claim_seat", body: SeatClaimInput,
    responses: { 200: "CustomerSeatClaimResponse", 422: validationError },
  }), async (req) => {
    const { invitation_token } = req.body;
    return claimSeat(db, invitation_token);
  });

  // the buyer's side, with a customer session
  const portal = { caller: "customer_session" as const, preHandler: portalAuth(db) };
  const buyer = (req: FastifyRequest) => {
    const p = portalOf(req);
    return { organizationId: p.organizationId, actor: { kind: "customer", customerId: p.customer.id } as const };
  };
  app.get("/customer-portal/seats", route({ ...portal, operationId: "customer_portal:seats:list_seats", query: SeatsQuery, responses: { 200: "SeatsList", 422: validationError } }), async (req) => {
    const b = buyer(req);
    return service.listSeats(db, b.organizationId, ownerRef(req.query), b.actor);
  });
  app.post("/customer-portal/seats", route({
    ...portal, operationId: "customer_portal:seats:assign_seat", body: service.SeatAssignInput,
    responses: { 200: "CustomerSeat", 422: validationError },
  }), async (req) => {
    const b = buyer(req);
    return service.assignSeat(db, b.organizationId, req.body, b.actor);
  });
  app.delete("/customer-portal/seats/:seat_id", route({ ...portal, operationId: "customer_portal:seats:revoke_seat", responses: { 200: "CustomerSeat", 422: validationError } }), async (req) => {
    const b = buyer(req);
    return service.revokeSeat(db, b.organizationId, pathId(req, "seat_id"), b.actor);
  });
  app.post("/customer-portal/seats/:seat_id/resend", route({
    ...portal, operationId: "customer_portal:seats:resend_invitation",
    responses: { 200: "CustomerSeat", 422: validationError },
  }), async (req) => {
    const b = buyer(req);
    return service.resendInvitation(db, b.organizationId, pathId(req, "seat_id"), b.actor);
  });
  // the subscriptions the customer holds a claimed seat of (someone else pays for them)
  app.get("/customer-portal/seats/subscriptions", route({
    ...portal, operationId: "customer_portal:seats:list_claimed_subscriptions", query: ClaimedQuery,
    responses: { 200: "ListResourceCustomerSubscription", 422: validationError },
  }), async (req) => {
    const q = req.query;
    const p = portalOf(req);
    const ids = await service.claimedSubscriptionIds(db, p.organizationId, p.customer.id);
    const rows = await loadSubscriptionRows(db, p.organizationId, ids);
    const ordered = [...rows.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || a.id.localeCompare(b.id));
    const slice = ordered.slice((q.page - 1) * q.limit, q.page * q.limit);
    const [wires, organization] = await Promise.all([toWires(db, p.organizationId, slice, config.baseURL), getOrganization(db, p.organizationId)]);
    return page(wires.map((s) => toCustomerSubscriptionWire(s, s.product, organization)), ordered.length, q.limit);
  });
}
