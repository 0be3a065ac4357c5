// SQL for wallets (customer_wallet) and their movements (the balance ledger, customer_balance_entry). Every query
// is scoped to the caller's organization; a wallet's balance moves only by inserting a movement (migration 0055's
// trigger), so the row and the ledger never disagree.
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { customerBalanceEntry, customerWallet } from "../../db/schema/index.js";
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
  const rows = await db
    .insert(customerBalanceEntry)
    .values(entry)
    .onConflictDoNothing({ target: [customerBalanceEntry.organizationId, customerBalanceEntry.idempotencyKey], where: sql`${customerBalanceEntry.idempotencyKey} IS NOT NULL` })
    .returning({ id: customerBalanceEntry.id });
  return rows.length > 0;
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
