// What the seller changes on a subscription (PATCH and DELETE /v1/subscriptions/{id}), as Polar does: cancel at
// the period end and uncancel, revoke now (its benefit grants revoked), product, discount, trial, seats and
// billing-period changes (the product, discount and seat changes in plan-change.ts, the add-ons in add-ons.ts; those
// waiting for the period's
// end, and dropping them, in subscriptions/scheduled.ts). Each change is one
// transaction holding the row FOR UPDATE; its webhook events are recorded in the outbox in that transaction.
import { boundLockWaits, isLockNotAvailable, type Db, type Queryable, type Tx } from "../../db/client.js";
import { withCallTurn } from "../../db/call-turns.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { revokeGrantsOfSubscription } from "../benefits/service.js";
import { startDunning } from "../dunning/service.js";
import { invalid, notFound } from "../errors.js";
import { isCanceled, isEnded, type Cancellation, type Change, type SubscriptionUpdate } from "../subscriptions/change.js";
import { alreadyCanceled, subscriptionLocked } from "../subscriptions/errors.js";
import { toWires } from "../subscriptions/load.js";
import { lockOpenSubscriptionsOfCustomer, lockSubscription, writeSubscription } from "../subscriptions/service.js";
import { changeTerms, seats } from "./plan-change.js";
import { changeAddOns } from "./add-ons.js";
import { clearPendingUpdate } from "../subscriptions/scheduled.js";
import { applyProration, type ProrationOutcome } from "../renewal/proration.js";
import type { SubscriptionRow, SubscriptionWire } from "../subscriptions/wire.js";
import { orgNow } from "../clock.js";

const NOT_FOUND = "Subscription not found";

/** What a change decides on the row (read in `db`); a `preview`'s decision writes nothing (a discount not redeemed). */
export type Decide = (db: Queryable, row: SubscriptionRow, now: Date, preview?: boolean) => Promise<Change | null>;

/** A change as applied in its transaction: the row and wire after it, what it decided and what its billing did. */
export interface Applied {
  row: SubscriptionRow;
  wire: SubscriptionWire;
  now: Date;
  decided: Change | null;
  billed: ProrationOutcome | null;
}

/**
 * Runs `decide` on the locked row and applies what it returns, in `tx`: the row written, `subscription.updated`
 * then the change's own events (each with the subscription as it is after the change), then
 * `customer.state_changed`. `decide` returning null changes nothing and records nothing (e.g. uncanceling a
 * subscription that is not canceled). A preview decides the same without applying it (preview.ts).
 */
export async function applyChange(
  tx: Tx,
  organizationId: string,
  id: string,
  baseURL: string,
  decide: Decide,
  /** Charges a change billed now (the organization's own processor: its Stripe account when connected). */
  processor: PaymentProcessor | null,
): Promise<Applied> {
  // lock waits longer than REQUEST_LOCK_WAIT answer 409 SubscriptionLocked rather than holding the request
  await boundLockWaits(tx);
  const current = await lockSubscription(tx, organizationId, id);
  if (!current) throw notFound(NOT_FOUND);
  const now = await orgNow(tx, organizationId);
  const decided = await decide(tx, current, now);
  let row = decided ? await writeSubscription(tx, organizationId, id, { ...decided.patch, modifiedAt: now }) : current;
  // billed before the wire is read: a declined charge makes the subscription past_due
  const billed = decided?.proration ? await applyProration(tx, row, decided.proration, now, processor) : null;
  if (billed) row = billed.row;
  const [wire] = await toWires(tx, organizationId, [row], baseURL);
  if (!wire) throw notFound(NOT_FOUND);
  if (decided) {
    const data = { ...wire };
    const events: OutboxEvent[] = ["subscription.updated" as const, ...decided.events].map((type) => ({ type, organizationId, data }));
    if (decided.mail) events[0] = { ...events[0]!, mail: decided.mail };
    if (billed?.declinedOrderId) {
      events.push(...(await startDunning(tx, organizationId, data, billed.declinedOrderId, now)));
    }
    await enqueue(tx, events);
    await decided.after?.(tx, now);
    await enqueue(tx, customerStateChanged(organizationId, row.customerId));
  }
  return { row, wire, now, decided, billed };
}

/** applyChange in a transaction of its own; a lock held too long by another change answers 409. */
async function change(db: Db, organizationId: string, id: string, baseURL: string, decide: Decide, processor?: PaymentProcessor): Promise<SubscriptionWire> {
  // a change billed now charges under the subscription's lock: with a processor, in one of the pool's turns
  // (db/call-turns.ts)
  const open = <T>(fn: () => Promise<T>): Promise<T> => (processor ? withCallTurn(db, fn) : fn());
  try {
    return await open(() => db.transaction(async (tx) => (await applyChange(tx, organizationId, id, baseURL, decide, processor ?? null)).wire));
  } catch (err) {
    if (isLockNotAvailable(err)) throw subscriptionLocked();
    throw err;
  }
}

const cancellation = (c: Cancellation) => ({
  // as Polar: a reason or comment left out keeps the one recorded
  ...(c.reason !== undefined && c.reason !== null ? { customerCancellationReason: c.reason } : {}),
  ...(c.comment !== undefined && c.comment !== null ? { customerCancellationComment: c.comment } : {}),
});

