// SQL for benefits. Every function takes the caller's organization id and filters by it; their grants' SQL is
// grants-repository.ts.
import { and, asc, eq, ilike, inArray, not, sql, type SQLWrapper } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inUuids, preparedPerHandle } from "../../db/prepared.js";
import { benefit, productBenefit, type Metadata } from "../../db/schema/index.js";
import { likePattern, metadataWhere, orderBy, type SortKey } from "../listing.js";
import type { BenefitRow } from "./wire.js";

const live = (organizationId: string | SQLWrapper) => and(eq(benefit.organizationId, organizationId), eq(benefit.isDeleted, false));

/** A live (not deleted) benefit of the organization. */
export async function findBenefit(db: Queryable, organizationId: string, id: string): Promise<BenefitRow | null> {
  const rows = await db.select().from(benefit).where(and(live(organizationId), eq(benefit.id, id))).limit(1);
  return rows[0] ?? null;
}

export async function existingBenefitIds(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: benefit.id })
    .from(benefit)
    .where(and(live(organizationId), inArray(benefit.id, ids)));
  return rows.map((r) => r.id);
}

/** Whether the organization has ever made a meter_credit benefit (a deleted one's grants may still credit). */
export async function hasMeterCreditBenefit(db: Queryable, organizationId: string): Promise<boolean> {
  const rows = await db
    .select({ id: benefit.id })
    .from(benefit)
    .where(and(eq(benefit.organizationId, organizationId), eq(benefit.type, "meter_credit")))
    .limit(1);
  return rows.length > 0;
}

/** Whether a live feature_flag benefit of the organization has this id or `metadata.key`. */
export async function featureFlagExists(db: Queryable, organizationId: string, feature: string, id: string | null): Promise<boolean> {
  const named = sql`${benefit.metadata} ->> 'key' = ${feature}`;
  const rows = await db
    .select({ id: benefit.id })
    .from(benefit)
    .where(and(live(organizationId), eq(benefit.type, "feature_flag"), id ? sql`(${benefit.id} = ${id} OR ${named})` : named))
    .limit(1);
  return rows.length > 0;
}

/** Live benefits attached to the products, in the product's order. */
/** Prepared: every product read embeds its benefits. */
const benefitsOfProductsQuery = preparedPerHandle((db) =>
  db
    .select({ productId: productBenefit.productId, benefit })
    .from(productBenefit)
    .innerJoin(benefit, eq(benefit.id, productBenefit.benefitId))
    .where(and(live(sql.placeholder("organizationId")), inUuids(productBenefit.productId, "productIds")))
    .orderBy(asc(productBenefit.position), asc(benefit.createdAt), asc(benefit.id))
    .prepare("benefits_of_products"),
);

export async function benefitsOfProducts(db: Queryable, organizationId: string, productIds: string[]) {
  if (productIds.length === 0) return [];
  return benefitsOfProductsQuery(db).execute({ organizationId, productIds });
}

export type BenefitSort = "created_at" | "description" | "type" | "user_order";

export interface BenefitFilter {
  types?: string[] | undefined;
  ids?: string[] | undefined;
  excludeIds?: string[] | undefined;
  query?: string | undefined;
  metadata?: Record<string, string[]> | undefined;
}

export async function listBenefits(
  db: Queryable,
  organizationId: string,
  filter: BenefitFilter,
  sorting: Array<SortKey<BenefitSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: BenefitRow[]; total: number }> {
  const where = and(
    live(organizationId),
    filter.types?.length ? inArray(benefit.type, filter.types) : undefined,
    filter.ids?.length ? inArray(benefit.id, filter.ids) : undefined,
    filter.excludeIds?.length ? not(inArray(benefit.id, filter.excludeIds)) : undefined,
    filter.query ? ilike(benefit.description, likePattern(filter.query)) : undefined,
    ...metadataWhere(benefit.metadata, filter.metadata),
  );
  // user_order is the seller's manual order in Polar's dashboard; till has none, so it falls back to creation
  const columns = { created_at: benefit.createdAt, description: benefit.description, type: benefit.type, user_order: benefit.createdAt };
  const [rows, count] = await Promise.all([
    db
      .select()
      .from(benefit)
      .where(where)
      .orderBy(...orderBy(sorting, columns, benefit.id))
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(benefit).where(where),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

export async function insertBenefit(
  db: Queryable,
  values: {
    organizationId: string;
    type: string;
    description: string;
    properties: Record<string, unknown>;
    metadata: Metadata;
  },
): Promise<BenefitRow> {
  const rows = await db.insert(benefit).values(values).returning();
  const row = rows[0];
  if (!row) throw new Error("insert benefit returned no row");
  return row;
}

export async function updateBenefit(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Pick<BenefitRow, "description" | "properties" | "metadata" | "isDeleted">>,
): Promise<BenefitRow | null> {
  const rows = await db
    .update(benefit)
    .set({ ...patch, modifiedAt: new Date() })
    .where(and(eq(benefit.organizationId, organizationId), eq(benefit.id, id)))
    .returning();
  return rows[0] ?? null;
}
