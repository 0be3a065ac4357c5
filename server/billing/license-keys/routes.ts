// /v1/license-keys: the seller's list, get, update and activation lookup (bearer token), validate / activate /
// deactivate for the seller's server (bearer token), and the same three under /v1/customer-portal/license-keys
// without a token, for software on the customer's machine: the key and its organization's id authenticate.
import type { FastifyContextConfig, FastifyInstance } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { SMALL_BODY_LIMIT } from "../../http/input-guard.js";
import { isUuid, page, paginationQuery, parseBody, parseQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import * as service from "./service.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

const ListQuery = z.object({
  organization_id: queryArray(uuid).optional(),
  benefit_id: queryArray(uuid).optional(),
  customer_id: queryArray(uuid).optional(),
  status: queryArray(z.enum(service.LICENSE_KEY_STATUSES)).optional(),
  ...paginationQuery,
});

const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());

export function licenseKeyRoutes(app: FastifyInstance, { db }: BillingDeps): void {
  app.get("/license-keys/", { config: { scope: "license_keys:read" } }, async (req) => {
    const q = parseQuery(ListQuery, req);
    const { organizationId } = scopeOf(req);
    if (q.organization_id?.length && !q.organization_id.some((id) => id.toLowerCase() === organizationId)) {
      return page([], 0, q.limit);
    }
    const filter = { benefitIds: lower(q.benefit_id), customerIds: lower(q.customer_id), statuses: q.status };
    const { items, total } = await service.listLicenseKeys(db, organizationId, filter, q.page, q.limit);
    return page(items, total, q.limit);
  });

  app.get("/license-keys/:id", { config: { scope: "license_keys:read" } }, async (req) =>
    service.getLicenseKey(db, scopeOf(req).organizationId, pathId(req)),
  );

  app.patch("/license-keys/:id", { config: { scope: "license_keys:write" } }, async (req) => {
    const id = pathId(req);
    return service.updateLicenseKey(db, scopeOf(req).organizationId, id, parseBody(service.LicenseKeyUpdateInput, req));
  });

  app.get("/license-keys/:id/activations/:activation_id", { config: { scope: "license_keys:read" } }, async (req) => {
    const id = pathId(req);
    return service.getActivation(db, scopeOf(req).organizationId, id, pathId(req, "activation_id"));
  });

  // with the seller's token: authenticate() has checked that the body's organization_id is the caller's
  for (const prefix of ["/license-keys", "/customer-portal/license-keys"]) {
    const config: FastifyContextConfig = prefix === "/license-keys" ? { scope: "license_keys:write" } : { public: true };
    // small bodies (a key, ids, two metadata objects): a larger one is a 413 before it is read (input-guard.ts)
    const bodyLimit = SMALL_BODY_LIMIT;
    app.post(`${prefix}/validate`, { config, bodyLimit }, async (req) => service.validateLicenseKey(db, parseBody(service.LicenseKeyValidateInput, req)));
    app.post(`${prefix}/activate`, { config, bodyLimit }, async (req) => service.activateLicenseKey(db, parseBody(service.LicenseKeyActivateInput, req)));
    app.post(`${prefix}/deactivate`, { config, bodyLimit }, async (req, reply) => {
      await service.deactivateLicenseKey(db, parseBody(service.LicenseKeyDeactivateInput, req));
      return reply.status(204).send();
    });
  }
}
