// Customer balance: what a downgrade credits the customer, used by the customer's next orders in
// the same currency. Kept as a ledger — every credit and every use is a row — so the balance is a sum and each
// movement names its order. `applied_balance_amount` on an order is the balance it moved: negative when the
// order used credit (its `due_amount` is less than its total), positive when the order's credit (a negative
// total) went to the balance.
import type { Queryable } from "../../db/client.js";
import * as repo from "./repository.js";

// ---- prorations: a mid-period change's lines, carried to the subscription's next order -------------------------

/** Records a change's proration lines (none: nothing written). */
export const insertProrations = (db: Queryable, rows: repo.ProrationValues[]) => repo.insertProrations(db, rows);

/** The subscription's proration lines not yet on an order, oldest first. */
export const pendingProrations = (db: Queryable, organizationId: string, subscriptionId: string) =>
  repo.pendingProrations(db, organizationId, subscriptionId);

/** Marks the subscription's pending proration lines as billed by the order. */
export const markProrationsBilled = (db: Queryable, organizationId: string, subscriptionId: string, orderId: string) =>
  repo.markProrationsBilled(db, organizationId, subscriptionId, orderId);

/** pendingProrations of many subscriptions, by subscription id (a renewal batch). */
export const pendingProrationsOf = (db: Queryable, organizationId: string, subscriptionIds: string[]) =>
  repo.pendingProrationsOf(db, organizationId, subscriptionIds);

/** Each customer's balance per currency (key `customerId:currency`), for those with any movement (a renewal batch). */
export const balancesOf = (db: Queryable, organizationId: string, customerIds: string[]) => repo.balancesOf(db, organizationId, customerIds);

// ---- the balance ----------------------------------------------------------------------------------------------

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
  /** What this order left unpaid because it was under the minimum charge: a debt on the balance (settleCarrying). */
  carried?: number;
  /** The debt of earlier orders this order collects (settleCarrying). */
  collected?: number;
}

/**
 * A renewal's settlement, Stripe Billing's way with amounts under the processor's minimum charge: as `settle`
 * (credit first, leaving the minimum or nothing to charge), and besides a debt carried from an earlier order is
 * collected with this one; what would be left to charge under `minimum` is not charged but carried to the
 * balance as a debt (the order is paid: `applied` is −total), collected by the customer's next order.
 */
export async function settleCarrying(
  db: Queryable,
  organizationId: string,
  customerId: string,
  currency: string,
  total: number,
  minimum: number,
  preview?: BalancePreview,
): Promise<Settlement> {
  if (total <= 0) return settle(db, organizationId, customerId, currency, total, 1, preview);
  const cur = currency.toLowerCase();
  let balance = await balanceSeen(db, organizationId, customerId, cur, preview);
  if (balance < 0 && !preview) {
    // a debt to collect: read again under the customer's lock, so two orders never collect it twice
    await repo.lockCustomer(db, organizationId, customerId);
    balance = await repo.balanceOf(db, organizationId, customerId, cur);
  }
  const s = balance > 0 ? await settle(db, organizationId, customerId, currency, total, minimum, preview) : { applied: 0, due: total };
  const debt = Math.max(0, -balance);
  const due = s.due + debt;
  if (due > 0 && due < minimum) return { applied: -total, due: 0, carried: total + s.applied };
  return debt > 0 ? { applied: debt, due, collected: debt } : s;
}

/**
 * A preview's view of the balance: read once and never locked (it writes nothing), moved by `shift` — what the
 * previewed change's own order would have moved it by before the settlement read it.
 */
export interface BalancePreview {
  shift: number;
}

const balanceSeen = async (db: Queryable, organizationId: string, customerId: string, currency: string, preview: BalancePreview | undefined) =>
  (await repo.balanceOf(db, organizationId, customerId, currency)) + (preview?.shift ?? 0);

/**
 * Settles an order total against the customer's balance in the caller's transaction (when there is credit to
 * use, the customer row is locked until it ends): a positive total uses the credit available, up to the total;
 * a negative total (a net credit) is credited to the balance. The ledger row is written by `recordSettlement`
 * (or a checkout's confirm statement, `settlementEntry`) once the order exists. `minimum` is the smallest amount the
 * payment processor may charge in the currency: credit that would leave less than it to charge is used only up to
 * leaving the minimum (a card is never asked for 20 cents it would refuse), or all of it when it pays everything.
 */
export async function settle(db: Queryable, organizationId: string, customerId: string, currency: string, total: number, minimum = 1, preview?: BalancePreview): Promise<Settlement> {
  if (total < 0) return { applied: -total, due: 0 };
  if (total === 0) return { applied: 0, due: 0 };
  // most customers have no credit: one read, no lock (a credit recorded meanwhile is used by a later order);
  // credit to spend is read again under the customer's lock, so two orders never spend it twice
  const seen = await balanceSeen(db, organizationId, customerId, currency.toLowerCase(), preview);
  if (seen <= 0) return { applied: 0, due: total };
  let available = seen;
  if (!preview) {
    await repo.lockCustomer(db, organizationId, customerId);
    available = await repo.balanceOf(db, organizationId, customerId, currency.toLowerCase());
  }
  let used = Math.max(0, Math.min(available, total));
  if (total - used > 0 && total - used < minimum) used = Math.max(0, total - minimum);
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
    reason: s.carried ? "carried" : s.collected ? "carried_collected" : s.applied > 0 ? "proration_credit" : "order_applied",
    orderId: ref.orderId,
    subscriptionId: ref.subscriptionId,
  };
}

