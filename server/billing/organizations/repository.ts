// SQL for organizations: better-auth's organization row joined with its billing settings.
import { and, eq, inArray, sql } from "drizzle-orm";
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

/** Organizations the caller may see: its own (API key) or those the user is a member of (session). */
export async function listOrganizations(
  db: Queryable,
  ids: string[],
  filter: { slug?: string | undefined },
  pageNo: number,
  limit: number,
) {
  if (ids.length === 0) return { rows: [], total: 0 };
  const where = and(inArray(organization.id, ids), filter.slug ? eq(organization.slug, filter.slug) : undefined);
  const [rows, count] = await Promise.all([
    db
      .select({ org: organization, billing: billingOrganization })
      .from(organization)
      .leftJoin(billingOrganization, eq(billingOrganization.organizationId, organization.id))
      .where(where)
      .orderBy(organization.createdAt, organization.id)
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(organization).where(where),
  ]);
  return { rows: rows.map((r) => ({ org: r.org, billing: r.billing ?? undefined })), total: count[0]?.n ?? 0 };
}

export async function memberOrganizationIds(db: Queryable, userId: string): Promise<string[]> {
  const rows = await db.select({ id: member.organizationId }).from(member).where(eq(member.userId, userId));
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