/** Ends the subscription now: canceled, ended, its benefit grants revoked. */
function revoke(organizationId: string, row: SubscriptionRow, now: Date, c: Cancellation): Change {
  if (isEnded(row)) throw alreadyCanceled();
  return {
    patch: { status: "canceled", canceledAt: row.canceledAt ?? now, endsAt: now, endedAt: now, ...cancellation(c) },
    events: [...(isCanceled(row) ? [] : ["subscription.canceled" as const]), "subscription.revoked"],
    after: async (tx, at) => {
      await revokeGrantsOfSubscription(tx, organizationId, row.id, at, row.customerId);
    },
  };
}

/** Cancels at the end of the current period (the subscription stays active until then), or takes that back. */
function cancelAtPeriodEnd(row: SubscriptionRow, now: Date, u: { cancelAtPeriodEnd: boolean } & Cancellation): Change | null {
  if (isEnded(row)) throw alreadyCanceled();
  if (u.cancelAtPeriodEnd) {
    if (row.cancelAtPeriodEnd) throw alreadyCanceled();
    return {
      patch: { cancelAtPeriodEnd: true, canceledAt: now, endsAt: row.currentPeriodEnd, ...cancellation(u) },
      events: ["subscription.canceled"],
    };
  }
  if (!row.cancelAtPeriodEnd) return null;
  return {
    patch: { cancelAtPeriodEnd: false, canceledAt: null, endsAt: null, customerCancellationReason: null, customerCancellationComment: null },
    events: ["subscription.uncanceled"],
  };
}

/** Moves the end of the current period (and the end of a subscription canceled at that end). */
function billingPeriod(row: SubscriptionRow, now: Date, periodEnd: Date): Change | null {
  if (isEnded(row)) throw alreadyCanceled();
  const bad = (msg: string) => invalid(["body", "current_billing_period_end"], msg);
  if (row.status === "trialing") throw bad("The subscription is trialing: change trial_end instead.");
  if (periodEnd.getTime() <= now.getTime() || periodEnd.getTime() <= row.currentPeriodStart.getTime()) {
    throw bad("The billing period end must be in the future.");
  }
  if (periodEnd.getTime() === row.currentPeriodEnd.getTime()) return null;
  return { patch: { currentPeriodEnd: periodEnd, ...(row.cancelAtPeriodEnd ? { endsAt: periodEnd } : {}) }, events: [] };
}

/** PATCH /v1/subscriptions/{id}. */
export async function updateSubscription(
  db: Db,
  organizationId: string,
  id: string,
  update: SubscriptionUpdate,
  baseURL: string,
  processor?: PaymentProcessor,
): Promise<SubscriptionWire> {
  return change(db, organizationId, id, baseURL, decideUpdate(organizationId, update, baseURL), processor);
}

/** What the PATCH body decides on the locked row (a preview decides the same). */
export function decideUpdate(organizationId: string, update: SubscriptionUpdate, baseURL: string): Decide {
  return async (tx, row, now, preview = false) => {
    switch (update.kind) {
      case "revoke":
        return revoke(organizationId, row, now, update);
      case "cancel":
        return cancelAtPeriodEnd(row, now, update);
      case "change":
        return changeTerms(tx, organizationId, row, now, update, baseURL, preview);
      case "seats":
        return seats(tx, organizationId, row, update, now);
      case "billing_period":
        return billingPeriod(row, now, update.periodEnd);
      case "clear_pending":
        return clearPendingUpdate(row);
      case "add_ons":
        return changeAddOns(tx, organizationId, row, update, now, baseURL);
    }
  };
}

/** DELETE /v1/subscriptions/{id}: revokes now, like PATCH `{revoke: true}`. */
export async function revokeSubscription(db: Db, organizationId: string, id: string, baseURL: string): Promise<SubscriptionWire> {
  return updateSubscription(db, organizationId, id, { kind: "revoke" }, baseURL);
}

/**
 * Revokes now every subscription of the customer that has not ended (the customer is being deleted), in the
 * caller's transaction: each locked and ended as DELETE /v1/subscriptions/{id} does, with `subscription.updated`,
 * `subscription.canceled` (unless it already was) and `subscription.revoked`, then its grants revoked
 * (`benefit_grant.revoked`). `customer.state_changed` is left to the caller. Returns how many were revoked.
 */
export async function revokeSubscriptionsOfCustomer(tx: Tx, organizationId: string, customerId: string, now: Date, baseURL: string): Promise<number> {
  const open = await lockOpenSubscriptionsOfCustomer(tx, organizationId, customerId);
  const revoked: Array<{ row: SubscriptionRow; change: Change }> = [];
  for (const current of open) {
    const decided = revoke(organizationId, current, now, {});
    revoked.push({ row: await writeSubscription(tx, organizationId, current.id, { ...decided.patch, modifiedAt: now }), change: decided });
  }
  const wires = new Map((await toWires(tx, organizationId, revoked.map((r) => r.row), baseURL)).map((w) => [w.id, w]));
  for (const { row, change: decided } of revoked) {
    const data = wires.get(row.id);
    if (data) {
      await enqueue(tx, ["subscription.updated" as const, ...decided.events].map((type) => ({ type, organizationId, data: { ...data } })));
    }
    await decided.after?.(tx, now);
  }
  return revoked.length;
}
