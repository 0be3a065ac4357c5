// SQL for subscriptions. Every function takes the caller's organization id and filters by it.
import { and, asc, eq, inArray, isNull, lte, notInArray, or, sql, type SQL } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import { q, record, shapeOf } from "../../db/json-rows.js";
import { rawQuery } from "../../db/prepared.js";
import { customer, discount, product, subscription } from "../../db/schema/index.js";
import { dateColumn, jsonColumn, plainColumn, textColumn, uuidLiteral, type CsvExport } from "../csv.js";
import { metadataWhere, type SortKey } from "../listing.js";
import { filteredTotal, listTotal } from "../list-counts.js";
import { advancedClocks, orgNowSql } from "../clock.js";
import { ACTIVE_STATUSES, type SubscriptionRow } from "./wire.js";

export type SubscriptionValues = Omit<typeof subscription.$inferInsert, "createdAt" | "modifiedAt">;

export async function findSubscription(db: Queryable, organizationId: string, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await db
    .select()
    .from(subscription)
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.id, id)))
    .limit(1);
  return row;
}

export async function findSubscriptionsByIds(db: Queryable, organizationId: string, ids: string[]): Promise<SubscriptionRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(subscription)
    .where(and(eq(subscription.organizationId, organizationId), inArray(subscription.id, ids)));
}

const active = inArray(subscription.status, [...ACTIVE_STATUSES]);

/** Whether the customer (by id, or by the email of a live customer) has a subscription giving access now. */
export async function hasActiveSubscription(
  db: Queryable,
  organizationId: string,
  who: { customerId?: string | null; email?: string | null },
): Promise<boolean> {
  const whose: SQL | undefined = who.customerId
    ? eq(subscription.customerId, who.customerId)
    : who.email
      ? sql`${subscription.customerId} IN (SELECT ${customer.id} FROM ${customer} WHERE ${customer.organizationId} = ${organizationId}
          AND ${customer.email} = ${who.email.toLowerCase()} AND ${customer.deletedAt} IS NULL)`
      : undefined;
  if (!whose) return false;
  const rows = await db
    .select({ id: subscription.id })
    .from(subscription)
    .where(and(eq(subscription.organizationId, organizationId), active, whose))
    .limit(1);
  return rows.length > 0;
}

/** The customer's subscriptions that give access now, oldest first (CustomerState). */
export async function activeSubscriptionsOfCustomer(db: Queryable, organizationId: string, customerId: string): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(subscription)
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.customerId, customerId), active))
    .orderBy(asc(subscription.startedAt), asc(subscription.id));
}

export type SubscriptionSort =
  | "customer"
  | "status"
  | "started_at"
  | "current_period_end"
  | "ended_at"
  | "ends_at"
  | "amount"
  | "product"
  | "discount";

export interface SubscriptionFilter {
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  discountIds?: string[] | undefined;
  statuses?: string[] | undefined;
  active?: boolean | undefined;
  cancelAtPeriodEnd?: boolean | undefined;
  cancellationReasons?: string[] | undefined;
  canceledAtAfter?: Date | undefined;
  canceledAtBefore?: Date | undefined;
  metadata?: Record<string, string[]> | undefined;
}

const sortColumns: Record<SubscriptionSort, SQL> = {
  customer: sql`(SELECT ${customer.email} FROM ${customer} WHERE ${customer.id} = ${subscription.customerId})`,
  status: sql`${subscription.status}`,
  started_at: sql`${subscription.startedAt}`,
  current_period_end: sql`${subscription.currentPeriodEnd}`,
  ended_at: sql`${subscription.endedAt}`,
  ends_at: sql`${subscription.endsAt}`,
  amount: sql`${subscription.amount}`,
  product: sql`(SELECT ${product.name} FROM ${product} WHERE ${product.id} = ${subscription.productId})`,
  discount: sql`(SELECT ${discount.name} FROM ${discount} WHERE ${discount.id} = ${subscription.discountId})`,
};

