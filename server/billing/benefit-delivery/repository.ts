// SQL of benefit delivery: delivery rows (made from outbox events, leased by the worker with FOR UPDATE SKIP
// LOCKED, their outcome recorded by the lease holder only), customers' connected accounts, pending OAuth
// authorizations and the sellers' integrations. Every function that serves a request takes the organization id.
import { and, asc, eq, inArray, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { BENEFIT_ACCOUNT, DELIVERED_BENEFIT_TYPES, type AccountPlatform } from "../../../shared/kinds.js";
import {
  benefit,
  benefitDelivery,
  benefitGrant,
  benefitIntegration,
  customer,
  customerMember,
  customerOauthAccount,
  customerOauthState,
  organization,
} from "../../db/schema/index.js";

export type DeliveryRow = typeof benefitDelivery.$inferSelect;
export type OauthAccountRow = typeof customerOauthAccount.$inferSelect;
export type Platform = AccountPlatform;
export type DeliveryAction = "grant" | "revoke";

/** The benefit types delivered outside till, and the account each needs (shared/kinds.ts: BENEFIT_ACCOUNT). */
export const PLATFORM_OF: Record<string, Platform> = Object.fromEntries(
  DELIVERED_BENEFIT_TYPES.flatMap((t) => {
    const platform = BENEFIT_ACCOUNT[t];
    return platform ? [[t, platform]] : [];
  }),
);
export const TYPES_OF: Record<Platform, string> = { github: "github_repository", discord: "discord" };

const leaseUntil = (ms: number) => sql`now() + make_interval(secs => ${ms / 1000})`;

/**
 * Inserts deliveries (one per cause, grant and action; an existing one is left alone). A new delivery supersedes
 * the pending ones of its grant that nobody holds: only the latest wish (grant or revoke) is carried out.
 */
export async function insertDeliveries(
  tx: Queryable,
  rows: Array<{ organizationId: string; grantId: string; action: DeliveryAction; outboxId: string | null }>,
): Promise<number> {
  if (rows.length === 0) return 0;
  const grantIds = [...new Set(rows.map((r) => r.grantId))];
  await tx
    .update(benefitDelivery)
    .set({ status: "superseded", finishedAt: sql`now()` })
    .where(
      and(
        inArray(benefitDelivery.grantId, grantIds),
        eq(benefitDelivery.status, "pending"),
        or(isNull(benefitDelivery.lockedUntil), lt(benefitDelivery.lockedUntil, sql`now()`)),
      ),
    );
  const done = await tx.insert(benefitDelivery).values(rows).onConflictDoNothing().returning({ id: benefitDelivery.id });
  return done.length;
}

/**
 * The live grants (granted or waiting for delivery) of the benefits (live or deleted), for a re-grant after the benefit
 * changed.
 */
export async function grantedGrantIdsOfBenefits(tx: Queryable, benefitIds: string[]) {
  if (benefitIds.length === 0) return [];
  return tx
    .select({ id: benefitGrant.id, organizationId: benefitGrant.organizationId })
    .from(benefitGrant)
    .where(and(inArray(benefitGrant.benefitId, benefitIds), isNull(benefitGrant.revokedAt)));
}

/** The customer's live grants (granted or waiting) of benefits of `type` (a newly connected account re-runs them). */
export async function grantedGrantIdsOfCustomer(tx: Queryable, organizationId: string, customerId: string, type: string) {
  const rows = await tx
    .select({ id: benefitGrant.id })
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        eq(benefitGrant.customerId, customerId),
        eq(benefit.type, type),
        isNull(benefitGrant.revokedAt),
      ),
    );
  return rows.map((r) => r.id);
}

/**
 * The organization's grants of `type`, waiting, granted or revoked, that carry an error (a fixed integration re-runs
 * them).
 */
export async function failedGrantsOfOrganization(tx: Queryable, organizationId: string, type: string): Promise<Array<{ id: string; revoked: boolean }>> {
  const rows = await tx
    .select({ id: benefitGrant.id, revokedAt: benefitGrant.revokedAt })
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        eq(benefit.type, type),
        isNotNull(benefitGrant.error),
      ),
    );
  return rows.map((r) => ({ id: r.id, revoked: r.revokedAt !== null }));
}

