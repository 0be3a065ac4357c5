// SQL for renewals: claiming due subscriptions (across organizations: the schedule serves them all), locking
// one, writing its new terms, the payment method its checkout saved, and the subscription's grants cycled. Every function but the claim takes the organization id and filters by it.
import { and, asc, eq, inArray, isNotNull, isNull, lte, notInArray, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { q, record, shapeOf } from "../../db/json-rows.js";
import { rawQuery } from "../../db/prepared.js";
import { benefit, benefitGrant, customer, customerBalanceEntry, subscription, subscriptionProration } from "../../db/schema/index.js";
import { ACTIVE_STATUSES, type SubscriptionRow } from "../subscriptions/wire.js";
import { advancedClocks, orgNowSql } from "../test-clock/repository.js";

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
        // `now` is the wall clock; a sandbox organization's test clock may be ahead of it (test-clock/clock.ts)
        or(lte(subscription.currentPeriodEnd, now), and(inArray(subscription.organizationId, advancedClocks), lte(subscription.currentPeriodEnd, orgNowSql(subscription.organizationId, now)))),
        organizationId ? eq(subscription.organizationId, organizationId) : undefined,
        skipIds.length > 0 ? notInArray(subscription.id, skipIds) : undefined,
      ),
    )
    .orderBy(asc(subscription.currentPeriodEnd), asc(subscription.id))
    .limit(limit)
    .for("update", { skipLocked: true });
}

/** The subscription, locked until the caller's transaction ends (waits for another renewal of it). */
export async function lockSubscription(db: Queryable, organizationId: string, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await db
    .select()
    .from(subscription)
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.id, id)))
    .limit(1)
    .for("update");
  return row;
}

export type RenewalPatch = Partial<
  Pick<SubscriptionRow, "status" | "currentPeriodStart" | "currentPeriodEnd" | "trialEnd" | "canceledAt" | "endsAt" | "endedAt" | PlanColumns>
>;
/** The columns a pending plan change writes at the renewal (pending.ts). */
type PlanColumns = "productId" | "priceIds" | "amount" | "seats" | "recurringInterval" | "recurringIntervalCount" | "pendingUpdate" | "prorationBehavior";

export async function updateSubscription(db: Queryable, organizationId: string, id: string, patch: RenewalPatch, now: Date): Promise<SubscriptionRow> {
  const [row] = await db
    .update(subscription)
    .set({ ...patch, modifiedAt: now })
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.id, id)))
    .returning();
  if (!row) throw new Error(`subscription ${id} vanished under its lock`);
  return row;
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
export async function writeTerms(db: Queryable, rows: SubscriptionRow[]): Promise<void> {
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

const grantedNow = and(isNotNull(benefitGrant.grantedAt), isNull(benefitGrant.revokedAt));

/** Touches (modified_at) the subscription's granted grants and returns them with their benefit and customer. */
export async function cycleGrants(db: Queryable, organizationId: string, subscriptionId: string, now: Date) {
  const touched = await db
    .update(benefitGrant)
    .set({ modifiedAt: now })
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.subscriptionId, subscriptionId), grantedNow))
    .returning({ id: benefitGrant.id });
  return grantsWithEmbeds(db, organizationId, touched.map((g) => g.id));
}

/** cycleGrants of many subscriptions of one organization: the grants by subscription id, each list in cycleGrants' order. */
export async function cycleGrantsOf(db: Queryable, organizationId: string, subscriptionIds: string[], now: Date) {
  const out = new Map<string, Awaited<ReturnType<typeof grantsWithEmbeds>>>();
  if (subscriptionIds.length === 0) return out;
  const touched = await db
    .update(benefitGrant)
    .set({ modifiedAt: now })
    .where(and(eq(benefitGrant.organizationId, organizationId), inArray(benefitGrant.subscriptionId, subscriptionIds), grantedNow))
    .returning({ id: benefitGrant.id });
  for (const row of await grantsWithEmbeds(db, organizationId, touched.map((g) => g.id))) {
    const id = row.grant.subscriptionId;
    if (id) out.set(id, [...(out.get(id) ?? []), row]);
  }
  return out;
}

async function grantsWithEmbeds(db: Queryable, organizationId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select({ grant: benefitGrant, benefit, customer })
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .innerJoin(customer, eq(customer.id, benefitGrant.customerId))
    .where(and(eq(benefitGrant.organizationId, organizationId), inArray(benefitGrant.id, ids)))
    .orderBy(asc(benefitGrant.grantedAt), asc(benefitGrant.id));
}

// ---- a claimed batch's reads, one query each (the renewal schedule: server/jobs/schedules.ts) -------------

export type ProrationRow = typeof subscriptionProration.$inferSelect;

/** Each subscription's proration lines no renewal has billed yet, oldest first (pendingProrations of many). */
export async function pendingProrationsOf(db: Queryable, organizationId: string, subscriptionIds: string[]): Promise<Map<string, ProrationRow[]>> {
  const out = new Map<string, ProrationRow[]>();
  if (subscriptionIds.length === 0) return out;
  const rows = await db
    .select()
    .from(subscriptionProration)
    .where(
      and(
        eq(subscriptionProration.organizationId, organizationId),
        inArray(subscriptionProration.subscriptionId, subscriptionIds),
        isNull(subscriptionProration.orderId),
      ),
    )
    .orderBy(asc(subscriptionProration.createdAt), asc(subscriptionProration.position));
  for (const r of rows) out.set(r.subscriptionId, [...(out.get(r.subscriptionId) ?? []), r]);
  return out;
}

/** Each customer's balance per currency (`customerId:currency`), for those with any movement. */
export async function balancesOf(db: Queryable, organizationId: string, customerIds: string[]): Promise<Map<string, number>> {
  if (customerIds.length === 0) return new Map();
  const rows = await db
    .select({ customerId: customerBalanceEntry.customerId, currency: customerBalanceEntry.currency, total: sql<string>`sum(${customerBalanceEntry.amount})` })
    .from(customerBalanceEntry)
    .where(and(eq(customerBalanceEntry.organizationId, organizationId), inArray(customerBalanceEntry.customerId, customerIds)))
    .groupBy(customerBalanceEntry.customerId, customerBalanceEntry.currency);
  return new Map(rows.map((r) => [`${r.customerId}:${r.currency}`, Number(r.total)]));
}

/** meterCreditGrants of many subscriptions, by subscription id. */
export async function meterCreditGrantsOf(db: Queryable, organizationId: string, subscriptionIds: string[]) {
  const out = new Map<string, Array<{ id: string; properties: Record<string, unknown>; benefit: Record<string, unknown> }>>();
  if (subscriptionIds.length === 0) return out;
  const rows = await db
    .select({ subscriptionId: benefitGrant.subscriptionId, id: benefitGrant.id, properties: benefitGrant.properties, benefit: benefit.properties })
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        inArray(benefitGrant.subscriptionId, subscriptionIds),
        eq(benefit.type, "meter_credit"),
        grantedNow,
      ),
    );
  for (const { subscriptionId, ...g } of rows) if (subscriptionId) out.set(subscriptionId, [...(out.get(subscriptionId) ?? []), g]);
  return out;
}
