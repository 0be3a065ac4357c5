// The platform admins' review of organizations' submitted details (TILL_ORG_REVIEW=required): the queue, an
// approval (the organization goes live once Stripe is connected too) and a denial with its reason, which the
// seller reads in `till orgs status` and the settings page and answers by submitting again. Who is a platform
// admin: a user with the admin role (better-auth's admin plugin, the seed's) or one of TILL_ADMIN_USER_IDS.
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { notFound } from "../errors.js";
import { notUnderReview } from "./errors.js";
import { paginationQuery } from "../http.js";
import * as repo from "./repository.js";
import { ORGANIZATION_STATUSES, moveStatus, storedStatus, type StatusPolicy } from "./status.js";
import { invoiceDetailsOf } from "../settings/invoices.js";
import { storedDetails, type BillingOrganizationRow, type OrganizationRow } from "./wire.js";

export const ReviewListQuery = z.object({ status: z.enum(ORGANIZATION_STATUSES).optional(), ...paginationQuery });

export const DenyInput = z.object({ reason: z.string().trim().min(1, "Say why, for the seller to read").max(1000) }).strict();

/** Whether the user is a platform admin: the admin role among theirs, or listed in TILL_ADMIN_USER_IDS. */
export async function isPlatformAdmin(db: Queryable, adminUserIds: readonly string[], userId: string): Promise<boolean> {
  if (adminUserIds.includes(userId)) return true;
  const role = await repo.userRole(db, userId);
  return (role ?? "").split(",").map((r) => r.trim()).includes("admin");
}

/** An organization as a platform admin reviews it: what the seller submitted, their legal details, their owners. */
async function reviewWire(db: Queryable, org: OrganizationRow, billing: BillingOrganizationRow | undefined) {
  return {
    id: org.id,
    name: org.name,
    slug: org.slug,
    created_at: org.createdAt.toISOString(),
    status: storedStatus(billing),
    details_submitted_at: billing?.detailsSubmittedAt?.toISOString() ?? null,
    details: storedDetails(billing).submitted ?? null,
    invoice_details: invoiceDetailsOf(billing?.details),
    review: { status: billing?.reviewStatus ?? null, reason: billing?.reviewReason ?? null, reviewed_at: billing?.reviewedAt?.toISOString() ?? null },
    owners: await repo.ownerEmails(db, org.id),
  };
}
export type ReviewWire = Awaited<ReturnType<typeof reviewWire>>;

export async function listForReview(db: Db, query: z.output<typeof ReviewListQuery>) {
  const { rows, total } = await repo.listForReview(db, query.status, query.page, query.limit);
  return { items: await Promise.all(rows.map((r) => reviewWire(db, r.org, r.billing))), total };
}


/**
 * Approves or denies the organization's submitted details, in one transaction with its status's move and
 * organization.updated. Deciding again as before changes nothing (a retry); approving a denied organization is a
 * change of mind and allowed; denying an approved one is not (its details are no longer waiting).
 */
export async function decideReview(db: Db, organizationId: string, decision: { approve: true } | { approve: false; reason: string }, policy: StatusPolicy): Promise<ReviewWire> {
  return db.transaction(async (tx) => {
    const org = await repo.lockOrganization(tx, organizationId);
    const found = org && !(await repo.liveOrganizationOf(tx, organizationId)) ? await repo.findOrganization(tx, organizationId) : null;
    if (!found) throw notFound("Organization not found");
    const review = found.billing?.reviewStatus ?? null;
    const next = decision.approve ? "approved" : "denied";
    const reason = decision.approve ? null : decision.reason;
    const same = review === next && (found.billing?.reviewReason ?? null) === reason;
    if (!same) {
      if (review === null) throw notUnderReview(`${found.org.slug} has not submitted its details for review (status ${storedStatus(found.billing)}): there is nothing to decide.`);
      if (review === "approved") throw notUnderReview(`${found.org.slug}'s details were approved already: there is nothing to ${decision.approve ? "approve" : "deny"}.`);
      await repo.upsertBillingSettings(tx, organizationId, { reviewStatus: next, reviewReason: reason, reviewedAt: new Date(), modifiedAt: new Date() });
      await moveStatus(tx, organizationId, policy);
    }
    const updated = await repo.findOrganization(tx, organizationId);
    if (!updated) throw notFound("Organization not found");
    return reviewWire(tx, updated.org, updated.billing);
  });
}
