// The wallet's outbox subscriber, run by the worker on each fanned-out batch, in its transaction:
//
//  - Credit products. A paid order (`order.paid`) of a product whose metadata says `till_credits` credits the
//    customer's wallet in the order's currency, once per order (the movement's key `credit_purchase:<order>`):
//    `till_credits: "paid"` credits what the order's lines came to after discount and before tax (`net_amount`:
//    a pay-what-you-want price credits what the customer chose to pay, a fixed price its amount), and a whole
//    number (`till_credits: 1200`) credits that many minor units whatever was paid (a pack of $12 for $10).
//  - Auto-recharge. Any movement that spent the wallet (the `till.wallet.transaction.created` event the ledger's
//    trigger records with every movement, migration 0057: an order it paid, usage, a seller's debit) may have
//    taken the balance below the wallet's threshold: a job is recorded, keyed by that movement (one per wallet and
//    batch), and charges the saved card after the fan-out's commit (recharge.ts): a slow processor holds up neither
//    the fan-out nor the wallet. A wallet recharged above its threshold is not charged again, nor one whose bank
//    debit is still on its way.
//
// Each order runs in a savepoint: one that fails (logged) must not hold back the batch's webhooks.
import type { Queryable } from "../../db/client.js";
import type { OutboxSubscriber } from "../../db/outbox.js";
import { recordProcessorJobs } from "../../tasks/processor-jobs.js";
import * as repo from "./repository.js";

/** The event the ledger's trigger records with every movement (migration 0057). */
export const WALLET_TRANSACTION_EVENT = "till.wallet.transaction.created";

interface OutboxRowView {
  organizationId: string;
  type: string;
  payload: Record<string, unknown>;
}

interface PaidOrder {
  organizationId: string;
  id: string;
  customerId: string;
  currency: string;
  net: number;
  credits: unknown;
}

function orderOf(row: OutboxRowView): PaidOrder | null {
  const p = row.payload;
  if (typeof p.id !== "string" || typeof p.customer_id !== "string" || typeof p.currency !== "string") return null;
  const product = p.product as { metadata?: Record<string, unknown> } | null | undefined;
  return {
    organizationId: row.organizationId,
    id: p.id,
    customerId: p.customer_id,
    currency: p.currency.toLowerCase(),
    net: typeof p.net_amount === "number" ? p.net_amount : 0,
    credits: product?.metadata?.till_credits,
  };
}

/** What a paid order of the product credits (minor units), by its `till_credits` metadata; 0: not a credit product. */
export function creditOf(credits: unknown, net: number): number {
  if (credits === "paid") return Math.max(0, net);
  const n = typeof credits === "number" ? credits : typeof credits === "string" && /^\d+$/.test(credits) ? Number(credits) : 0;
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

async function credit(tx: Queryable, o: PaidOrder): Promise<number> {
  const amount = creditOf(o.credits, o.net);
  if (amount === 0) return 0;
  // the ledger's times are the wall clock's (as the renewals' movements): a history in the order things happened
  const moved = await repo.insertMovement(tx, {
    organizationId: o.organizationId,
    customerId: o.customerId,
    currency: o.currency,
    amount,
    reason: "credit_purchase",
    orderId: o.id,
    idempotencyKey: `credit_purchase:${o.id}`,
  });
  return moved ? 1 : 0;
}

/** A movement that spent a wallet (its outbox event's payload). */
interface Spend {
  organizationId: string;
  walletId: string;
  movementId: string;
}

function spendOf(row: OutboxRowView): Spend | null {
  const p = row.payload;
  if (typeof p.wallet_id !== "string" || typeof p.id !== "string" || typeof p.amount !== "number" || p.amount >= 0) return null;
  return { organizationId: row.organizationId, walletId: p.wallet_id, movementId: p.id };
}

/** Credits for a batch's paid orders of credit products; returns how many wallets moved (their events go out next). */
export async function walletsFromOutbox(tx: Queryable, rows: OutboxRowView[], log: { error(err: unknown, msg: string): void }): Promise<number> {
  const paid = new Map<string, PaidOrder>();
  for (const row of rows) {
    if (row.type !== "order.paid") continue;
    const o = orderOf(row);
    if (o && o.credits !== undefined) paid.set(`${o.organizationId}/${o.id}`, o);
  }
  let moved = 0;
  for (const o of paid.values()) {
    try {
      moved += await tx.transaction((sp) => credit(sp, o));
    } catch (err) {
      log.error(err, `crediting the wallet of order ${o.id} failed`);
    }
  }
  return moved;
}

/**
 * The recharges a batch's spending movements may call for (per wallet, its first of the batch), as jobs: only for a
 * wallet with auto-recharge on and its balance below the threshold now (the job decides again under its lock).
 */
export async function rechargesFromOutbox(tx: Queryable, rows: OutboxRowView[]): Promise<number> {
  const spent = new Map<string, Spend>();
  for (const row of rows) {
    if (row.type !== WALLET_TRANSACTION_EVENT) continue;
    const s = spendOf(row);
    if (s && !spent.has(s.walletId)) spent.set(s.walletId, s);
  }
  const due: Spend[] = [];
  for (const s of spent.values()) {
    const w = await repo.findWallet(tx, s.organizationId, s.walletId);
    if (w?.autoRechargeEnabled && w.balance < w.autoRechargeThreshold) due.push(s);
  }
  return recordProcessorJobs(tx, due.map((s) => ({ organizationId: s.organizationId, kind: "wallet_recharge" as const, subject: s.walletId, cause: s.movementId })));
}

/** The credits' subscriber the worker runs. */
export const walletSubscriber: OutboxSubscriber<OutboxRowView> = { name: "wallets", receive: (tx, rows, log) => walletsFromOutbox(tx, rows, log) };

/** The recharges' subscriber: records the jobs the wallet-recharges job does after the commit. */
export const rechargeSubscriber: OutboxSubscriber<OutboxRowView> = { name: "wallet-recharges", receive: (tx, rows) => rechargesFromOutbox(tx, rows) };
