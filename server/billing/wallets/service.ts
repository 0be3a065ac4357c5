// Wallets: a customer's prepaid balance per currency, Polar's `Wallet` / `CustomerWallet`
// ({id, created_at, modified_at, customer_id, balance, currency}). The balance is the customer balance the
// renewals, prorations and checkouts already spend first (billing/balance: `settle`), so a wallet pays invoices
// before the card with no path of its own. Its history (`WalletTransaction`) and its auto-recharge settings are
// till's own shapes, on till's own routes (the SDKs model neither).
import type { Db, Queryable } from "../../db/client.js";
import { listCheckoutLinks } from "../checkout-links/service.js";
import { findCustomerRow } from "../customers/service.js";
import { invalid, notFound } from "../errors.js";
import type { SortKey } from "../listing.js";
import * as repo from "./repository.js";
import { debitUsage, type NamedCustomers } from "./usage.js";

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** Polar's Wallet (seller) and CustomerWallet (portal): the same six fields. */
export function walletWire(w: repo.WalletRow) {
  return {
    id: w.id,
    created_at: w.createdAt.toISOString(),
    modified_at: iso(w.modifiedAt),
    customer_id: w.customerId,
    balance: w.balance,
    currency: w.currency,
  };
}
export type WalletWire = ReturnType<typeof walletWire>;

/** The kinds of movement a wallet's history shows (the ledger's reasons, named for the customer). */
export const TRANSACTION_TYPES = ["top_up", "auto_recharge", "credit_purchase", "order_payment", "usage", "refund", "adjustment", "proration_credit"] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

const TYPE_OF: Record<string, TransactionType> = { order_applied: "order_payment" };
const LABEL: Record<TransactionType, string> = {
  top_up: "Top-up",
  auto_recharge: "Auto-recharge",
  credit_purchase: "Credits purchased",
  order_payment: "Paid an order",
  usage: "Usage",
  refund: "Refund",
  adjustment: "Adjustment",
  proration_credit: "Plan change credit",
};

/** till's WalletTransaction: one movement (positive credits the wallet, negative spends it). */
export function transactionWire(w: repo.WalletRow, m: repo.MovementRow) {
  const type = TYPE_OF[m.reason] ?? (m.reason as TransactionType);
  return {
    id: m.id,
    created_at: m.createdAt.toISOString(),
    wallet_id: w.id,
    type,
    amount: m.amount,
    currency: m.currency,
    description: m.description ?? LABEL[type] ?? m.reason,
    /** The product a usage movement paid for (its description, in English, names it too); null on other movements. */
    product_name: m.productName,
    order_id: m.orderId,
  };
}

/** till's WalletAutoRecharge: below `threshold_amount`, the saved card is charged `amount`. */
export function autoRechargeWire(w: repo.WalletRow) {
  return {
    wallet_id: w.id,
    enabled: w.autoRechargeEnabled,
    threshold_amount: w.autoRechargeThreshold,
    amount: w.autoRechargeAmount,
    blocked_at: iso(w.rechargeBlockedAt),
  };
}

export async function listWallets(db: Queryable, organizationId: string, filter: repo.WalletFilter, sorting: Array<SortKey<repo.WalletSortKey>>, pageNo: number, limit: number) {
  const { rows, total } = await repo.listWallets(db, organizationId, filter, sorting, limit, (pageNo - 1) * limit);
  return { items: rows.map(walletWire), total };
}

/** The wallet (the customer's own when `customerId` is given); anyone else's is a 404. */
export async function findWallet(db: Queryable, organizationId: string, id: string, customerId?: string): Promise<repo.WalletRow> {
  const row = await repo.findWallet(db, organizationId, id, customerId);
  if (!row) throw notFound("Wallet not found");
  return row;
}

export async function transactions(db: Queryable, organizationId: string, id: string, pageNo: number, limit: number, customerId?: string) {
  const w = await findWallet(db, organizationId, id, customerId);
  const { rows, total } = await repo.movementsOf(db, w, limit, (pageNo - 1) * limit);
  return { items: rows.map((m) => transactionWire(w, m)), total };
}