export async function listSubscriptions(
  db: Queryable,
  organizationId: string,
  filter: SubscriptionFilter,
  sorting: Array<SortKey<SubscriptionSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: SubscriptionRow[]; total: number }> {
  const filters = [
    filter.productIds?.length ? inArray(subscription.productId, filter.productIds) : undefined,
    filter.customerIds?.length ? inArray(subscription.customerId, filter.customerIds) : undefined,
    filter.externalCustomerIds?.length
      ? sql`${subscription.customerId} IN (SELECT ${customer.id} FROM ${customer} WHERE ${customer.organizationId} = ${organizationId} AND ${inArray(customer.externalId, filter.externalCustomerIds)})`
      : undefined,
    filter.discountIds?.length ? inArray(subscription.discountId, filter.discountIds) : undefined,
    filter.statuses?.length ? inArray(subscription.status, filter.statuses) : undefined,
    filter.active === undefined ? undefined : filter.active ? active : sql`NOT ${active}`,
    filter.cancelAtPeriodEnd === undefined ? undefined : eq(subscription.cancelAtPeriodEnd, filter.cancelAtPeriodEnd),
    filter.cancellationReasons?.length ? inArray(subscription.customerCancellationReason, filter.cancellationReasons) : undefined,
    filter.canceledAtAfter ? sql`${subscription.canceledAt} >= ${filter.canceledAtAfter.toISOString()}::timestamptz` : undefined,
    filter.canceledAtBefore ? sql`${subscription.canceledAt} <= ${filter.canceledAtBefore.toISOString()}::timestamptz` : undefined,
    ...metadataWhere(subscription.metadata, filter.metadata),
  ].filter((c) => c !== undefined);
  const where = and(eq(subscription.organizationId, organizationId), ...filters);
  const order = [
    ...sorting.map((s) => sql`${sortColumns[s.key]} ${sql.raw(s.desc ? "desc" : "asc")} nulls last`),
    asc(subscription.id),
  ];
  const offset = (pageNo - 1) * limit;
  const [rows, maintained] = await Promise.all([
    offset === 0
      ? db.select().from(subscription).where(where).orderBy(...order).limit(limit)
      : // a deeper page skips its offset in the index (ids only), then reads its own rows: see listing.ts
        db
          .select()
          .from(subscription)
          .where(inArray(subscription.id, db.select({ id: subscription.id }).from(subscription).where(where).orderBy(...order).limit(limit).offset(offset)))
          .orderBy(...order),
    filters.length === 0 ? listTotal(db, organizationId, "subscription") : undefined,
  ]);
  const total =
    maintained ??
    (await filteredTotal(pageNo, limit, rows.length, async () => {
      const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(subscription).where(where);
      return count?.n ?? 0;
    }));
  return { rows, total };
}

/**
 * The row locked FOR UPDATE until the caller's transaction ends: every change to a subscription takes it. With
 * `skipLocked`, undefined instead of a wait when another transaction holds it — locked FOR NO KEY UPDATE then, which
 * excludes every other change as FOR UPDATE does but not the key-share locks of rows being inserted that refer to the
 * subscription (an order, a grant, a payment): FOR UPDATE SKIP LOCKED would pass the row by for each of those.
 */
export async function lockSubscription(tx: Queryable, organizationId: string, id: string, skipLocked = false): Promise<SubscriptionRow | undefined> {
  const [row] = await tx
    .select()
    .from(subscription)
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.id, id)))
    .for(skipLocked ? "no key update" : "update", skipLocked ? { skipLocked: true } : {});
  return row;
}

/**
 * The customer's subscriptions that have not ended, locked FOR UPDATE until the caller's transaction ends (in id
 * order).
 */
export async function lockOpenSubscriptionsOfCustomer(tx: Queryable, organizationId: string, customerId: string): Promise<SubscriptionRow[]> {
  return tx
    .select()
    .from(subscription)
    .where(
      and(
        eq(subscription.organizationId, organizationId),
        eq(subscription.customerId, customerId),
        isNull(subscription.endedAt),
        notInArray(subscription.status, ["canceled", "incomplete_expired"]),
      ),
    )
    .orderBy(asc(subscription.id))
    .for("update");
}

