// SQL for organizations: better-auth's organization row joined with its billing settings.
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inUuids, preparedPerHandle } from "../../db/prepared.js";
import { billingOrganization, member, organization, organizationSandbox, user } from "../../db/schema/index.js";
import type { BillingOrganizationRow, OrganizationRow } from "./wire.js";

/** Read on every checkout page and confirm (the seller's name, slug and settings): one prepared statement. */
const byId = preparedPerHandle((db) =>
  db
    .select({ org: organization, billing: billingOrganization })
    .from(organization)
    .leftJoin(billingOrganization, eq(billingOrganization.organizationId, organization.id))
    .where(eq(organization.id, sql.placeholder("id")))
    .limit(1)
    .prepare("organization_by_id"),
);

export async function findOrganization(
  db: Queryable,
  organizationId: string,
): Promise<{ org: OrganizationRow; billing: BillingOrganizationRow | undefined } | null> {
  const rows = await byId(db).execute({ id: organizationId });
  const row = rows[0];
  return row ? { org: row.org, billing: row.billing ?? undefined } : null;
}

const slugFilter = sql`(${sql.placeholder("slug")}::text IS NULL OR ${organization.slug} = ${sql.placeholder("slug")})`;

/**
 * A page of organizations with the total beside each row (`count(*) over ()`), one prepared statement per
 * kind of caller: a user's (those they are a member of) and an API key's (its own).
 */
