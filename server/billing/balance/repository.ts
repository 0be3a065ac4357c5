// SQL for customer balances: the ledger of movements per customer and currency (customer_balance_entry), and the
// proration lines a plan change carries to the next renewal (subscription_proration). Every query is scoped to
// the caller's organization.
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { customer, customerBalanceEntry, subscriptionProration } from "../../db/schema/index.js";

export type BalanceEntryRow = typeof customerBalanceEntry.$inferSelect;
export type ProrationRow = typeof subscriptionProration.$inferSelect;
export type BalanceEntryInsert = typeof customerBalanceEntry.$inferInsert;

/** Locks the customer row for the caller's transaction: balance movements of one customer are serialized. */
export async function lockCustomer(db: Queryable, organizationId: string, customerId: string): Promise<void> {
  await db
    .select({ id: customer.id })
    .from(customer)
    .where(and(eq(customer.organizationId, organizationId), eq(customer.id, customerId)))
    .for("update");
}

/** The sum of the customer's movements in the currency (positive: the customer has credit). */
export async function balanceOf(db: Queryable, organizationId: string, customerId: string, currency: string): Promise<number> {
  const [row] = await db
    .select({ total: sql<string | null>`sum(${customerBalanceEntry.amount})` })
    .from(customerBalanceEntry)
    .where(
      and(
        eq(customerBalanceEntry.organizationId, organizationId),
        eq(customerBalanceEntry.customerId, customerId),
        eq(customerBalanceEntry.currency, currency),
      ),
    );
  return Number(row?.total ?? 0);
}

/** Every currency's balance of the customer, with its movements oldest first. */
export async function entriesOf(db: Queryable, organizationId: string, customerId: string): Promise<BalanceEntryRow[]> {
  return db
    .select()
    .from(customerBalanceEntry)
    .where(and(eq(customerBalanceEntry.organizationId, organizationId), eq(customerBalanceEntry.customerId, customerId)))
    .orderBy(asc(customerBalanceEntry.createdAt), asc(customerBalanceEntry.id));
}

export async function insertEntry(db: Queryable, entry: BalanceEntryInsert): Promise<void> {
  await db.insert(customerBalanceEntry).values(entry);
}

export type ProrationValues = typeof subscriptionProration.$inferInsert;

/** The proration lines of the subscription (or of each of several) that no renewal has billed yet. */
function unbilledProrations(organizationId: string, subscriptionIds: string | string[]) {
  return and(
    eq(subscriptionProration.organizationId, organizationId),
    typeof subscriptionIds === "string"
      ? eq(subscriptionProration.subscriptionId, subscriptionIds)
      : inArray(subscriptionProration.subscriptionId, subscriptionIds),
    isNull(subscriptionProration.orderId),
  );
}

/** Proration lines in the order they were written. */
const oldestFirst = () => [asc(subscriptionProration.createdAt), asc(subscriptionProration.position)];

export async function insertProrations(db: Queryable, rows: ProrationValues[]): Promise<void> {
  if (rows.length > 0) await db.insert(subscriptionProration).values(rows);
}

/** The subscription's proration lines no renewal has billed yet, oldest first. */
export async function pendingProrations(db: Queryable, organizationId: string, subscriptionId: string): Promise<ProrationRow[]> {
  return db
    .select()
    .from(subscriptionProration)
    .where(unbilledProrations(organizationId, subscriptionId))
    .orderBy(...oldestFirst());
}

/** Records the renewal order that billed the subscription's pending proration lines. */
export async function markProrationsBilled(db: Queryable, organizationId: string, subscriptionId: string, orderId: string): Promise<void> {
  await db
    .update(subscriptionProration)
    .set({ orderId })
    .where(unbilledProrations(organizationId, subscriptionId));
}

// ---- a billing run's batch: many subscriptions or customers in one query each ----------------------------

/** Each subscription's proration lines no renewal has billed yet, oldest first (pendingProrations of many). */
export async function pendingProrationsOf(db: Queryable, organizationId: string, subscriptionIds: string[]): Promise<Map<string, ProrationRow[]>> {
  const out = new Map<string, ProrationRow[]>();
  if (subscriptionIds.length === 0) return out;
  const rows = await db
    .select()
    .from(subscriptionProration)
    .where(unbilledProrations(organizationId, subscriptionIds))
    .orderBy(...oldestFirst());
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

/** The wallet's payments for the subscription's usage that no renewal has billed yet. */
function unbilledUsage(organizationId: string, subscriptionId: string) {
  return and(
    eq(customerBalanceEntry.organizationId, organizationId),
    eq(customerBalanceEntry.subscriptionId, subscriptionId),
    eq(customerBalanceEntry.reason, "usage"),
    isNull(customerBalanceEntry.orderId),
  );
}

/**
 * What the wallet paid for the subscription's usage as it happened and no renewal has billed yet (minor units, ≥ 0).
 */
export async function prepaidUsage(db: Queryable, organizationId: string, subscriptionId: string): Promise<number> {
  const [row] = await db
    .select({ total: sql<string | null>`sum(${customerBalanceEntry.amount})` })
    .from(customerBalanceEntry)
    .where(unbilledUsage(organizationId, subscriptionId));
  return -Number(row?.total ?? 0);
}

/** Records the renewal order that billed the usage the wallet paid. */
export async function markUsageBilled(db: Queryable, organizationId: string, subscriptionId: string, orderId: string): Promise<void> {
  await db
    .update(customerBalanceEntry)
    .set({ orderId })
    .where(unbilledUsage(organizationId, subscriptionId));
}

/** Inserts a movement unless one with its idempotency key exists; whether it was inserted. */
export async function insertKeyedEntry(db: Queryable, entry: BalanceEntryInsert & { idempotencyKey: string }): Promise<boolean> {
  const rows = await db
    .insert(customerBalanceEntry)
    .values(entry)
    .onConflictDoNothing({ target: [customerBalanceEntry.organizationId, customerBalanceEntry.idempotencyKey], where: sql`${customerBalanceEntry.idempotencyKey} IS NOT NULL` })
    .returning({ id: customerBalanceEntry.id });
  return rows.length > 0;
}

/** The movement written under `key` (one per key and organization), or undefined. */
export async function entryByKey(db: Queryable, organizationId: string, key: string) {
  const [row] = await db
    .select()
    .from(customerBalanceEntry)
    .where(and(eq(customerBalanceEntry.organizationId, organizationId), eq(customerBalanceEntry.idempotencyKey, key)))
    .limit(1);
  return row;
}

/** What refunds of the order gave back to the wallet so far (minor units). */
export async function refundedToWallet(db: Queryable, organizationId: string, orderId: string): Promise<number> {
  const [row] = await db
    .select({ total: sql<string | null>`sum(${customerBalanceEntry.amount})` })
    .from(customerBalanceEntry)
    .where(and(eq(customerBalanceEntry.organizationId, organizationId), eq(customerBalanceEntry.orderId, orderId), eq(customerBalanceEntry.reason, "refund")));
  return Number(row?.total ?? 0);
}