export async function updateSubscription(
  tx: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Omit<SubscriptionValues, "id" | "organizationId">> & { modifiedAt: Date },
): Promise<SubscriptionRow> {
  const [row] = await tx
    .update(subscription)
    .set(patch)
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.id, id)))
    .returning();
  if (!row) throw new Error("update subscription returned no row");
  return row;
}

/** The organization's subscriptions for the CSV export (with customer email and product name), oldest first. */
export function subscriptionsExport(organizationId: string): CsvExport {
  return {
    name: "subscriptions",
    columns: [
      textColumn("id", "t.id::text"),
      dateColumn("created_at", "t.created_at"),
      textColumn("status", "t.status"),
      textColumn("customer_id", "t.customer_id::text"),
      textColumn("customer_email", "c.email"),
      textColumn("product_id", "t.product_id::text"),
      textColumn("product_name", "p.name"),
      plainColumn("amount", "t.amount"),
      textColumn("currency", "t.currency"),
      textColumn("recurring_interval", "t.recurring_interval"),
      plainColumn("recurring_interval_count", "t.recurring_interval_count"),
      plainColumn("seats", "t.seats"),
      dateColumn("current_period_start", "t.current_period_start"),
      dateColumn("current_period_end", "t.current_period_end"),
      dateColumn("trial_end", "t.trial_end"),
      plainColumn("cancel_at_period_end", "t.cancel_at_period_end"),
      dateColumn("canceled_at", "t.canceled_at"),
      dateColumn("ended_at", "t.ended_at"),
      jsonColumn("metadata", "t.metadata"),
    ],
    from: "FROM subscription t LEFT JOIN customer c ON c.id = t.customer_id LEFT JOIN product p ON p.id = t.product_id",
    where: [`t.organization_id = ${uuidLiteral(organizationId)}`],
  };
}

/** Inserts a subscription the seller creates (`POST /v1/subscriptions/`). */
export async function insertSubscription(tx: Queryable, values: SubscriptionRow): Promise<SubscriptionRow> {
  const [row] = await tx.insert(subscription).values(values).returning();
  if (!row) throw new Error("subscription insert returned nothing");
  return row;
}

/**
 * The subscriptions of the product that hold their benefits (trialing, active, past_due) and whose own grants
 * (not a seat holder's) differ from the product's live benefits: a benefit missing, or a live grant of a benefit
 * the product no longer offers. A product update that changed no benefit finds none, in one statement.
 */
export async function subscriptionsToRegrant(db: Queryable, organizationId: string, productId: string): Promise<string[]> {
  const rows = await rowsOf<{ id: string }>(db, sql`
    SELECT s.id FROM subscription s
    WHERE s.organization_id = ${organizationId} AND s.product_id = ${productId} AND s.status IN ('trialing', 'active', 'past_due')
      AND (
        EXISTS (SELECT 1 FROM product_benefit pb JOIN benefit b ON b.id = pb.benefit_id AND NOT b.is_deleted
                WHERE pb.product_id = s.product_id
                  AND NOT EXISTS (SELECT 1 FROM benefit_grant g WHERE g.subscription_id = s.id AND g.customer_seat_id IS NULL
                                  AND g.benefit_id = pb.benefit_id AND g.revoked_at IS NULL))
        OR EXISTS (SELECT 1 FROM benefit_grant g WHERE g.subscription_id = s.id AND g.revoked_at IS NULL
                   AND g.benefit_id NOT IN (SELECT pb.benefit_id FROM product_benefit pb JOIN benefit b ON b.id = pb.benefit_id AND NOT b.is_deleted
                                            WHERE pb.product_id = s.product_id))
      )
    ORDER BY s.created_at, s.id`);
  return rows.map((r) => r.id);
}

/** What a renewal, dunning or a proration writes of a subscription's terms. */
export type TermsPatch = Partial<
  Pick<SubscriptionRow, "status" | "currentPeriodStart" | "currentPeriodEnd" | "trialEnd" | "canceledAt" | "endsAt" | "endedAt" | PlanColumns>
>;
/** The columns a pending plan change writes at the renewal (renewal/pending.ts). */
type PlanColumns = "productId" | "priceIds" | "amount" | "seats" | "recurringInterval" | "recurringIntervalCount" | "pendingUpdate" | "prorationBehavior" | "addOns";

