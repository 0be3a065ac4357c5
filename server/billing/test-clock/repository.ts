// SQL of the test clock: a sandbox organization's offset from the wall clock, and what its advance needs to know
// of the organization's subscriptions. Every function takes the organization id and filters by it.
import { and, asc, eq, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { checkout, orderDunning, subscription, testClock } from "../../db/schema/index.js";
import { ACTIVE_STATUSES } from "../subscriptions/wire.js";

/**
 * Moves the clock forward to `offsetMs` (never back: a concurrent advance that went further wins), and
 * returns the offset the clock now has.
 */
export async function moveClockTo(db: Queryable, organizationId: string, offsetMs: number, wall: Date): Promise<number> {
  const [row] = await db
    .insert(testClock)
    .values({ organizationId, offsetMs, createdAt: wall, modifiedAt: wall })
    .onConflictDoUpdate({
      target: testClock.organizationId,
      set: { offsetMs: sql`greatest(${testClock.offsetMs}, excluded.offset_ms)`, modifiedAt: wall },
    })
    .returning({ offsetMs: testClock.offsetMs });
  return row?.offsetMs ?? offsetMs;
}

/** The renewing subscriptions of the organization whose period ends by `until`, earliest end first. */
export async function dueBy(db: Queryable, organizationId: string, until: Date) {
  return db
    .select({
      id: subscription.id,
      currentPeriodEnd: subscription.currentPeriodEnd,
      recurringInterval: subscription.recurringInterval,
      recurringIntervalCount: subscription.recurringIntervalCount,
      cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    })
    .from(subscription)
    .where(
      and(
        eq(subscription.organizationId, organizationId),
        inArray(subscription.status, [...ACTIVE_STATUSES]),
        lte(subscription.currentPeriodEnd, until),
      ),
    )
    .orderBy(asc(subscription.currentPeriodEnd), asc(subscription.id));
}

/** The organization's earliest failed renewal charge due for a retry by `until` (billing/dunning), if any. */
export async function retryDueBy(db: Queryable, organizationId: string, until: Date): Promise<Date | undefined> {
  const [row] = await db
    .select({ at: orderDunning.nextAttemptAt })
    .from(orderDunning)
    .where(and(eq(orderDunning.organizationId, organizationId), isNotNull(orderDunning.nextAttemptAt), lte(orderDunning.nextAttemptAt, until)))
    .orderBy(asc(orderDunning.nextAttemptAt))
    .limit(1);
  return row?.at ?? undefined;
}

/** The organization's earliest expiry by `until` of a checkout not yet announced as expired, if any. */
export async function checkoutExpiryBy(db: Queryable, organizationId: string, until: Date): Promise<Date | undefined> {
  const [row] = await db
    .select({ at: checkout.expiresAt })
    .from(checkout)
    .where(and(eq(checkout.organizationId, organizationId), eq(checkout.status, "open"), lte(checkout.expiresAt, until)))
    .orderBy(asc(checkout.expiresAt))
    .limit(1);
  return row?.at;
}
