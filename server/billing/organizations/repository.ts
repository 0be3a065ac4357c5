// SQL for organizations: better-auth's organization row joined with its billing settings.
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { preparedPerHandle } from "../../db/prepared.js";
import { billingOrganization, member, organization } from "../../db/schema/index.js";
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

/** Organizations the caller may see: its own (API key) or those the user is a member of (session). */
export async function listOrganizations(
  db: Queryable,
  owner: { userId: string } | { organizationId: string },
  filter: { slug?: string | undefined },
  pageNo: number,
  limit: number,
) {
  const params = { slug: filter.slug ?? null, limit, offset: (pageNo - 1) * limit };
  const rows =
    "userId" in owner
      ? await listOfMember(db).execute({ ...params, userId: owner.userId })
      : await listOfKey(db).execute({ ...params, organizationId: owner.organizationId });
  // past the last page there is no row to carry the total: count apart (rare)
  const total = rows[0]?.total ?? (pageNo > 1 ? await countOrganizations(db, owner, filter) : 0);
  return { rows: rows.map((r) => ({ org: r.org, billing: r.billing ?? undefined })), total };
}

async function countOrganizations(db: Queryable, owner: { userId: string } | { organizationId: string }, filter: { slug?: string | undefined }) {
  const visible =
    "userId" in owner
      ? inArray(organization.id, db.select({ id: member.organizationId }).from(member).where(eq(member.userId, owner.userId)))
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