export async function patchSubscriptionTerms(db: Queryable, organizationId: string, id: string, patch: TermsPatch, now: Date): Promise<SubscriptionRow> {
  const [row] = await db
    .update(subscription)
    .set({ ...patch, modifiedAt: now })
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.id, id)))
    .returning();
  if (!row) throw new Error(`subscription ${id} vanished under its lock`);
  return row;
}

/** A subscription's collection terms and purchase order number (invoice-terms.ts). */
export async function patchSubscriptionInvoicing(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Pick<SubscriptionRow, "collectionMethod" | "daysUntilDue" | "purchaseOrder">,
  now: Date,
): Promise<SubscriptionRow> {
  const [row] = await db
    .update(subscription)
    .set({ ...patch, modifiedAt: now })
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.id, id)))
    .returning();
  if (!row) throw new Error(`subscription ${id} vanished under its lock`);
  return row;
}

// ---- renewals (billing/renewal/): the due claim and a batch's terms --------------------------------------

const renewingStatus = sql`${subscription.status} IN (${sql.raw(ACTIVE_STATUSES.map((st) => `'${st}'`).join(", "))})`;

/**
 * Up to `limit` subscriptions whose period has ended, locked for the caller's transaction. SKIP LOCKED: a
 * subscription another process is renewing is left to it; once that commits, its period end has moved on
 * and it no longer matches.
 */
export async function claimDueSubscriptions(
  db: Queryable,
  now: Date,
  limit: number,
  skipIds: string[],
  organizationId?: string,
): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(subscription)
    .where(
      and(
        // literals, not parameters: the claim's partial index (subscription_renewal_due_idx) is usable only
        // by a plan whose filter implies its predicate, a generic plan's parameters never do
        renewingStatus,
        // `now` is the wall clock; a sandbox organization's test clock may be ahead of it (billing/clock.ts)
        or(lte(subscription.currentPeriodEnd, now), and(inArray(subscription.organizationId, advancedClocks), lte(subscription.currentPeriodEnd, orgNowSql(subscription.organizationId, now)))),
        organizationId ? eq(subscription.organizationId, organizationId) : undefined,
        skipIds.length > 0 ? notInArray(subscription.id, skipIds) : undefined,
      ),
    )
    .orderBy(asc(subscription.currentPeriodEnd), asc(subscription.id))
    .limit(limit)
    .for("update", { skipLocked: true });
}

const subscriptionShape = shapeOf(subscription);
const col = (c: { name: string }) => q(c.name);
const WRITE_TERMS = `UPDATE ${subscriptionShape.table} AS s SET
  ${[subscription.status, subscription.currentPeriodStart, subscription.currentPeriodEnd, subscription.trialEnd, subscription.modifiedAt].map((c) => `${col(c)} = r.${col(c)}`).join(", ")}
FROM jsonb_populate_recordset(NULL::${subscriptionShape.table}, $1::text::jsonb) AS r
WHERE s.${col(subscription.organizationId)} = r.${col(subscription.organizationId)} AND s.${col(subscription.id)} = r.${col(subscription.id)}
RETURNING s.${col(subscription.id)}`;

/**
 * updateSubscription for many renewals at once (a billing run's batch, every subscription locked by its claim):
 * each row as the renewal computed it, of which its status, period, trial end and modification time are written.
 */
export async function writeRenewedTerms(db: Queryable, rows: SubscriptionRow[]): Promise<void> {
  if (rows.length === 0) return;
  const written = await rawQuery(db, WRITE_TERMS, [
    JSON.stringify(
      rows.map((r) =>
        record(subscriptionShape, {
          id: r.id,
          organizationId: r.organizationId,
          status: r.status,
          currentPeriodStart: r.currentPeriodStart,
          currentPeriodEnd: r.currentPeriodEnd,
          trialEnd: r.trialEnd,
          modifiedAt: r.modifiedAt,
        }),
      ),
    ),
  ]);
  if (written.length !== rows.length) throw new Error(`renewals: ${written.length} of ${rows.length} subscriptions written`);
}
