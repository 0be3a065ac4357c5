// /v1/admin/organizations (till's own): the platform admins' review queue, approve and deny. A platform admin's
// session only (review.ts isPlatformAdmin); an organization's API key or anyone else's session gets 403, and an
// organization that is not there (or is a sandbox twin) 404.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { page, pathId } from "../http.js";
import { notFound, notPermitted, unauthorized, validationError } from "../errors.js";
import { notUnderReview } from "./errors.js";
import { route, type V1App } from "../contract.js";
import { statusPolicy } from "./status.js";
import { decideReview, DenyInput, isPlatformAdmin, listForReview, ReviewListQuery } from "./review.js";

const ReviewOrganization = z.looseObject({ id: z.string(), slug: z.string(), status: z.string(), review: z.looseObject({ status: z.string().nullable() }) });
const ReviewList = z.object({ items: z.array(ReviewOrganization), pagination: z.object({ total_count: z.number(), max_page: z.number() }) });

export function adminRoutes(app: V1App, { db, config, callers }: BillingDeps): void {
  const policy = statusPolicy(config);

  /** The route's own authentication (caller kind platform_admin): a session whose user is a platform admin. */
  async function platformAdmin(req: FastifyRequest): Promise<void> {
    const result = await callers.resolve(req.headers.authorization);
    if (!result.ok) {
      if (result.error.status === 401) throw unauthorized("Sign in as a platform admin (till login).");
      throw notPermitted("Only a platform admin may review organizations.");
    }
    const user = result.caller.kind === "session" ? result.caller.user : null;
    if (!user) throw notPermitted("An organization's API key cannot review organizations: sign in as a platform admin (till login).");
    if (!(await isPlatformAdmin(db, config.adminUserIds, user.id))) {
      throw notPermitted("Only a platform admin (the admin role, or a user id in TILL_ADMIN_USER_IDS) may review organizations.");
    }
  }
  const admin = { caller: "platform_admin" as const, preHandler: platformAdmin };

  app.get("/admin/organizations/", route({
    ...admin, operationId: "till:admin:organizations:list", query: ReviewListQuery,
    responses: { 200: ReviewList, 401: unauthorized, 403: notPermitted, 422: validationError },
  }), async (req) => {
    const { items, total } = await listForReview(db, req.query);
    return page(items, total, req.query.limit);
  });

  app.post("/admin/organizations/:id/approve", route({
    ...admin, operationId: "till:admin:organizations:approve",
    responses: { 200: ReviewOrganization, 403: notPermitted, 404: notFound, 409: notUnderReview, 422: validationError },
  }), async (req) =>
    decideReview(db, pathId(req), { approve: true }, policy),
  );

  app.post("/admin/organizations/:id/deny", route({
    ...admin, operationId: "till:admin:organizations:deny", body: DenyInput,
    responses: { 200: ReviewOrganization, 403: notPermitted, 404: notFound, 409: notUnderReview, 422: validationError },
  }), async (req) =>
    decideReview(db, pathId(req), { approve: false, reason: req.body.reason }, policy),
  );
}
