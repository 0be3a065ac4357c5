// The processor's late answer to a subscription order's charge (Stripe's payment_intent.succeeded / payment_failed):
// a bank debit that was `processing`, or a portal retry the customer authenticated. The payment takes the answer
// once (payments' settlePendingCharge, the wallets' path too); then the order is settled as a retry's success
// (collect.ts), or dunning starts or goes on.
import type { Db, Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import type { PaymentResult } from "../../payments/processor.js";
import { seatHoldersChanged } from "../benefits/service.js";
import { lockOrderRow } from "../orders/service.js";
import * as payments from "../payments/service.js";
import { lockSubscription, patchSubscriptionTerms } from "../subscriptions/service.js";
import { orgNow } from "../clock.js";
import { giveUp, later, requestPastDueEmail, settingsOf, settle, subscriptionWireOf, type DunningDeps, type Locked } from "./collect.js";
import * as repo from "./repository.js";
import { startDunning } from "./service.js";
import { giveBackDuplicate } from "./duplicate.js";

/**
 * What the payment's late outcome did: the order paid, the payment failed, a payment (a transfer, a debit) for an order
 * already paid refunded (`given_back`), nothing (`null`: already handled, or still on its way).
 */
export type LateOutcome = "paid" | "failed" | "given_back" | "not_recorded" | null;

const PAID_STATUSES: ReadonlySet<string> = new Set(["paid", "refunded", "partially_refunded"]);

/**
 * The processor finished a subscription order's payment after till's charge answered (Stripe's
 * payment_intent.succeeded / payment_failed): a bank debit of a renewal, a plan change or a retry that was
 * `processing`, or a portal retry the customer authenticated (3-D Secure). The payment recorded pending becomes
 * succeeded or failed — once: a replayed or late event finds it done and changes nothing.
 *   - Succeeded: the order is paid (order.paid, its invoice), the subscription active (again), its grants cycled.
 *   - Failed: a first charge (no dunning yet) puts the subscription past due and starts dunning, as a decline
 *     does (the customer's email); a retry's refusal schedules the next retry, or ends the subscription after
 *     the last one.
 * Locks as a retry does — dunning, subscription, order — so an event that arrives while the charge's own
 * transaction is still open waits for it. `not_recorded`: no pending payment of the order with that id (the
 * charge's transaction did not commit): the caller tries again later.
 */
export async function settleLatePayment(
  deps: DunningDeps & { db: Db },
  organizationId: string,
  ref: { orderId: string; subscriptionId: string; processorPaymentId: string },
  result: PaymentResult,
): Promise<LateOutcome> {
  // still processing (or waiting for the customer): the next event says how it ended
  if (!result.ok && result.next) return null;
  return deps.db.transaction(async (tx) => {
    const d = await repo.lockDunning(tx, organizationId, ref.orderId);
    const sub = await lockSubscription(tx, organizationId, ref.subscriptionId);
    const order = await lockOrderRow(tx, organizationId, ref.orderId);
    if (!sub || !order) return "not_recorded";
    const now = await orgNow(tx, organizationId);
    // money that arrived after the order was paid another way (a transfer, a debit that was processing, a payment
    // authenticated late) is given back, never counted twice (duplicate.ts)
    if (result.ok && PAID_STATUSES.has(order.status) && (await giveBackDuplicate(tx, deps.processor, organizationId, order.id, ref.processorPaymentId, now))) return "given_back";
    // the payment's own answer, once (payments' settlePendingCharge); then what it means for the subscription
    const charge = await payments.settlePendingCharge(tx, organizationId, order.id, ref.processorPaymentId, result, now);
    if (charge === "not_recorded") return "not_recorded";
    if (charge === "unchanged") return null;
    // still owed by a subscription that goes on (one the seller canceled meanwhile is left as it is)
    const collectible = order.status === "pending" && (sub.status === "active" || sub.status === "past_due" || sub.status === "unpaid");
    if (charge === "succeeded") {
      if (!collectible) return "paid";
      if (d) await repo.updateDunning(tx, organizationId, order.id, { nextAttemptAt: null }, now);
      await settle(tx, deps, { dunning: d, order, sub }, now);
      return "paid";
    }
    if (collectible) await lateFailure(tx, deps, { dunning: d, order, sub }, now);
    return "failed";
  });
}

/** A late refusal of a collectible order: dunning starts (a first charge) or goes on from it (a retry). */
async function lateFailure(tx: Queryable, deps: DunningDeps, l: Locked, now: Date): Promise<void> {
  const org = l.order.organizationId;
  if (!l.dunning) {
    const pastDue = await patchSubscriptionTerms(tx, org, l.sub.id, { status: "past_due" }, now);
    const wire = await subscriptionWireOf(tx, pastDue, deps.baseURL);
    const started = await startDunning(tx, org, wire, l.order.id, now);
    const holders = await seatHoldersChanged(tx, org, l.sub);
    await enqueue(tx, [{ type: "subscription.updated", organizationId: org, data: wire }, ...started, customerStateChanged(org, l.sub.customerId), ...holders]);
    await requestPastDueEmail(tx, org, l.order.id);
    return;
  }
  // a schedule still running (a portal attempt that waited for the customer) is left as it was
  if (l.dunning.nextAttemptAt) return;
  const settings = await settingsOf(tx, org);
  // attempts counts the refused one: the next waits as after it, or there is none
  const wait = settings.retry_intervals_days[l.dunning.attempts - 1];
  if (wait === undefined) return giveUp(tx, deps, l, settings, now);
  await repo.updateDunning(tx, org, l.order.id, { nextAttemptAt: later(now, wait) }, now);
}
