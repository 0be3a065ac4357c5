// The seller's preview of each customer email: GET /v1/organizations/{id}/email-preview/{type} renders the
// email as the organization's customers get it (its name and logo), on sample data.
import type { BillingDeps } from "../deps.js";
import { pathId } from "../http.js";
import { invalid, notFound, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { getOrganization, visibleOrganizationIds } from "../organizations/service.js";
import { previewEmail } from "./service.js";
import { CUSTOMER_EMAIL_TYPES, isCustomerEmailType } from "./types.js";
import { route, type V1App } from "../contract.js";
import { z } from "zod";

/** A customer email rendered on sample data. */
const EmailPreview = z.object({ type: z.enum(CUSTOMER_EMAIL_TYPES), subject: z.string(), html: z.string(), text: z.string(), link: z.string().optional() });

export function customerEmailRoutes(app: V1App, { db, config }: BillingDeps): void {
  app.get("/organizations/:id/email-preview/:type", route({
    scope: "organizations:read", orgOptional: true, operationId: "till:organizations:email_preview",
    responses: { 200: EmailPreview, 404: notFound, 422: validationError },
  }), async (req) => {
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
