// /v1/license-keys: the seller's list, get, update and activation lookup (bearer token), validate / activate /
// deactivate for the seller's server (bearer token), and the same three under /v1/customer-portal/license-keys
// without a token, for software on the customer's machine: the key and its organization's id authenticate.
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { SMALL_BODY_LIMIT } from "../../http/input-guard.js";
import { isUuid, page, paginationQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import * as service from "./service.js";
import { route, type V1App } from "../contract.js";
import { notFound, notPermitted, unauthorized, validationError } from "../errors.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  benefit_id: queryArray(uuid).optional(),
  customer_id: queryArray(uuid).optional(),
  status: queryArray(z.enum(service.LICENSE_KEY_STATUSES)).optional(),
  ...paginationQuery,
});

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

export function licenseKeyRoutes(app: V1App, { db }: BillingDeps): void {
  app.get("/license-keys/", route({
    scope: "license_keys:read", operationId: "license_keys:list", query: ListQuery,
    responses: { 200: "ListResourceLicenseKeyRead", 401: unauthorized, 404: notFound, 422: validationError },
  }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const filter = { benefitIds: lower(q.benefit_id), customerIds: lower(q.customer_id), statuses: q.status };
    const { items, total } = await service.listLicenseKeys(db, organizationId, filter, q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.get("/license-keys/:id", route({
    scope: "license_keys:read", operationId: "license_keys:get",
    responses: { 200: "LicenseKeyWithActivations", 401: unauthorized, 404: notFound, 422: validationError },
  }), async (req) =>
    service.getLicenseKey(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/license-keys/:id", route({
    scope: "license_keys:write", operationId: "license_keys:update", body: service.LicenseKeyUpdateInput,
    responses: { 200: "LicenseKeyRead", 401: unauthorized, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.updateLicenseKey(db, scopeOf(req).organizationId, id, req.body);
  });

  app.get("/license-keys/:id/activations/:activation_id", route({
    scope: "license_keys:read", operationId: "license_keys:get_activation",
    responses: { 200: "LicenseKeyActivationRead", 401: unauthorized, 404: notFound, 422: validationError },
  }), async (req) => {
    const id = pathId(req);
    return service.getActivation(db, scopeOf(req).organizationId, id, pathId(req, "activation_id"));
  });

  // with the seller's token: authenticate() has checked that the body's organization_id is the caller's
  for (const prefix of ["/license-keys", "/customer-portal/license-keys"]) {
    const seller = prefix === "/license-keys";
    const caller = seller ? { scope: "license_keys:write" as const } : { caller: "client_secret" as const };
    const id = (verb: string) => (seller ? `license_keys:${verb}` : `customer_portal:license_keys:${verb}`);
    // small bodies (a key, ids, two metadata objects): a larger one is a 413 before it is read (input-guard.ts)
    const bodyLimit = SMALL_BODY_LIMIT;
    const validate = route({
      ...caller, bodyLimit, operationId: id("validate"), body: service.LicenseKeyValidateInput,
      responses: { 200: "ValidatedLicenseKey", 404: notFound, 422: validationError },
    });
    app.post(`${prefix}/validate`, validate, async (req) => service.validateLicenseKey(db, req.body));
    const activate = route({
      ...caller, bodyLimit, operationId: id("activate"), body: service.LicenseKeyActivateInput,
      responses: { 200: "LicenseKeyActivationRead", 403: notPermitted, 404: notFound, 422: validationError },
    });
    app.post(`${prefix}/activate`, activate, async (req) => service.activateLicenseKey(db, req.body));
    const deactivate = route({ ...caller, bodyLimit, operationId: id("deactivate"), body: service.LicenseKeyDeactivateInput, responses: { 204: null, 404: notFound, 422: validationError } });
    app.post(`${prefix}/deactivate`, deactivate, async (req, reply) => {
      await service.deactivateLicenseKey(db, req.body);
      return reply.status(204).send();
    });
  }
}
