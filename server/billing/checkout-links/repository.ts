// SQL for checkout links. Every seller-side function takes the caller's organization id and filters by it;
// the redirect finds a link by its client secret alone (the secret is the credential). Deleted links are
// soft-deleted and never found.
import { and, arrayOverlaps, asc, eq, isNull, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { checkoutLink } from "../../db/schema/index.js";
import type { SortKey } from "../listing.js";
import type { CheckoutLinkRow } from "./wire.js";

export type CheckoutLinkSort = "created_at" | "label" | "success_url" | "allow_discount_codes";
export type CheckoutLinkValues = Omit<typeof checkoutLink.$inferInsert, "id" | "createdAt" | "modifiedAt" | "deletedAt">;

const live = (organizationId: string) => and(eq(checkoutLink.organizationId, organizationId), isNull(checkoutLink.deletedAt));

export async function findCheckoutLink(db: Queryable, organizationId: string, id: string): Promise<CheckoutLinkRow | null> {
  const rows = await db.select().from(checkoutLink).where(and(live(organizationId), eq(checkoutLink.id, id))).limit(1);
  return rows[0] ?? null;
}

export async function findBySecret(db: Queryable, clientSecret: string): Promise<CheckoutLinkRow | null> {
  const rows = await db
    .select()
    .from(checkoutLink)
    .where(and(eq(checkoutLink.clientSecret, clientSecret), isNull(checkoutLink.deletedAt)))
    .limit(1);
  return rows[0] ?? null;
}

export async function listCheckoutLinks(
  db: Queryable,
  organizationId: string,
  filter: { productIds?: string[] | undefined },
  sorting: Array<SortKey<CheckoutLinkSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: CheckoutLinkRow[]; total: number }> {
  const where = and(live(organizationId), filter.productIds?.length ? arrayOverlaps(checkoutLink.productIds, filter.productIds) : undefined);
  const columns = {
    created_at: checkoutLink.createdAt,
    label: checkoutLink.label,
    success_url: checkoutLink.successUrl,
    allow_discount_codes: checkoutLink.allowDiscountCodes,
  };
  const order = [...sorting.map((s) => sql`${columns[s.key]} ${sql.raw(s.desc ? "desc" : "asc")} nulls last`), asc(checkoutLink.id)];
  const [rows, count] = await Promise.all([
    db.select().from(checkoutLink).where(where).orderBy(...order).limit(limit).offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(checkoutLink).where(where),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

export async function insertCheckoutLink(db: Queryable, values: CheckoutLinkValues): Promise<CheckoutLinkRow> {
  const rows = await db.insert(checkoutLink).values(values).returning();
  const row = rows[0];
  if (!row) throw new Error("insert checkout_link returned no row");
  return row;
}

export async function updateCheckoutLink(
  db: Queryable,
  organizationId: string,
  id: string,
  values: Partial<CheckoutLinkValues> & { deletedAt?: Date },
): Promise<CheckoutLinkRow | null> {
  const rows = await db
    .update(checkoutLink)
    .set({ ...values, modifiedAt: new Date() })
    .where(and(live(organizationId), eq(checkoutLink.id, id)))
    .returning();
  return rows[0] ?? null;
}