/** Writes the settlement's ledger row (nothing when nothing moved). */
export async function recordSettlement(db: Queryable, organizationId: string, s: Settlement, ref: SettlementRef): Promise<void> {
  const entry = settlementEntry(organizationId, s, ref);
  if (entry) await repo.insertEntry(db, entry);
}

/**
 * Usage paid from the wallet as it happens (till's own switch): a product whose metadata says
 * `till_usage_from_wallet: true` has its subscriptions' metered usage debited from the customer's wallet right
 * after each ingest (billing/wallets/usage.ts), and its renewal bills only what the wallet did not cover.
 */
export const USAGE_FROM_WALLET_KEY = "till_usage_from_wallet";
export const usageFromWallet = (metadata: Record<string, unknown> | null | undefined): boolean => {
  const v = metadata?.[USAGE_FROM_WALLET_KEY];
  return v === true || v === "true";
};

/** What the wallet paid for the subscription's usage in its current period (no renewal has billed it yet). */
export const prepaidUsage = (db: Queryable, organizationId: string, subscriptionId: string) => repo.prepaidUsage(db, organizationId, subscriptionId);

/**
 * A renewal's settlement when the wallet already paid `prepaid` of its usage: the rest of the total is settled
 * as usual (the balance first), and the order's `applied_balance_amount` counts both. The ledger row to write is
 * `ledger`'s (the prepaid part is in the ledger already); `markUsageBilled` names the order on the usage rows.
 */
export async function settleAfterPrepaid(
  db: Queryable,
  organizationId: string,
  customerId: string,
  currency: string,
  total: number,
  prepaid: number,
  minimum = 1,
  preview?: BalancePreview,
) {
  const ledger = await settle(db, organizationId, customerId, currency, total - prepaid, minimum, preview);
  return { ledger, order: { applied: ledger.applied - prepaid, due: ledger.due } satisfies Settlement };
}

export const markUsageBilled = (db: Queryable, organizationId: string, subscriptionId: string, orderId: string) =>
  repo.markUsageBilled(db, organizationId, subscriptionId, orderId);

/**
 * The part of a refund that goes back to the wallet: what the wallet paid of the order
 * (`-applied_balance_amount`) comes back in proportion to what is refunded, counted cumulatively over the order's
 * refunds (the last one makes it exact); `toWallet` (till's `refund_to: "wallet"`) sends all of it there.
 */
export async function walletShareOfRefund(
  db: Queryable,
  order: { organizationId: string; id: string; totalAmount: number; appliedBalanceAmount: number; refundedAmount: number; refundedTaxAmount: number },
  gross: number,
  toWallet: boolean,
): Promise<number> {
  if (toWallet) return gross;
  const walletPaid = Math.max(0, -order.appliedBalanceAmount);
  if (walletPaid === 0 || order.totalAmount <= 0) return 0;
  const returned = await repo.refundedToWallet(db, order.organizationId, order.id);
  const refundedGross = order.refundedAmount + order.refundedTaxAmount + gross;
  const due = Math.min(walletPaid, Math.round((walletPaid * refundedGross) / order.totalAmount));
  return Math.max(0, Math.min(gross, due - returned));
}

/** Credits the wallet with a refund's part, once per refund (its key `refund:<id>`). */
export async function creditRefund(
  db: Queryable,
  r: { organizationId: string; customerId: string; currency: string; amount: number; orderId: string; refundId: string; subscriptionId: string | null },
) {
  if (r.amount <= 0) return false;
  return repo.insertKeyedEntry(db, {
    organizationId: r.organizationId,
    customerId: r.customerId,
    currency: r.currency.toLowerCase(),
    amount: r.amount,
    reason: "refund",
    orderId: r.orderId,
    subscriptionId: r.subscriptionId,
    idempotencyKey: `refund:${r.refundId}`,
  });
}

/** What a refund gave back to the customer's wallet (its `refund` movement), 0 when nothing. */
export async function walletCreditOfRefund(db: Queryable, organizationId: string, refundId: string): Promise<number> {
  const credited = await repo.entryByKey(db, organizationId, `refund:${refundId}`);
  return credited && credited.amount > 0 ? credited.amount : 0;
}

/**
 * Takes back from the wallet what a refund credited to it (creditRefund), once per refund (its key
 * `refund_reversed:<id>`): the refund failed at the processor, so the order is paid again as it was. A `refund`
 * movement of the opposite amount, so what the order's refunds gave back to the wallet (refundedToWallet) counts
 * it no more. The wallet may go below zero when the customer spent the credit meanwhile. Answers the amount taken.
 */
export async function reverseRefundCredit(db: Queryable, r: { organizationId: string; refundId: string }): Promise<number> {
  const credited = await repo.entryByKey(db, r.organizationId, `refund:${r.refundId}`);
  if (!credited || credited.amount <= 0) return 0;
  const written = await repo.insertKeyedEntry(db, {
    organizationId: r.organizationId,
    customerId: credited.customerId,
    currency: credited.currency,
    amount: -credited.amount,
    reason: "refund",
    description: "Refund failed",
    orderId: credited.orderId,
    subscriptionId: credited.subscriptionId,
    idempotencyKey: `refund_reversed:${r.refundId}`,
  });
  return written ? credited.amount : 0;
}
