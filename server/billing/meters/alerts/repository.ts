// SQL of usage alerts (org-scoped): the alerts, their crossings (one per alert, customer and period: the unique
// key makes a repeat a no-op), and the reads the ingest-time check needs (open subscriptions of the customers
// a batch named; the organization's owners, told by email).
import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { Queryable } from "../../../db/client.js";
import { customer, member, organizationSandbox, subscription, usageAlert, usageAlertCrossing, user } from "../../../db/schema/index.js";
import type { UsageAlertRow } from "./wire.js";

export async function insertAlert(db: Queryable, values: typeof usageAlert.$inferInsert): Promise<UsageAlertRow> {
  const [row] = await db.insert(usageAlert).values(values).returning();
  return row!;
}

export async function findAlert(db: Queryable, organizationId: string, id: string): Promise<UsageAlertRow | undefined> {
  const [row] = await db.select().from(usageAlert).where(and(eq(usageAlert.organizationId, organizationId), eq(usageAlert.id, id)));
  return row;
}

export async function listAlerts(db: Queryable, organizationId: string, meterId?: string): Promise<UsageAlertRow[]> {
  return db
    .select()
    .from(usageAlert)
    .where(and(eq(usageAlert.organizationId, organizationId), meterId ? eq(usageAlert.meterId, meterId) : undefined))
    .orderBy(asc(usageAlert.createdAt), asc(usageAlert.id))
    .limit(1000);
}

export async function deleteAlert(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const gone = await db
    .delete(usageAlert)
    .where(and(eq(usageAlert.organizationId, organizationId), eq(usageAlert.id, id)))
    .returning({ id: usageAlert.id });
  return gone.length > 0;
}

export interface OpenSubscription {
  id: string;
  customerId: string;
  externalId: string | null;
  email: string | null;
  name: string | null;
  priceIds: string[];
  currency: string;
  status: string;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
}

/** The open (active, trialing, past due) subscriptions of the customers named by id or external id. */
export async function openSubscriptionsOf(db: Queryable, organizationId: string, ids: string[], externalIds: string[]): Promise<OpenSubscription[]> {
  if (ids.length === 0 && externalIds.length === 0) return [];
  return db
    .select({
      id: subscription.id,
      customerId: customer.id,
      externalId: customer.externalId,
      email: customer.email,
      name: customer.name,
      priceIds: subscription.priceIds,
      currency: subscription.currency,
      status: subscription.status,
      currentPeriodStart: subscription.currentPeriodStart,
      currentPeriodEnd: subscription.currentPeriodEnd,
    })
    .from(customer)
    .innerJoin(subscription, and(eq(subscription.customerId, customer.id), eq(subscription.organizationId, organizationId)))
    .where(
      and(
        eq(customer.organizationId, organizationId),
        isNull(customer.deletedAt),
        or(ids.length > 0 ? inArray(customer.id, ids) : undefined, externalIds.length > 0 ? inArray(customer.externalId, externalIds) : undefined),
        inArray(subscription.status, ["active", "trialing", "past_due"]),
      ),
    );
}

/** Which (alert, customer, period start) of these already crossed, as `${alert}/${customer}/${ms}` keys. */
export async function crossedKeys(db: Queryable, organizationId: string, customerIds: string[], periodStarts: Date[]): Promise<Set<string>> {
  if (customerIds.length === 0) return new Set();
  const rows = await db
    .select({ a: usageAlertCrossing.alertId, c: usageAlertCrossing.customerId, p: usageAlertCrossing.periodStart })
    .from(usageAlertCrossing)
    .where(
      and(
        eq(usageAlertCrossing.organizationId, organizationId),
        inArray(usageAlertCrossing.customerId, customerIds),
        inArray(usageAlertCrossing.periodStart, periodStarts),
      ),
    );
  return new Set(rows.map((r) => `${r.a}/${r.c}/${r.p.getTime()}`));
}

/** Records a crossing; undefined when it was recorded before (another batch got there first). */
export async function insertCrossing(
  tx: Queryable,
  values: typeof usageAlertCrossing.$inferInsert,
): Promise<typeof usageAlertCrossing.$inferSelect | undefined> {
  const [row] = await tx.insert(usageAlertCrossing).values(values).onConflictDoNothing().returning();
  return row;
}

/** The emails of the organization's owners (a sandbox twin's: its live organization's). */
export async function ownerEmails(db: Queryable, organizationId: string): Promise<string[]> {
  const liveOf = db
    .select({ id: organizationSandbox.liveOrganizationId })
    .from(organizationSandbox)
    .where(eq(organizationSandbox.organizationId, organizationId));
  const rows = await db
    .select({ email: user.email, role: member.role })
    .from(member)
    .innerJoin(user, eq(user.id, member.userId))
    .where(eq(member.organizationId, sql`coalesce((${liveOf}), ${organizationId}::uuid)`));
  return rows.filter((r) => r.role.split(",").map((s) => s.trim()).includes("owner")).map((r) => r.email);
}
