// SQL for meter credits at renewal: a subscription's granted meter_credit grants with their benefit's
// properties, and a grant's credit for the new period. Every query is scoped to the caller's organization.
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { benefit, benefitGrant } from "../../db/schema/index.js";

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
