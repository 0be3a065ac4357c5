// "Mark paid": the seller received an unpaid order's money another way (a bank transfer to their own account, a
// cheque) and records it — who and when on the order, nothing charged. The order is settled as a payment settles it
// (collect.ts: order paid, its subscription active again, order.updated and order.paid sent); a dunning schedule
// stops. Idempotent: an order already marked answers as it is; any other paid order is refused (it was paid), and so
// is an order whose bank debit is still processing (the processor cannot cancel it: the order would be paid twice).
import { z } from "zod";
import type { Db } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import type { MarkedPaidBy } from "../../db/schema/index.js";
import { orgNow } from "../clock.js";
import { notFound } from "../errors.js";
import { debitProcessing, notPending } from "./errors.js";
import { processingDebitOfOrder } from "../payments/service.js";
import { findOrder, getOrder, lockOrderRow, settlePendingOrder, recordMarkedPaid } from "../orders/service.js";
import { lockSubscription } from "../subscriptions/service.js";
import { settle, type DunningDeps } from "./collect.js";
import * as repo from "./repository.js";

export const MarkPaidInput = z.object({ note: z.string().max(500).nullish() });
export type MarkPaidInput = z.output<typeof MarkPaidInput>;


export async function markOrderPaid(deps: DunningDeps & { db: Db }, organizationId: string, orderId: string, by: Omit<MarkedPaidBy, "note">, input: MarkPaidInput) {
  return deps.db.transaction(async (tx) => {
    // locked in the order a retry and a processor's event lock them: dunning, subscription, order
    const d = await repo.lockDunning(tx, organizationId, orderId);
    const seen = await findOrder(tx, organizationId, orderId);
    if (!seen) throw notFound("Order not found");
    const sub = seen.subscriptionId ? await lockSubscription(tx, organizationId, seen.subscriptionId) : undefined;
    const order = await lockOrderRow(tx, organizationId, orderId);
    if (!order) throw notFound("Order not found");
    if (order.markedPaidAt) return getOrder(tx, organizationId, orderId);
    if (order.status !== "pending") throw notPending();
    // its debit's answer is a payment already: the seller waits for it (a failed debit leaves the order to mark)
    if (await processingDebitOfOrder(tx, organizationId, orderId)) throw debitProcessing();
    const now = await orgNow(tx, organizationId);
    await recordMarkedPaid(tx, organizationId, orderId, { ...by, note: input.note?.trim() || null }, now);
    if (d) await repo.updateDunning(tx, organizationId, orderId, { nextAttemptAt: null }, now);
    const collectible = sub && (sub.status === "active" || sub.status === "past_due" || sub.status === "unpaid" || sub.status === "trialing");
    if (sub && collectible) {
      await settle(tx, deps, { dunning: d, order: { ...order, markedPaidAt: now }, sub }, now);
    } else {
      await settlePendingOrder(tx, organizationId, orderId, "paid", now);
      const data = await getOrder(tx, organizationId, orderId);
      await enqueue(tx, [
        { type: "order.updated", organizationId, data: { ...data } },
        { type: "order.paid", organizationId, data: { ...data } },
      ]);
    }
    return getOrder(tx, organizationId, orderId);
  });
}
