// SQL for customer balances: the ledger of movements per customer and currency (customer_balance_entry), and the
// proration lines a plan change carries to the next renewal (subscription_proration). Every query is scoped to
// the caller's organization.
import { and, asc, eq, isNull, sql } from "drizzle-orm";
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

export async function insertProrations(db: Queryable, rows: Array<typeof subscriptionProration.$inferInsert>): Promise<void> {
  if (rows.length > 0) await db.insert(subscriptionProration).values(rows);
}

/** The subscription's proration lines no renewal has billed yet, oldest first. */
export async function pendingProrations(db: Queryable, organizationId: string, subscriptionId: string): Promise<ProrationRow[]> {
  return db
    .select()
    .from(subscriptionProration)
    .where(
      and(
        eq(subscriptionProration.organizationId, organizationId),
        eq(subscriptionProration.subscriptionId, subscriptionId),
        isNull(subscriptionProration.orderId),
      ),
    )
    .orderBy(asc(subscriptionProration.createdAt), asc(subscriptionProration.position));
}

/** Records the renewal order that billed the subscription's pending proration lines. */
export async function markProrationsBilled(db: Queryable, organizationId: string, subscriptionId: string, orderId: string): Promise<void> {
  await db
    .update(subscriptionProration)
    .set({ orderId })
    .where(
      and(
        eq(subscriptionProration.organizationId, organizationId),
        eq(subscriptionProration.subscriptionId, subscriptionId),
        isNull(subscriptionProration.orderId),
      ),
    );
}