/** Leases up to `limit` due deliveries to `token`; a grant with a delivery in hand is not leased twice. */
export async function claimDue(db: Queryable, limit: number, leaseMs: number, token: string): Promise<DeliveryRow[]> {
  const due = db
    .select({ id: benefitDelivery.id })
    .from(benefitDelivery)
    .where(
      and(
        eq(benefitDelivery.status, "pending"),
        lte(benefitDelivery.nextAttemptAt, sql`now()`),
        or(isNull(benefitDelivery.lockedUntil), lt(benefitDelivery.lockedUntil, sql`now()`)),
        sql`NOT EXISTS (SELECT 1 FROM benefit_delivery h WHERE h.grant_id = ${benefitDelivery.grantId} AND h.status = 'pending'
          AND h.locked_until > now() AND h.id <> ${benefitDelivery.id})`,
      ),
    )
    .orderBy(asc(benefitDelivery.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return db
    .update(benefitDelivery)
    .set({ lockedUntil: leaseUntil(leaseMs), lockedBy: token })
    .where(inArray(benefitDelivery.id, due))
    .returning();
}

/** The delivery's grant with its benefit (deleted ones too), customer and the member it was made for (if any). */
export async function grantOf(db: Queryable, organizationId: string, grantId: string) {
  const rows = await db
    .select({ grant: benefitGrant, benefit, customer, member: customerMember })
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .innerJoin(customer, eq(customer.id, benefitGrant.customerId))
    .leftJoin(customerMember, and(eq(customerMember.id, benefitGrant.memberId), eq(customerMember.organizationId, benefitGrant.organizationId)))
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.id, grantId)))
    .limit(1);
  return rows[0] ?? null;
}

/** Ends the delivery (done, failed or superseded) if `token` still holds it; false when it does not. */
export async function finishDelivery(db: Queryable, id: string, token: string, status: "done" | "failed", error: string | null): Promise<boolean> {
  const rows = await db
    .update(benefitDelivery)
    .set({ status, attempts: sql`${benefitDelivery.attempts} + 1`, lastError: error?.slice(0, 1000) ?? null, lockedUntil: null, lockedBy: null, finishedAt: sql`now()` })
    .where(and(eq(benefitDelivery.id, id), eq(benefitDelivery.lockedBy, token)))
    .returning({ id: benefitDelivery.id });
  return rows.length > 0;
}

/** A transient failure: tried again in `retryInMs`. */
export async function retryDelivery(db: Queryable, id: string, token: string, error: string, retryInMs: number): Promise<void> {
  await db
    .update(benefitDelivery)
    .set({ attempts: sql`${benefitDelivery.attempts} + 1`, lastError: error.slice(0, 1000), lockedUntil: null, lockedBy: null, nextAttemptAt: leaseUntil(retryInMs) })
    .where(and(eq(benefitDelivery.id, id), eq(benefitDelivery.lockedBy, token)));
}

/** Gives leases back (a stopping worker). */
export async function release(db: Queryable, token: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.update(benefitDelivery).set({ lockedUntil: null, lockedBy: null }).where(and(inArray(benefitDelivery.id, ids), eq(benefitDelivery.lockedBy, token)));
}

/** Writes what a delivery did to its grant: new properties (the grant's copy of the benefit merged) and error. */
export async function updateGrantOutcome(
  db: Queryable,
  organizationId: string,
  grantId: string,
  patch: { properties?: Record<string, unknown>; error: { message: string; type: string; timestamp: string } | null; delivered?: boolean },
) {
  const now = new Date();
  const rows = await db
    .update(benefitGrant)
    .set({
      ...(patch.properties ? { properties: patch.properties } : {}),
      // granted once first delivered (a grant not revoked since); a later failure does not take it back
      ...(patch.delivered
        ? {
            grantedAt: sql`CASE WHEN ${benefitGrant.revokedAt} IS NULL
              THEN coalesce(${benefitGrant.grantedAt}, ${now.toISOString()}::timestamptz) ELSE ${benefitGrant.grantedAt} END`,
          }
        : {}),
      error: patch.error,
      modifiedAt: now,
    })
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.id, grantId)))
    .returning();
  return rows[0] ?? null;
}

/** The pending deliveries of a grant (the CLI shows whether one is waiting). */
export async function pendingOfGrant(db: Queryable, grantId: string) {
  return db
    .select()
    .from(benefitDelivery)
    .where(and(eq(benefitDelivery.grantId, grantId), eq(benefitDelivery.status, "pending")));
}

