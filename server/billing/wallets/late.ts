// A wallet's top-up or auto-recharge the processor finished after till's charge answered: a bank debit (SEPA, a
// US bank account) that was `processing` (Stripe's payment_intent.succeeded / payment_failed). The pending payment
// takes the answer once (payments' settlePendingCharge, the renewals' path too); then:
//   - succeeded: the top-up's order is paid and the wallet credited — once, by the movement's key;
//   - failed: the order is void (Polar's status for an order nothing will pay: no one collects a pending
//     top-up) with its failed payment, the wallet as it was, the seller told by order.updated; an auto-recharge's
//     refusal stops recharging and emails the customer, as a card's decline does (blockRecharge).
// Locks the wallet first, as the charge did: an event that arrives while the charge's transaction is still open
// waits for it.
import type { Db, Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import type { PaymentResult } from "../../payments/processor.js";
import { getOrder, lockOrderRow, settlePendingOrder } from "../orders/service.js";
import { settlePendingCharge } from "../payments/service.js";
import { orgNow } from "../clock.js";
import { blockRecharge, creditMovement, kindOfKey, walletOrderIdOf } from "./charge.js";
import * as repo from "./repository.js";

/** What the charge's metadata names (chargeIntoWallet): the wallet, its order and the movement's key. */
export interface WalletChargeRef {
  walletId: string;
  orderId: string;
  key: string;
  processorPaymentId: string;
}

/**
 * `credited` or `failed` now; `null`: nothing to do (answered before, still on its way, or not a charge of this
 * wallet); `not_recorded`: the charge's order is not committed yet (try later).
 */
export type WalletLateOutcome = "credited" | "failed" | "not_recorded" | null;

export async function settleWalletCharge(db: Db, organizationId: string, ref: WalletChargeRef, result: PaymentResult): Promise<WalletLateOutcome> {
  // still processing: the next event says how it ended
  if (!result.ok && result.next) return null;
  return db.transaction(async (tx) => {
    const w = await repo.lockWallet(tx, organizationId, ref.walletId);
    // the key names the order (walletOrderIdOf): metadata that does not agree is no top-up of this wallet
    if (!w || walletOrderIdOf(organizationId, ref.key) !== ref.orderId) return null;
    const order = await lockOrderRow(tx, organizationId, ref.orderId);
    if (!order) return "not_recorded";
    if (order.customerId !== w.customerId || order.currency !== w.currency) return null;
    const now = await orgNow(tx, organizationId);
    const charge = await settlePendingCharge(tx, organizationId, order.id, ref.processorPaymentId, result, now);
    if (charge === "not_recorded") return "not_recorded";
    if (charge === "unchanged") return null;
    const kind = kindOfKey(ref.key);
    if (charge === "failed") {
      await refused(tx, w, order.id, now);
      if (kind === "auto_recharge") await blockRecharge(tx, w, { amount: order.totalAmount, reason: result.ok ? "" : result.message }, now);
      return "failed";
    }
    await credit(tx, w, { orderId: order.id, amount: order.totalAmount, kind, key: ref.key }, now);
    return "credited";
  });
}

/** The bank refused: the order void (nothing will pay it), the seller told. */
async function refused(tx: Queryable, w: repo.WalletRow, orderId: string, now: Date): Promise<void> {
  const org = w.organizationId;
  if (!(await settlePendingOrder(tx, org, orderId, "void", now))) return;
  await enqueue(tx, [{ type: "order.updated", organizationId: org, data: await getOrder(tx, org, orderId) }, customerStateChanged(org, w.customerId)]);
}

/** The bank paid: the order paid, the wallet credited (once per key), a recharge's earlier block lifted. */
async function credit(tx: Queryable, w: repo.WalletRow, c: { orderId: string; amount: number; kind: "top_up" | "auto_recharge"; key: string }, now: Date): Promise<void> {
  const org = w.organizationId;
  await settlePendingOrder(tx, org, c.orderId, "paid", now);
  await creditMovement(tx, w, { amount: c.amount, kind: c.kind, key: c.key }, c.orderId);
  if (c.kind === "auto_recharge" && w.rechargeBlockedAt) await repo.updateRecharge(tx, org, w.id, { rechargeBlockedAt: null }, now);
  const data = await getOrder(tx, org, c.orderId);
  await enqueue(tx, [
    { type: "order.updated", organizationId: org, data: { ...data } },
    { type: "order.paid", organizationId: org, data: { ...data } },
    customerStateChanged(org, w.customerId),
  ]);
}
