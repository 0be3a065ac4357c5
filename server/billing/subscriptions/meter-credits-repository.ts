// SQL for meter credits at renewal: a subscription's granted meter_credit grants with their benefit's
// properties, and a grant's credit for the new period; the monthly credits due (a `monthly` schedule). Every query
// is scoped to the caller's organization, but the schedule's claim, which runs over all of them.
import { and, asc, eq, inArray, isNotNull, isNull, notInArray, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { benefit, benefitGrant, subscription } from "../../db/schema/index.js";
import { advancedClocks, orgNowSql } from "../clock.js";

export async function meterCreditGrants(db: Queryable, organizationId: string, subscriptionId: string) {
  return db
    .select({ id: benefitGrant.id, properties: benefitGrant.properties, benefit: benefit.properties })
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        eq(benefitGrant.subscriptionId, subscriptionId),
        eq(benefit.type, "meter_credit"),
        isNotNull(benefitGrant.grantedAt),
        isNull(benefitGrant.revokedAt),
      ),
    );
}

/** Merges `credit` into the grant's properties. */
export async function setGrantCredit(db: Queryable, organizationId: string, grantId: string, credit: Record<string, unknown>): Promise<void> {
  await db
    .update(benefitGrant)
    .set({ properties: sql`${benefitGrant.properties} || ${JSON.stringify(credit)}::jsonb` })
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.id, grantId)));
}

/**
 * Claims up to `limit` meter_credit grants whose monthly credit is due at their organization's now (a test clock's,
 * if any), with their benefit's properties and their subscription's period, locked until the transaction ends.
 */
export async function claimDueMonthlyCredits(tx: Queryable, wall: Date, limit: number, skipIds: string[], organizationId?: string) {
  const next = sql`${benefitGrant.properties}->>'next_credit_at'`;
  return tx
    .select({
      id: benefitGrant.id,
      organizationId: benefitGrant.organizationId,
      customerId: benefitGrant.customerId,
      subscriptionId: subscription.id,
      properties: benefitGrant.properties,
      benefit: benefit.properties,
      status: subscription.status,
      periodStart: subscription.currentPeriodStart,
      periodEnd: subscription.currentPeriodEnd,
    })
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .innerJoin(subscription, eq(subscription.id, benefitGrant.subscriptionId))
    .where(
      and(
        // ISO strings compare as the times they name; a test clock ahead of the wall clock compares as a time
        or(
          sql`${next} <= ${wall.toISOString()}`,
          and(inArray(benefitGrant.organizationId, advancedClocks), sql`(${next})::timestamptz <= ${orgNowSql(benefitGrant.organizationId, wall)}`),
        ),
        isNotNull(benefitGrant.grantedAt),
        isNull(benefitGrant.revokedAt),
        organizationId ? eq(benefitGrant.organizationId, organizationId) : undefined,
        skipIds.length > 0 ? notInArray(benefitGrant.id, skipIds) : undefined,
      ),
    )
    .orderBy(sql`${next}`, asc(benefitGrant.id))
    .limit(limit)
    // the subscription too, skipped when held: a renewal or a change locks the subscription before its grants, so
    // a claim that held the grant and then waited for the subscription could deadlock with one. NO KEY UPDATE: it
    // excludes those changes as FOR UPDATE does, but not the key-share locks of rows being inserted that refer to
    // the subscription or the grant, which would make SKIP LOCKED pass them by for nothing
    .for("no key update", { of: [benefitGrant, subscription], skipLocked: true });
}

/** The organization's earliest monthly credit due by `until` (a test clock's advance stops there), if any. */
export async function monthlyCreditDueBy(db: Queryable, organizationId: string, until: Date): Promise<Date | undefined> {
  const [row] = await db
    .select({ at: sql<string>`min(${benefitGrant.properties}->>'next_credit_at')` })
    .from(benefitGrant)
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        sql`${benefitGrant.properties}->>'next_credit_at' <= ${until.toISOString()}`,
        isNotNull(benefitGrant.grantedAt),
        isNull(benefitGrant.revokedAt),
      ),
    );
  return row?.at ? new Date(row.at) : undefined;
}
