// SQL for renewals: claiming due subscriptions (across organizations: the schedule serves them all), locking
// one, writing its new terms, the payment method its checkout saved, and the subscription's grants cycled. Every function but the claim takes the organization id and filters by it.
import { and, asc, eq, inArray, isNotNull, isNull, lte, notInArray, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { benefit, benefitGrant, checkout, customer, subscription } from "../../db/schema/index.js";
import { ACTIVE_STATUSES, type SubscriptionRow } from "./wire.js";
import { advancedClocks, orgNowSql } from "../test-clock/repository.js";

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
        inArray(subscription.status, [...ACTIVE_STATUSES]),
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
  Pick<SubscriptionRow, "status" | "currentPeriodStart" | "currentPeriodEnd" | "trialEnd" | "canceledAt" | "endsAt" | "endedAt">
>;

export async function updateSubscription(db: Queryable, organizationId: string, id: string, patch: RenewalPatch, now: Date): Promise<SubscriptionRow> {
  const [row] = await db
    .update(subscription)
    .set({ ...patch, modifiedAt: now })
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.id, id)))
    .returning();
  if (!row) throw new Error(`subscription ${id} vanished under its lock`);
  return row;
}

/** The payment method the subscription's checkout saved with the processor, if any. */
export async function savedPaymentMethod(db: Queryable, organizationId: string, checkoutId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: sql<string | null>`${checkout.paymentProcessorMetadata} ->> 'payment_method_id'` })
    .from(checkout)
    .where(and(eq(checkout.organizationId, organizationId), eq(checkout.id, checkoutId)))
    .limit(1);
  return row?.id ?? null;
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
