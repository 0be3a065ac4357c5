// /v1/entitlements/check and /v1/reservations (till's own API; no Polar counterpart, so no SDK method). A check
// only reads (scope entitlements:read, which customers:read implies); reservations record usage (entitlements:write,
// which events:write implies).
import type { BillingDeps } from "../deps.js";
import { pathId } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";
import { reservationRefused, reservationSettled } from "./errors.js";
import { commitReservation, createReservation, getReservation, releaseReservation } from "./reservations.js";
import { checkEntitlement } from "./service.js";
import { EntitlementCheck, EntitlementCheckInput, Reservation, ReservationCommitInput, ReservationCreateInput } from "./wire.js";

export function entitlementRoutes(app: V1App, { db }: BillingDeps): void {
  const check = route({
    scope: "entitlements:read",
    operationId: "till:entitlements:check",
    body: EntitlementCheckInput,
    responses: { 200: EntitlementCheck, 422: validationError },
  });
  app.post("/entitlements/check", check, async (req) => checkEntitlement(db, scopeOf(req).organizationId, req.body));

  const create = route({
    scope: "entitlements:write",
    operationId: "till:reservations:create",
    body: ReservationCreateInput,
    responses: { 201: Reservation, 409: reservationRefused, 422: validationError },
  });
  app.post("/reservations/", create, async (req, reply) => reply.status(201).send(await createReservation(db, scopeOf(req).organizationId, req.body)));

  const get = route({
    scope: "entitlements:read",
    operationId: "till:reservations:get",
    responses: { 200: Reservation, 404: notFound, 422: validationError },
  });
  app.get("/reservations/:id", get, async (req) => getReservation(db, scopeOf(req).organizationId, pathId(req)));

  const commit = route({
    scope: "entitlements:write",
    operationId: "till:reservations:commit",
    body: ReservationCommitInput,
    responses: { 200: Reservation, 404: notFound, 409: reservationSettled, 422: validationError },
  });
  app.post("/reservations/:id/commit", commit, async (req) => commitReservation(db, scopeOf(req).organizationId, pathId(req), req.body, req.log));

  const release = route({
    scope: "entitlements:write",
    operationId: "till:reservations:release",
    responses: { 200: Reservation, 404: notFound, 409: reservationSettled, 422: validationError },
  });
  app.post("/reservations/:id/release", release, async (req) => releaseReservation(db, scopeOf(req).organizationId, pathId(req)));
}