// ---- connected accounts ------------------------------------------------------------------------

export async function accountsOfCustomer(db: Queryable, organizationId: string, customerId: string): Promise<OauthAccountRow[]> {
  return db
    .select()
    .from(customerOauthAccount)
    .where(and(eq(customerOauthAccount.organizationId, organizationId), eq(customerOauthAccount.customerId, customerId)))
    .orderBy(asc(customerOauthAccount.platform));
}

export async function accountOf(db: Queryable, organizationId: string, customerId: string, platform: Platform): Promise<OauthAccountRow | null> {
  const rows = await db
    .select()
    .from(customerOauthAccount)
    .where(
      and(
        eq(customerOauthAccount.organizationId, organizationId),
        eq(customerOauthAccount.customerId, customerId),
        eq(customerOauthAccount.platform, platform),
      ),
    )
    .limit(1);
  return rows[0] ?? null;
}

export async function upsertAccount(db: Queryable, values: typeof customerOauthAccount.$inferInsert): Promise<void> {
  await db
    .insert(customerOauthAccount)
    .values(values)
    .onConflictDoUpdate({
      target: [customerOauthAccount.customerId, customerOauthAccount.platform],
      set: {
        accountId: values.accountId,
        accountUsername: values.accountUsername,
        accessToken: values.accessToken,
        refreshToken: values.refreshToken,
        expiresAt: values.expiresAt,
        scope: values.scope,
        modifiedAt: new Date(),
      },
    });
}

export async function updateAccountTokens(
  db: Queryable,
  id: string,
  tokens: { accessToken: string; refreshToken: string | null; expiresAt: Date | null },
): Promise<void> {
  await db.update(customerOauthAccount).set({ ...tokens, modifiedAt: new Date() }).where(eq(customerOauthAccount.id, id));
}

export async function deleteAccount(db: Queryable, organizationId: string, customerId: string, platform: Platform): Promise<boolean> {
  const rows = await db
    .delete(customerOauthAccount)
    .where(
      and(
        eq(customerOauthAccount.organizationId, organizationId),
        eq(customerOauthAccount.customerId, customerId),
        eq(customerOauthAccount.platform, platform),
      ),
    )
    .returning({ id: customerOauthAccount.id });
  return rows.length > 0;
}

export async function insertState(db: Queryable, values: typeof customerOauthState.$inferInsert): Promise<void> {
  await db.delete(customerOauthState).where(lt(customerOauthState.expiresAt, sql`now()`));
  await db.insert(customerOauthState).values(values);
}

/** Takes (deletes and returns) a pending authorization that has not expired. */
export async function takeState(db: Queryable, stateHash: string) {
  const rows = await db
    .delete(customerOauthState)
    .where(and(eq(customerOauthState.stateHash, stateHash), sql`${customerOauthState.expiresAt} > now()`))
    .returning();
  return rows[0] ?? null;
}

// ---- integrations ------------------------------------------------------------------------------

export async function integrationOf(db: Queryable, organizationId: string, platform: Platform): Promise<string | null> {
  const rows = await db
    .select({ credentials: benefitIntegration.credentials })
    .from(benefitIntegration)
    .where(and(eq(benefitIntegration.organizationId, organizationId), eq(benefitIntegration.platform, platform)))
    .limit(1);
  return rows[0]?.credentials ?? null;
}

export async function integrationsOf(db: Queryable, organizationId: string) {
  return db
    .select({ platform: benefitIntegration.platform, createdAt: benefitIntegration.createdAt, modifiedAt: benefitIntegration.modifiedAt })
    .from(benefitIntegration)
    .where(eq(benefitIntegration.organizationId, organizationId))
    .orderBy(asc(benefitIntegration.platform));
}

export async function upsertIntegration(db: Queryable, organizationId: string, platform: Platform, credentials: string): Promise<void> {
  await db
    .insert(benefitIntegration)
    .values({ organizationId, platform, credentials })
    .onConflictDoUpdate({ target: [benefitIntegration.organizationId, benefitIntegration.platform], set: { credentials, modifiedAt: new Date() } });
}

export async function slugOf(db: Queryable, organizationId: string): Promise<string | null> {
  const rows = await db.select({ slug: organization.slug }).from(organization).where(eq(organization.id, organizationId)).limit(1);
  return rows[0]?.slug ?? null;
}
