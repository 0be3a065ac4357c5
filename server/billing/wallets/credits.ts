// The wallet's outbox subscriber, run by the worker on each fanned-out batch, in its transaction:
//
//  - Credit products. A paid order (`order.paid`) of a product whose metadata says `till_credits` credits the
//    customer's wallet in the order's currency, once per order (the movement's key `credit_purchase:<order>`):
//    `till_credits: "paid"` credits what the order's lines came to after discount and before tax (`net_amount`:
//    a pay-what-you-want price credits what the customer chose to pay, a fixed price its amount), and a whole
//    number (`till_credits: 1200`) credits that many minor units whatever was paid (a pack of $12 for $10).
//  - Auto-recharge. Any movement that spent the wallet (the `till.wallet.transaction.created` event the ledger's
//    trigger records with every movement, migration 0057: an order it paid, usage, a seller's debit) may have
//    taken the balance below the wallet's threshold: maybeRecharge charges the saved card at once, keyed by that
//    movement (one attempt per wallet and batch; a wallet recharged above its threshold is not charged again, nor
//    one whose bank debit is still on its way).
//
// Each order and wallet runs in a savepoint: one that fails (logged) must not hold back the batch's webhooks.
import type { Queryable } from "../../db/client.js";
import type { OutboxSubscriber } from "../../db/outbox.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import { orgNow } from "../clock.js";
import { maybeRecharge } from "./charge.js";
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

async function recharge(tx: Queryable, processor: PaymentProcessor, s: Spend): Promise<number> {
  const w = await repo.findWallet(tx, s.organizationId, s.walletId);
  if (!w?.autoRechargeEnabled) return 0;
  const outcome = await maybeRecharge(tx, processor, s.organizationId, w.id, s.movementId, await orgNow(tx, s.organizationId));
  return outcome === "recharged" || outcome === "declined" || outcome === "processing" ? 1 : 0;
}

/**
 * Credits and recharges for a batch's orders; returns how many wallets moved (their events go out with the next batch).
 */
export async function walletsFromOutbox(tx: Queryable, processor: PaymentProcessor, rows: OutboxRowView[], log: { error(err: unknown, msg: string): void }): Promise<number> {
  const paid = new Map<string, PaidOrder>();
  // per wallet, its first spending movement of the batch
  const spent = new Map<string, Spend>();
  for (const row of rows) {
    if (row.type === WALLET_TRANSACTION_EVENT) {
      const s = spendOf(row);
      if (s && !spent.has(s.walletId)) spent.set(s.walletId, s);
      continue;
    }
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
  for (const s of spent.values()) {
    try {
      moved += await tx.transaction((sp) => recharge(sp, processor, s));
    } catch (err) {
      log.error(err, `auto-recharging wallet ${s.walletId} after movement ${s.movementId} failed`);
    }
  }
  return moved;
}

/** The subscriber the worker runs (its processor: the server's, as the renewals'). */
export function walletSubscriber(processor: PaymentProcessor): OutboxSubscriber<OutboxRowView> {
  return { name: "wallets", receive: (tx, rows, log) => walletsFromOutbox(tx, processor, rows, log) };
}
