// SQL for meters. Every function takes the caller's organization id and filters by it.
import { and, eq, ilike, inArray, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inUuids, preparedPerHandle } from "../../db/prepared.js";
import { benefitGrant, meter, productPrice, subscription } from "../../db/schema/index.js";
import { likePattern, metadataWhere, orderBy, type SortKey } from "../listing.js";
import type { MeterRow } from "./wire.js";

export async function existingMeterIds(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: meter.id })
    .from(meter)
    .where(and(eq(meter.organizationId, organizationId), inArray(meter.id, ids)));
  return rows.map((r) => r.id);
}

/** Prepared: metered prices embed their meter wherever a product or price is read. */
const metersByIdsQuery = preparedPerHandle((db) =>
  db
    .select()
    .from(meter)
    .where(and(eq(meter.organizationId, sql.placeholder("organizationId")), inUuids(meter.id, "ids")))
    .prepare("meters_by_ids"),
);

export async function findMetersByIds(db: Queryable, organizationId: string, ids: string[]): Promise<MeterRow[]> {
  if (ids.length === 0) return [];
  return metersByIdsQuery(db).execute({ organizationId, ids });
}

export async function findMeter(db: Queryable, organizationId: string, id: string): Promise<MeterRow | undefined> {
  const [row] = await db
    .select()
    .from(meter)
    .where(and(eq(meter.organizationId, organizationId), eq(meter.id, id)))
    .limit(1);
  return row;
}

/** Meters that are not archived, oldest first. */
export async function liveMeters(db: Queryable, organizationId: string): Promise<MeterRow[]> {
  return db
    .select()
    .from(meter)
    .where(and(eq(meter.organizationId, organizationId), isNull(meter.archivedAt)))
    .orderBy(meter.createdAt, meter.id);
}

export async function insertMeter(db: Queryable, values: Omit<typeof meter.$inferInsert, "id" | "createdAt">): Promise<MeterRow> {
  const [row] = await db.insert(meter).values(values).returning();
  if (!row) throw new Error("insert meter returned no row");
  return row;
}

export async function updateMeter(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Omit<typeof meter.$inferInsert, "id" | "organizationId" | "createdAt">>,
): Promise<MeterRow | undefined> {
  const [row] = await db
    .update(meter)
    .set(patch)
    .where(and(eq(meter.organizationId, organizationId), eq(meter.id, id)))
    .returning();
  return row;
}

export type MeterSortKey = "created_at" | "name";

export interface MeterListFilter {
  query?: string | undefined;
  isArchived?: boolean | undefined;
  metadata?: Record<string, string[]> | undefined;
}

export async function listMeters(
  db: Queryable,
  organizationId: string,
  filter: MeterListFilter,
  sorting: Array<SortKey<MeterSortKey>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: MeterRow[]; total: number }> {
  const clauses: Array<SQL | undefined> = [eq(meter.organizationId, organizationId)];
  if (filter.query) clauses.push(ilike(meter.name, likePattern(filter.query)));
  if (filter.isArchived !== undefined) clauses.push(filter.isArchived ? isNotNull(meter.archivedAt) : isNull(meter.archivedAt));
  clauses.push(...metadataWhere(meter.metadata, filter.metadata));
  const where = and(...clauses);
  const [rows, count] = await Promise.all([
    db
      .select()
      .from(meter)
      .where(where)
      .orderBy(...orderBy(sorting, { created_at: meter.createdAt, name: meter.name }, meter.id))
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(meter).where(where),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

/**
 * The current billing period of each meter a customer's live subscriptions bill (metered prices) or credit
 * (meter_credit grants), by lower-cased meter id: from the earliest current period start to the latest end
 * when several subscriptions name the same meter.
 */
export async function meterPeriodsOfCustomer(db: Queryable, organizationId: string, customerId: string): Promise<Map<string, { start: Date; end: Date }>> {
  const subs = await db
    .select({ id: subscription.id, priceIds: subscription.priceIds, start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd })
    .from(subscription)
    .where(
      and(
        eq(subscription.organizationId, organizationId),
        eq(subscription.customerId, customerId),
        isNull(subscription.endedAt),
        inArray(subscription.status, ["active", "trialing", "past_due", "unpaid"]),
      ),
    );
  const out = new Map<string, { start: Date; end: Date }>();
  if (subs.length === 0) return out;
  const priceIds = [...new Set(subs.flatMap((s) => s.priceIds))];
  const [prices, grants] = await Promise.all([
    priceIds.length === 0
      ? []
      : db
          .select({ id: productPrice.id, meterId: productPrice.meterId })
          .from(productPrice)
          .where(and(eq(productPrice.organizationId, organizationId), inArray(productPrice.id, priceIds), isNotNull(productPrice.meterId))),
    db
      .select({ subscriptionId: benefitGrant.subscriptionId, meterId: sql<string | null>`${benefitGrant.properties}->>'last_credited_meter_id'` })
      .from(benefitGrant)
      .where(
        and(
          eq(benefitGrant.organizationId, organizationId),
          eq(benefitGrant.customerId, customerId),
          inArray(
            benefitGrant.subscriptionId,
            subs.map((s) => s.id),
          ),
          isNotNull(benefitGrant.grantedAt),
          isNull(benefitGrant.revokedAt),
        ),
      ),
  ]);
  const meterOfPrice = new Map(prices.map((p) => [p.id, p.meterId?.toLowerCase() ?? null]));
  const add = (meterId: string | null | undefined, s: (typeof subs)[number]) => {
    if (!meterId) return;
    const key = meterId.toLowerCase();
    const had = out.get(key);
    out.set(key, had ? { start: had.start < s.start ? had.start : s.start, end: had.end > s.end ? had.end : s.end } : { start: s.start, end: s.end });
  };
  for (const s of subs) for (const id of s.priceIds) add(meterOfPrice.get(id), s);
  const byId = new Map(subs.map((s) => [s.id, s]));
  for (const g of grants) {
    const s = g.subscriptionId ? byId.get(g.subscriptionId) : undefined;
    if (s) add(g.meterId, s);
  }
  return out;
}

/**
 * The customer's credit pools of their own (granted meter_credit grants recorded with `credit_pool: "subscription"`)
 * on live subscriptions: each one's meter, credit and current period.
 */
export async function subscriptionPoolsOfCustomer(db: Queryable, organizationId: string, customerId: string) {
  const rows = await db
    .select({
      subscriptionId: subscription.id,
      meterId: sql<string>`lower(${benefitGrant.properties}->>'last_credited_meter_id')`,
      credited: sql<number | null>`CASE WHEN jsonb_typeof(${benefitGrant.properties}->'last_credited_units') = 'number' THEN (${benefitGrant.properties}->>'last_credited_units')::float8 END`,
      start: subscription.currentPeriodStart,
      end: subscription.currentPeriodEnd,
    })
    .from(benefitGrant)
    .innerJoin(subscription, and(eq(subscription.organizationId, organizationId), eq(subscription.id, benefitGrant.subscriptionId)))
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        eq(benefitGrant.customerId, customerId),
        sql`${benefitGrant.properties}->>'credit_pool' = 'subscription'`,
        sql`${benefitGrant.properties} ? 'last_credited_meter_id'`,
        isNotNull(benefitGrant.grantedAt),
        isNull(benefitGrant.revokedAt),
        isNull(subscription.endedAt),
        inArray(subscription.status, ["active", "trialing", "past_due", "unpaid"]),
      ),
    )
    .orderBy(subscription.createdAt, subscription.id);
  return rows.map((r) => ({ ...r, credited: Math.trunc(Number(r.credited ?? 0)) }));
}
