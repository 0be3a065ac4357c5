// Customer balance (issue 14 §4): what a downgrade credits the customer, used by the customer's next orders in
// the same currency. Kept as a ledger — every credit and every use is a row — so the balance is a sum and each
// movement names its order. `applied_balance_amount` on an order is the balance it moved: negative when the
// order used credit (its `due_amount` is less than its total), positive when the order's credit (a negative
// total) went to the balance.
import type { Queryable } from "../../db/client.js";
import * as repo from "./repository.js";

export { pendingProrations, markProrationsBilled, insertProrations, type ProrationRow } from "./repository.js";

/** The customer's balance in the currency, in minor units (positive: credit the customer may spend). */
export const customerBalance = (db: Queryable, organizationId: string, customerId: string, currency: string) =>
  repo.balanceOf(db, organizationId, customerId, currency.toLowerCase());

/** Every currency's balance of the customer (a till extension's answer: `{currency: amount}`). */
export async function customerBalances(db: Queryable, organizationId: string, customerId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const e of await repo.entriesOf(db, organizationId, customerId)) out[e.currency] = (out[e.currency] ?? 0) + e.amount;
  return out;
}

export interface Settlement {
  /** The order's `applied_balance_amount`: −used (a charge paid partly by credit), +credited (a net credit), or 0. */
  applied: number;
  /** What is left to charge with the payment method (never negative). */
  due: number;
}

/**
 * Settles an order total against the customer's balance in the caller's transaction (when there is credit to
 * use, the customer row is locked until it ends): a positive total uses the credit available, up to the total;
 * a negative total (a net credit) is credited to the balance. The ledger row is written by `recordSettlement`
 * (or a checkout's confirm statement, `settlementEntry`) once the order exists.
 */
export async function settle(db: Queryable, organizationId: string, customerId: string, currency: string, total: number): Promise<Settlement> {
  if (total < 0) return { applied: -total, due: 0 };
  if (total === 0) return { applied: 0, due: 0 };
  // most customers have no credit: one read, no lock (a credit recorded meanwhile is used by a later order);
  // credit to spend is read again under the customer's lock, so two orders never spend it twice
  if ((await repo.balanceOf(db, organizationId, customerId, currency.toLowerCase())) <= 0) return { applied: 0, due: total };
  await repo.lockCustomer(db, organizationId, customerId);
  const available = await repo.balanceOf(db, organizationId, customerId, currency.toLowerCase());
  const used = Math.max(0, Math.min(available, total));
  return { applied: -used, due: total - used };
}

export interface SettlementRef {
  customerId: string;
  currency: string;
  orderId: string;
  subscriptionId: string | null;
}

/** The settlement's ledger row, or null when nothing moved (a checkout's confirm writes it in its own statement). */
export function settlementEntry(organizationId: string, s: Settlement, ref: SettlementRef): repo.BalanceEntryInsert | null {
  if (s.applied === 0) return null;
  return {
    organizationId,
    customerId: ref.customerId,
    currency: ref.currency.toLowerCase(),
    // the order's applied amount moved the balance the same way: +credit, −use
    amount: s.applied,
    reason: s.applied > 0 ? "proration_credit" : "order_applied",
    orderId: ref.orderId,
    subscriptionId: ref.subscriptionId,
  };
}

/** Writes the settlement's ledger row (nothing when nothing moved). */
export async function recordSettlement(db: Queryable, organizationId: string, s: Settlement, ref: SettlementRef): Promise<void> {
  const entry = settlementEntry(organizationId, s, ref);
  if (entry) await repo.insertEntry(db, entry);
}
