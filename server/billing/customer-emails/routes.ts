// The seller's preview of each customer email: GET /v1/organizations/{id}/email-preview/{type} renders the
// email as the organization's customers get it (its name and logo), on sample data.
import type { FastifyInstance } from "fastify";
import type { BillingDeps } from "../deps.js";
import { pathId } from "../http.js";
import { invalid, notFound } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { getOrganization, visibleOrganizationIds } from "../organizations/service.js";
import { previewEmail } from "./service.js";
import { CUSTOMER_EMAIL_TYPES, isCustomerEmailType } from "./types.js";

export function customerEmailRoutes(app: FastifyInstance, { db, config }: BillingDeps): void {
  app.get("/organizations/:id/email-preview/:type", { config: { scope: "organizations:read", orgOptional: true } }, async (req) => {
    const id = pathId(req);
    if (!(await visibleOrganizationIds(db, scopeOf(req).caller)).includes(id)) throw notFound("Organization not found");
    const { type } = req.params as { type: string };
    if (!isCustomerEmailType(type)) {
      throw invalid(["path", "type"], `Input should be ${CUSTOMER_EMAIL_TYPES.map((t) => `'${t}'`).join(", ")}`, "enum");
    }
    const organization = await getOrganization(db, id);
    const rendered = await previewEmail(organization, type, config.baseURL);
    return { type, ...rendered };
  });
}