function listQuery(db: Queryable, visible: SQL, name: string) {
  return db
    .select({ org: organization, billing: billingOrganization, total: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(organization)
    .leftJoin(billingOrganization, eq(billingOrganization.organizationId, organization.id))
    .where(and(visible, slugFilter))
    .orderBy(organization.createdAt, organization.id)
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare(name);
}

const listOfMember = preparedPerHandle((db) =>
  listQuery(
    db,
    inArray(organization.id, db.select({ id: member.organizationId }).from(member).where(eq(member.userId, sql.placeholder("userId")))),
    "organizations_of_member",
  ),
);

const listOfKey = preparedPerHandle((db) => listQuery(db, eq(organization.id, sql.placeholder("organizationId")), "organizations_of_key"));

const listOfIds = preparedPerHandle((db) => listQuery(db, inUuids(organization.id, "ids"), "organizations_of_ids"));

/** Who sees which organizations: a key its own, a user those they are a member of, or these (sandbox twins). */
export type OrganizationOwner = { userId: string } | { organizationId: string } | { organizationIds: string[] };

/** Organizations the caller may see: its own (API key) or those the user is a member of (session). */
export async function listOrganizations(
  db: Queryable,
  owner: OrganizationOwner,
  filter: { slug?: string | undefined },
  pageNo: number,
  limit: number,
) {
  const params = { slug: filter.slug ?? null, limit, offset: (pageNo - 1) * limit };
  const rows =
    "userId" in owner
      ? await listOfMember(db).execute({ ...params, userId: owner.userId })
      : "organizationIds" in owner
        ? await listOfIds(db).execute({ ...params, ids: owner.organizationIds })
        : await listOfKey(db).execute({ ...params, organizationId: owner.organizationId });
  // past the last page there is no row to carry the total: count apart (rare)
  const total = rows[0]?.total ?? (pageNo > 1 ? await countOrganizations(db, owner, filter) : 0);
  return { rows: rows.map((r) => ({ org: r.org, billing: r.billing ?? undefined })), total };
}

async function countOrganizations(db: Queryable, owner: OrganizationOwner, filter: { slug?: string | undefined }) {
  const visible =
    "userId" in owner
      ? inArray(organization.id, db.select({ id: member.organizationId }).from(member).where(eq(member.userId, owner.userId)))
      : "organizationIds" in owner
        ? inArray(organization.id, owner.organizationIds)
        : eq(organization.id, owner.organizationId);
  const [count] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(organization)
    .where(and(visible, filter.slug ? eq(organization.slug, filter.slug) : undefined));
  return count?.n ?? 0;
}

const memberOrganizations = preparedPerHandle((db) =>
  db.select({ id: member.organizationId }).from(member).where(eq(member.userId, sql.placeholder("userId"))).prepare("member_organization_ids"),
);

export async function memberOrganizationIds(db: Queryable, userId: string): Promise<string[]> {
  const rows = await memberOrganizations(db).execute({ userId });
  return rows.map((r) => r.id);
}

export async function slugTaken(db: Queryable, slug: string, exceptId: string): Promise<boolean> {
  const rows = await db
    .select({ id: organization.id })
    .from(organization)
    .where(and(eq(organization.slug, slug), sql`${organization.id} <> ${exceptId}`))
    .limit(1);
  return rows.length > 0;
}

export async function updateOrganizationRow(
  db: Queryable,
  organizationId: string,
  patch: Partial<Pick<OrganizationRow, "name" | "slug" | "logo">>,
): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await db.update(organization).set(patch).where(eq(organization.id, organizationId));
}

export async function upsertBillingSettings(
  db: Queryable,
  organizationId: string,
  values: Omit<Partial<BillingOrganizationRow>, "organizationId">,
): Promise<void> {
  await db
    .insert(billingOrganization)
    .values({ organizationId, ...values })
    .onConflictDoUpdate({ target: billingOrganization.organizationId, set: values });
}

// ---- sandbox twins (sandbox.ts) -------------------------------------------------------------------

const twinOf = preparedPerHandle((db) =>
  db
    .select({ id: organizationSandbox.organizationId })
    .from(organizationSandbox)
    .where(eq(organizationSandbox.liveOrganizationId, sql.placeholder("id")))
    .prepare("organization_sandbox_of"),
);

const liveOf = preparedPerHandle((db) =>
  db
    .select({ id: organizationSandbox.liveOrganizationId })
    .from(organizationSandbox)
    .where(eq(organizationSandbox.organizationId, sql.placeholder("id")))
    .prepare("organization_live_of"),
);

/** The sandbox twin of a live organization, if it was made. */
export async function sandboxOf(db: Queryable, liveOrganizationId: string): Promise<string | null> {
  const [row] = await twinOf(db).execute({ id: liveOrganizationId });
  return row?.id ?? null;
}

/** The live organization of a sandbox twin (null for any other organization). */
export async function liveOrganizationOf(db: Queryable, organizationId: string): Promise<string | null> {
  const [row] = await liveOf(db).execute({ id: organizationId });
  return row?.id ?? null;
}

/** The organization's row, locked until the transaction ends (two first uses of a sandbox make one twin). */
export async function lockOrganization(tx: Queryable, organizationId: string): Promise<OrganizationRow | null> {
  const [row] = await tx.select().from(organization).where(eq(organization.id, organizationId)).for("update");
  return row ?? null;
}

/** Inserts an organization row unless its slug is taken (then null). */
export async function insertOrganizationUnlessSlugTaken(tx: Queryable, row: OrganizationRow): Promise<string | null> {
  const [inserted] = await tx
    .insert(organization)
    .values(row)
    .onConflictDoNothing({ target: organization.slug })
    .returning({ id: organization.id });
  return inserted?.id ?? null;
}

export async function linkSandbox(tx: Queryable, sandboxId: string, liveOrganizationId: string): Promise<void> {
  await tx.insert(organizationSandbox).values({ organizationId: sandboxId, liveOrganizationId });
}

/** The twins of the organizations a user is a member of (those made so far). */
export async function sandboxesOfMember(db: Queryable, userId: string): Promise<Array<{ live: string; sandbox: string | null }>> {
  const rows = await db
    .select({ live: member.organizationId, sandbox: organizationSandbox.organizationId })
    .from(member)
    .leftJoin(organizationSandbox, eq(organizationSandbox.liveOrganizationId, member.organizationId))
    .where(eq(member.userId, userId));
  return rows;
}

/** A copy of one organization's billing settings for another (none when it has none yet). */
export async function copyBillingSettings(tx: Queryable, fromId: string, toId: string): Promise<void> {
  const [row] = await tx.select().from(billingOrganization).where(eq(billingOrganization.organizationId, fromId));
  if (!row) return;
  await tx.insert(billingOrganization).values({ ...row, organizationId: toId, modifiedAt: null });
}

/** The emails of the organization's owners (a sandbox twin has no members: its live organization's owners). */
export async function ownerEmails(db: Queryable, organizationId: string): Promise<string[]> {
  const liveOf = db
    .select({ id: organizationSandbox.liveOrganizationId })
    .from(organizationSandbox)
    .where(eq(organizationSandbox.organizationId, organizationId));
  const rows = await db
    .select({ email: user.email, role: member.role })
    .from(member)
    .innerJoin(user, eq(user.id, member.userId))
    .where(eq(member.organizationId, sql`coalesce((${liveOf}), ${organizationId}::uuid)`));
  return rows.filter((r) => r.role.split(",").map((s) => s.trim()).includes("owner")).map((r) => r.email);
}

// ---- the platform admins' review (review.ts) ---------------------------------------------------------

/**
 * A page of live organizations (never a sandbox twin) for platform admins, optionally of one status; oldest submission
 * first.
 */
export async function listForReview(db: Queryable, status: string | undefined, pageNo: number, limit: number) {
  const live = sql`NOT EXISTS (SELECT 1 FROM ${organizationSandbox} WHERE ${organizationSandbox.organizationId} = ${organization.id})`;
  const ofStatus = status ? sql`coalesce(${billingOrganization.status}, 'created') = ${status}` : undefined;
  const rows = await db
    .select({ org: organization, billing: billingOrganization, total: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(organization)
    .leftJoin(billingOrganization, eq(billingOrganization.organizationId, organization.id))
    .where(and(live, ofStatus))
    .orderBy(sql`${billingOrganization.detailsSubmittedAt} ASC NULLS LAST`, organization.createdAt, organization.id)
    .limit(limit)
    .offset((pageNo - 1) * limit);
  return { rows: rows.map((r) => ({ org: r.org, billing: r.billing ?? undefined })), total: rows[0]?.total ?? 0 };
}

/** The user's platform roles (comma-separated), or null when there is no such user. */
export async function userRole(db: Queryable, userId: string): Promise<string | null> {
  const [row] = await db.select({ role: user.role }).from(user).where(eq(user.id, userId)).limit(1);
  return row ? (row.role ?? "") : null;
}
