// SQL for wallets (customer_wallet) and their movements (the balance ledger, customer_balance_entry). Every query
// is scoped to the caller's organization; a wallet's balance moves only by inserting a movement (migration 0055's
// trigger), so the row and the ledger never disagree.
import { and, count, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { customer, customerBalanceEntry, customerWallet, product, subscription } from "../../db/schema/index.js";
import { orderBy, type SortKey } from "../listing.js";

export type WalletRow = typeof customerWallet.$inferSelect;
export type MovementRow = typeof customerBalanceEntry.$inferSelect;
export type MovementInsert = typeof customerBalanceEntry.$inferInsert;
export type WalletSortKey = "created_at" | "balance";

export interface WalletFilter {
  customerIds?: string[];
}

export async function listWallets(db: Queryable, organizationId: string, filter: WalletFilter, sorting: Array<SortKey<WalletSortKey>>, limit: number, offset: number) {
  const where = and(eq(customerWallet.organizationId, organizationId), filter.customerIds ? inArray(customerWallet.customerId, filter.customerIds) : undefined);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(customerWallet)
      .where(where)
      .orderBy(...orderBy(sorting, { created_at: customerWallet.createdAt, balance: customerWallet.balance }, customerWallet.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(customerWallet).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function findWallet(db: Queryable, organizationId: string, id: string, customerId?: string): Promise<WalletRow | undefined> {
  const [row] = await db
    .select()
    .from(customerWallet)
    .where(and(eq(customerWallet.organizationId, organizationId), eq(customerWallet.id, id), customerId ? eq(customerWallet.customerId, customerId) : undefined));
  return row;
}

/** The wallet row locked for the caller's transaction (its balance is read again under the lock). */
export async function lockWallet(db: Queryable, organizationId: string, id: string): Promise<WalletRow | undefined> {
  const [row] = await db
    .select()
    .from(customerWallet)
    .where(and(eq(customerWallet.organizationId, organizationId), eq(customerWallet.id, id)))
    .for("update");
  return row;
}

export async function walletOf(db: Queryable, organizationId: string, customerId: string, currency: string): Promise<WalletRow | undefined> {
  const [row] = await db
    .select()
    .from(customerWallet)
    .where(and(eq(customerWallet.organizationId, organizationId), eq(customerWallet.customerId, customerId), eq(customerWallet.currency, currency)));
  return row;
}

/** The customer's wallet in the currency, made empty when it has none (the same row for two callers at once). */
export async function ensureWallet(db: Queryable, organizationId: string, customerId: string, currency: string, now: Date): Promise<WalletRow> {
  await db.insert(customerWallet).values({ organizationId, customerId, currency, createdAt: now }).onConflictDoNothing();
  const row = await walletOf(db, organizationId, customerId, currency);
  if (!row) throw new Error("ensureWallet: the wallet is missing after its insert");
  return row;
}

/** Inserts a movement unless one with its idempotency key exists; whether it was inserted. */
export async function insertMovement(db: Queryable, entry: MovementInsert): Promise<boolean> {
  return (await insertMovementRow(db, entry)) !== undefined;
}

/** Inserts a movement unless one with its idempotency key exists; the row inserted, or undefined. */
export async function insertMovementRow(db: Queryable, entry: MovementInsert): Promise<MovementRow | undefined> {
  const [row] = await db
    .insert(customerBalanceEntry)
    .values(entry)
    .onConflictDoNothing({ target: [customerBalanceEntry.organizationId, customerBalanceEntry.idempotencyKey], where: sql`${customerBalanceEntry.idempotencyKey} IS NOT NULL` })
    .returning();
  return row;
}

export async function movementByKey(db: Queryable, organizationId: string, key: string): Promise<MovementRow | undefined> {
  const [row] = await db
    .select()
    .from(customerBalanceEntry)
    .where(and(eq(customerBalanceEntry.organizationId, organizationId), eq(customerBalanceEntry.idempotencyKey, key)));
  return row;
}

/** The wallet's movements, newest first. */
export async function movementsOf(db: Queryable, w: WalletRow, limit: number, offset: number) {
  const where = and(
    eq(customerBalanceEntry.organizationId, w.organizationId),
    eq(customerBalanceEntry.customerId, w.customerId),
    eq(customerBalanceEntry.currency, w.currency),
  );
  const [rows, [total]] = await Promise.all([
    db.select().from(customerBalanceEntry).where(where).orderBy(desc(customerBalanceEntry.createdAt), desc(customerBalanceEntry.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(customerBalanceEntry).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export type RechargePatch = Partial<Pick<WalletRow, "autoRechargeEnabled" | "autoRechargeThreshold" | "autoRechargeAmount" | "rechargeBlockedAt">>;

export async function updateRecharge(db: Queryable, organizationId: string, id: string, patch: RechargePatch, now: Date): Promise<WalletRow | undefined> {
  const [row] = await db
    .update(customerWallet)
    .set({ ...patch, modifiedAt: now })
    .where(and(eq(customerWallet.organizationId, organizationId), eq(customerWallet.id, id)))
    .returning();
  return row;
}

/** The organization's products whose metadata `key` is true (usage paid from the wallet), id → name. */
export async function productsWithFlag(db: Queryable, organizationId: string, key: string): Promise<Map<string, string>> {
  const rows = await db
    .select({ id: product.id, name: product.name })
    .from(product)
    .where(and(eq(product.organizationId, organizationId), sql`${product.metadata} ->> ${key} = 'true'`));
  return new Map(rows.map((r) => [r.id, r.name]));
}

export interface PrepaidSubscription {
  id: string;
  customerId: string;
  externalId: string | null;
  productId: string;
  priceIds: string[];
  currency: string;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
}

/** The active and past due subscriptions to `productIds` of the customers named by id or external id. */
export async function subscriptionsOf(db: Queryable, organizationId: string, ids: string[], externalIds: string[], productIds: string[]): Promise<PrepaidSubscription[]> {
  if ((ids.length === 0 && externalIds.length === 0) || productIds.length === 0) return [];
  return db
    .select({
      id: subscription.id,
      customerId: subscription.customerId,
      externalId: customer.externalId,
      productId: subscription.productId,
      priceIds: subscription.priceIds,
      currency: subscription.currency,
      currentPeriodStart: subscription.currentPeriodStart,
      currentPeriodEnd: subscription.currentPeriodEnd,
    })
    .from(subscription)
    .innerJoin(customer, and(eq(customer.id, subscription.customerId), eq(customer.organizationId, subscription.organizationId)))
    .where(
      and(
        eq(subscription.organizationId, organizationId),
        inArray(subscription.productId, productIds),
        inArray(subscription.status, ["active", "past_due"]),
        isNull(customer.deletedAt),
        or(ids.length > 0 ? inArray(customer.id, ids) : undefined, externalIds.length > 0 ? inArray(customer.externalId, externalIds) : undefined),
      ),
    );
}

/** The subscription's current period start, its row share-locked (a renewal changing it commits first). */
export async function lockedPeriodStart(db: Queryable, organizationId: string, id: string): Promise<Date | undefined> {
  const [row] = await db
    .select({ start: subscription.currentPeriodStart, status: subscription.status })
    .from(subscription)
    .where(and(eq(subscription.organizationId, organizationId), eq(subscription.id, id)))
    .for("share");
  return row && (row.status === "active" || row.status === "past_due") ? row.start : undefined;
}