/** The customer's wallet in the currency, made (empty) when it has none: till's POST /v1/wallets/. */
export async function openWallet(db: Queryable, organizationId: string, customerId: string, currency: string, now: Date) {
  await findCustomerRow(db, organizationId, { id: customerId });
  return repo.ensureWallet(db, organizationId, customerId, currency.toLowerCase(), now);
}

export interface Adjustment {
  /** Minor units: positive credits the wallet, negative debits it. */
  amount: number;
  /** Why (the history's description). */
  reason: string;
}

/**
 * A seller's adjustment (till's own POST /v1/wallets/{id}/adjustments; Polar has no such route): credits or debits
 * the wallet by hand, with a reason, under the wallet's lock. A debit may not take the balance below zero. `key`
 * (the request's Idempotency-Key) makes it one movement: a repeat answers the movement made first.
 */
export async function adjustWallet(db: Db, organizationId: string, id: string, a: Adjustment, key: string) {
  return db.transaction(async (tx) => {
    const w = await repo.lockWallet(tx, organizationId, id);
    if (!w) throw notFound("Wallet not found");
    const done = await repo.movementByKey(tx, organizationId, `adjustment:${key}`);
    if (done) return transactionWire(w, done);
    if (w.balance + a.amount < 0) {
      throw invalid(["body", "amount"], `The debit is more than the wallet's balance (${w.balance}).`, "value_error");
    }
    const row = await repo.insertMovementRow(tx, {
      organizationId,
      customerId: w.customerId,
      currency: w.currency,
      amount: a.amount,
      reason: "adjustment",
      description: a.reason,
      idempotencyKey: `adjustment:${key}`,
    });
    if (!row) throw new Error("adjustWallet: the movement's key was taken under the wallet's lock");
    return transactionWire(w, row);
  });
}

export interface RechargeSettings {
  enabled?: boolean;
  threshold_amount?: number;
  amount?: number;
}

/**
 * Changes the wallet's auto-recharge. Turning it on needs an amount (what the card is charged, at least 1 minor
 * unit); turning it on again, or saving it, clears a decline's block (the customer says the card is fixed).
 */
export async function setAutoRecharge(db: Queryable, organizationId: string, id: string, s: RechargeSettings, now: Date, customerId?: string) {
  const w = await findWallet(db, organizationId, id, customerId);
  const amount = s.amount ?? w.autoRechargeAmount;
  const enabled = s.enabled ?? w.autoRechargeEnabled;
  if (enabled && amount <= 0) throw invalid(["body", "amount"], "An amount to charge is required to turn auto-recharge on.", "value_error", "recharge_amount_required");
  const row = await repo.updateRecharge(
    db,
    organizationId,
    w.id,
    { autoRechargeEnabled: enabled, autoRechargeAmount: amount, autoRechargeThreshold: s.threshold_amount ?? w.autoRechargeThreshold, ...(enabled ? { rechargeBlockedAt: null } : {}) },
    now,
  );
  if (!row) throw notFound("Wallet not found");
  return autoRechargeWire(row);
}

/**
 * Where the customer buys credits (till's own, the portal's "Buy credits"): the organization's checkout links
 * that offer a credit product (metadata `till_credits`), newest first, at most 20.
 */
export async function creditOffers(db: Db, baseURL: string, organizationId: string) {
  const { items } = await listCheckoutLinks({ db, baseURL }, organizationId, {}, [{ key: "created_at", desc: true }], 1, 100);
  return items
    .flatMap((link) => {
      const product = link.products.find((p) => p.metadata.till_credits !== undefined);
      return product ? [{ checkout_link_id: link.id, product_id: product.id, name: link.label ?? product.name, url: link.url }] : [];
    })
    .slice(0, 20);
}

/**
 * After an ingest: the usage of the named customers' subscriptions to products that take usage from the wallet
 * (`till_usage_from_wallet`) is debited from their wallets (usage.ts). A failure is logged, never the ingest's.
 */
export async function debitUsageAfterIngest(db: Db, organizationId: string, named: NamedCustomers, onError: (err: unknown) => void): Promise<number> {
  try {
    return await debitUsage(db, organizationId, named);
  } catch (err) {
    onError(err);
    return 0;
  }
}
