// SQL of the Stripe connection: one row per organization (its keys, its endpoint, the last error a payment met), and
// the Stripe events received for it.
import { and, desc, eq, isNull, lt, or } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { stripeConnection, stripeEvent } from "../../db/schema/index.js";

export type StripeConnectionRow = typeof stripeConnection.$inferSelect;
export type StripeEventRow = typeof stripeEvent.$inferSelect;

export async function getConnection(db: Queryable, organizationId: string): Promise<StripeConnectionRow | null> {
  const [row] = await db.select().from(stripeConnection).where(eq(stripeConnection.organizationId, organizationId)).limit(1);
  return row ?? null;
}

/** Makes or replaces the organization's connection. */
export async function putConnection(db: Queryable, row: Omit<StripeConnectionRow, "createdAt" | "lastErrorCode" | "lastErrorDetail" | "lastErrorAt" | "lastErrorMailedAt">): Promise<void> {
  const set = {
    // new keys: the last error of the old ones is no longer the seller's to fix
    lastErrorCode: null,
    lastErrorDetail: null,
    lastErrorAt: null,
    lastErrorMailedAt: null,
    accountId: row.accountId,
    livemode: row.livemode,
    secretKey: row.secretKey,
    publishableKey: row.publishableKey,
    webhookEndpointId: row.webhookEndpointId,
    webhookUrl: row.webhookUrl,
    webhookSecret: row.webhookSecret,
    createdAt: new Date(),
  };
  await db.insert(stripeConnection).values(row).onConflictDoUpdate({ target: stripeConnection.organizationId, set });
}

export async function deleteConnection(db: Queryable, organizationId: string): Promise<void> {
  await db.delete(stripeConnection).where(eq(stripeConnection.organizationId, organizationId));
}

/** Records an event once: false when its id was received before (a redelivery). */
export async function rememberEvent(db: Queryable, row: typeof stripeEvent.$inferInsert): Promise<boolean> {
  const inserted = await db.insert(stripeEvent).values(row).onConflictDoNothing().returning({ id: stripeEvent.id });
  return inserted.length > 0;
}

export async function lastEvent(db: Queryable, organizationId: string): Promise<StripeEventRow | null> {
  const [row] = await db
    .select()
    .from(stripeEvent)
    .where(eq(stripeEvent.organizationId, organizationId))
    .orderBy(desc(stripeEvent.receivedAt))
    .limit(1);
  return row ?? null;
}

/**
 * Keeps a payment's processor error on the organization's connection; answers whether there is one (none: nothing
 * recorded) and whether its owners are to be emailed now: only when they were not since `mailedBefore`. The row's
 * mailed-at moves only when it was old enough, so two notes at once mail once.
 */
export async function noteLastError(db: Queryable, organizationId: string, error: { code: string; detail: string }, now: Date, mailedBefore: Date): Promise<{ recorded: boolean; mail: boolean }> {
  const recorded = await db
    .update(stripeConnection)
    .set({ lastErrorCode: error.code, lastErrorDetail: error.detail.slice(0, 2000), lastErrorAt: now })
    .where(eq(stripeConnection.organizationId, organizationId))
    .returning({ mailedAt: stripeConnection.lastErrorMailedAt });
  if (recorded.length === 0) return { recorded: false, mail: false };
  const claimed = await db
    .update(stripeConnection)
    .set({ lastErrorMailedAt: now })
    .where(and(eq(stripeConnection.organizationId, organizationId), or(isNull(stripeConnection.lastErrorMailedAt), lt(stripeConnection.lastErrorMailedAt, mailedBefore))))
    .returning({ organizationId: stripeConnection.organizationId });
  return { recorded: true, mail: claimed.length > 0 };
}
