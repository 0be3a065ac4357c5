// SQL for discounts and their product restrictions. Every function takes the caller's organization id and
// filters by it; discount_product rows are reached only through a discount of that organization.
import { and, asc, eq, ilike, inArray, isNull, ne, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { discount, discountProduct } from "../../db/schema/index.js";
import { likePattern, type SortKey } from "../listing.js";
import type { DiscountRow } from "./wire.js";

const live = (organizationId: string) => and(eq(discount.organizationId, organizationId), isNull(discount.deletedAt));

export async function findDiscount(db: Queryable, organizationId: string, id: string): Promise<DiscountRow | null> {
  const rows = await db.select().from(discount).where(and(live(organizationId), eq(discount.id, id))).limit(1);
  return rows[0] ?? null;
}

/** Whether a live discount of the organization has this code (case-insensitively), other than `exceptId`. */
export async function codeTaken(db: Queryable, organizationId: string, code: string, exceptId?: string): Promise<boolean> {
  const rows = await db
    .select({ id: discount.id })
    .from(discount)
    .where(
      and(
        live(organizationId),
        sql`lower(${discount.code}) = lower(${code})`,
        exceptId ? ne(discount.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  return rows.length > 0;
}

export type DiscountSort = "created_at" | "name" | "code" | "redemptions_count" | "ends_at";

export async function listDiscounts(
  db: Queryable,
  organizationId: string,
  filter: { query?: string | undefined },
  sorting: Array<SortKey<DiscountSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: DiscountRow[]; total: number }> {
  const where = and(
    live(organizationId),
    filter.query ? or(ilike(discount.name, likePattern(filter.query)), ilike(discount.code, likePattern(filter.query))) : undefined,
  );
  const columns = {
    created_at: discount.createdAt,
    name: discount.name,
    code: discount.code,
    redemptions_count: discount.redemptionsCount,
    ends_at: discount.endsAt,
  };
  const order = [
    ...sorting.map((s) => sql`${columns[s.key]} ${sql.raw(s.desc ? "desc" : "asc")} nulls last`),
    asc(discount.id),
  ];
  const [rows, count] = await Promise.all([
    db
      .select()
      .from(discount)
      .where(where)
      .orderBy(...order)
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(discount).where(where),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

export type DiscountValues = Omit<typeof discount.$inferInsert, "id" | "createdAt" | "modifiedAt" | "deletedAt" | "redemptionsCount">;

export async function insertDiscount(db: Queryable, values: DiscountValues): Promise<DiscountRow> {
  const rows = await db.insert(discount).values(values).returning();
  const row = rows[0];
  if (!row) throw new Error("insert discount returned no row");
  return row;
}

export async function updateDiscount(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Omit<DiscountValues, "organizationId">> & { deletedAt?: Date },
): Promise<DiscountRow | null> {
  const rows = await db
    .update(discount)
    .set({ ...patch, modifiedAt: new Date() })
    .where(and(live(organizationId), eq(discount.id, id)))
    .returning();
  return rows[0] ?? null;
}

/** The product ids each discount is restricted to. */
export async function productIdsOf(db: Queryable, organizationId: string, discountIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(discountIds.map((id) => [id, []]));
  if (discountIds.length === 0) return out;
  const rows = await db
    .select({ discountId: discountProduct.discountId, productId: discountProduct.productId })
    .from(discountProduct)
    .innerJoin(discount, eq(discount.id, discountProduct.discountId))
    .where(and(eq(discount.organizationId, organizationId), inArray(discountProduct.discountId, discountIds)));
  for (const r of rows) out.get(r.discountId)?.push(r.productId);
  return out;
}

/** Replaces the product restrictions of a discount the caller has already found in its organization. */
export async function replaceProducts(db: Queryable, discountId: string, productIds: string[]): Promise<void> {
  await db.delete(discountProduct).where(eq(discountProduct.discountId, discountId));
  if (productIds.length > 0) {
    await db.insert(discountProduct).values(productIds.map((productId) => ({ discountId, productId })));
  }
}

/** A live discount of the organization by code (case-insensitively). */
export async function findDiscountByCode(db: Queryable, organizationId: string, code: string): Promise<DiscountRow | null> {
  const rows = await db
    .select()
    .from(discount)
    .where(and(live(organizationId), sql`lower(${discount.code}) = lower(${code})`))
    .limit(1);
  return rows[0] ?? null;
}

/** Discounts by id, soft-deleted ones included (orders and subscriptions keep showing theirs). */
export async function findDiscountsByIds(db: Queryable, organizationId: string, ids: string[]): Promise<DiscountRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(discount)
    .where(and(eq(discount.organizationId, organizationId), inArray(discount.id, ids)));
}

/**
 * Counts one redemption if the discount is redeemable now — live, inside its window, under its limit —
 * in one conditional UPDATE, so concurrent redemptions can never exceed max_redemptions.
 */
export async function redeem(db: Queryable, organizationId: string, id: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(discount)
    .set({ redemptionsCount: sql`${discount.redemptionsCount} + 1` })
    .where(
      and(
        live(organizationId),
        eq(discount.id, id),
        sql`(${discount.maxRedemptions} IS NULL OR ${discount.redemptionsCount} < ${discount.maxRedemptions})`,
        sql`(${discount.startsAt} IS NULL OR ${discount.startsAt} <= ${now.toISOString()}::timestamptz)`,
        sql`(${discount.endsAt} IS NULL OR ${discount.endsAt} > ${now.toISOString()}::timestamptz)`,
      ),
    )
    .returning({ id: discount.id });
  return rows.length > 0;
}
