// Dunning (issue 14 §3): a renewal (or a plan change billed now, proration `invoice`) whose charge failed leaves
// its order pending and the subscription past_due; the order is charged again on the organization's schedule (by
// default 3, 5 and 7 days after each failure), driven by stored due times (order_dunning.next_attempt_at) that
// the jobs worker's schedule claims, so a clock handed to runDunning decides what is due. A success pays the order
// and makes the subscription active again; after the last failure the subscription ends as the organization
// chose — canceled, or unpaid (still payable from the portal) — its benefits revoked either way. The customer may
// also retry from the portal (confirmRetryPayment), with a new card or a saved one. Every change writes its
// events to the outbox in the same transaction.
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { runClaimLoop, type ScheduledPass } from "../../jobs/claim.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import type { PaymentProcessor, PaymentResult } from "../../payments/processor.js";
import { cycleGrants, regrantSubscription, revokeGrantsOfSubscription } from "../benefits/service.js";
import { toBenefitGrantWire } from "../benefits/wire.js";
import { findCustomer } from "../customers/service.js";
import { ApiError, notFound } from "../errors.js";
import { findOrder, getOrder, lockOrderRow, markOrderPaid } from "../orders/service.js";
import type { OrderRow } from "../orders/wire.js";
import * as payments from "../payments/service.js";
import { loadProducts } from "../products/service.js";
import { toWires } from "../subscriptions/load.js";
import { cycleMeterCreditsOfLateRenewal } from "../subscriptions/meter-credits.js";
import { lockSubscription, patchSubscriptionTerms } from "../subscriptions/service.js";
import type { SubscriptionRow, SubscriptionWire } from "../subscriptions/wire.js";
import { orgNow } from "../test-clock/clock.js";
import * as repo from "./repository.js";
import { DAY_MS, dunningSettingsOf, type DunningSettings } from "./settings.js";

export interface DunningDeps {
  processor: PaymentProcessor;
  baseURL: string;
}

/** Portal retries per order (Polar's ManualRetryLimitExceeded). */
export const MANUAL_RETRY_LIMIT = 5;

const later = (now: Date, days: number) => new Date(now.getTime() + days * DAY_MS);

async function settingsOf(db: Queryable, organizationId: string): Promise<DunningSettings> {
  return dunningSettingsOf(await repo.storedDunningSettings(db, organizationId));
}

async function subscriptionWireOf(tx: Queryable, row: SubscriptionRow, baseURL: string): Promise<SubscriptionWire> {
  const [wire] = await toWires(tx, row.organizationId, [row], baseURL);
  if (!wire) throw new Error(`subscription ${row.id}: its customer or product is missing`);
  return wire;
}

/**
 * The renewal's charge of `orderId` failed (in the renewal's transaction, the subscription just written
 * past_due): records its dunning state with the first retry's due time, and `subscription.past_due`. With no
 * retries configured the next pass of the schedule ends the subscription without charging again.
 */
export async function startDunning(tx: Queryable, organizationId: string, sub: SubscriptionWire, orderId: string, now: Date): Promise<OutboxEvent[]> {
  const start = dunningStart(await settingsOf(tx, organizationId), organizationId, sub, orderId, now);
  await repo.insertDunning(tx, start.row);
  return start.events;
}

/** The organization's dunning settings (stored, else the defaults). */
export const organizationDunningSettings = settingsOf;

/** startDunning's row and events under `settings`, for a caller that writes the row itself (a billing run's batch). */
export function dunningStart(settings: DunningSettings, organizationId: string, sub: SubscriptionWire, orderId: string, now: Date) {
  const first = settings.retry_intervals_days[0];
  const row = { orderId, organizationId, subscriptionId: sub.id, attempts: 1, nextAttemptAt: first === undefined ? now : later(now, first), createdAt: now };
  const events: OutboxEvent[] = [{ type: "subscription.past_due", organizationId, data: sub }];
  return { row, events };
}

export type AttemptOutcome =
  | { kind: "paid"; payment: payments.PaymentRow }
  | { kind: "failed"; payment: payments.PaymentRow; nextAttemptAt: Date | null; ended: boolean }
  /** The customer must authenticate (3-D Secure) from the portal: the intent's client secret for Stripe.js. */
  | { kind: "action"; payment: payments.PaymentRow; clientSecret: string }
  /** A bank debit on its way: no other attempt until the bank answers (settleLatePayment). */
  | { kind: "processing"; payment: payments.PaymentRow }
  /** An earlier attempt's debit is still on its way: nothing was charged now. */
  | { kind: "in_progress" }
  | { kind: "ended" }
  | { kind: "stopped" };

interface Locked {
  /** None for an order whose first charge is still processing (a bank debit): it never failed. */
  dunning: repo.DunningRow | undefined;
  order: OrderRow;
  sub: SubscriptionRow;
}

/** Locks the subscription then the order of a dunning row; null when there is nothing to collect any more. */
async function lockParts(tx: Queryable, d: repo.DunningRow, now: Date): Promise<Locked | null> {
  const sub = await lockSubscription(tx, d.organizationId, d.subscriptionId);
  const order = await lockOrderRow(tx, d.organizationId, d.orderId);
  const collectible = sub && order && order.status === "pending" && (sub.status === "past_due" || sub.status === "unpaid");
  if (!collectible) {
    // paid meanwhile, refunded, or the subscription was canceled by the seller: dunning stops
    if (d.nextAttemptAt) await repo.updateDunning(tx, d.organizationId, d.orderId, { nextAttemptAt: null }, now);
    return null;
  }
  return { dunning: d, order, sub };
}

const dueAmountOf = (o: OrderRow) => Math.max(0, o.totalAmount + o.appliedBalanceAmount);

/** The order is paid: it and the subscription are written, the benefits kept (or given back), the events recorded. */
async function settle(tx: Queryable, deps: DunningDeps, l: Locked, now: Date): Promise<void> {
  const org = l.order.organizationId;
  await markOrderPaid(tx, org, l.order.id, now);
  const wasUnpaid = l.sub.status === "unpaid";
  const active = await patchSubscriptionTerms(tx, org, l.sub.id, { status: "active" }, now);
  const [orderData, subData] = await Promise.all([getOrder(tx, org, l.order.id), subscriptionWireOf(tx, active, deps.baseURL)]);
  const events: OutboxEvent[] = [
    { type: "order.updated", organizationId: org, data: { ...orderData } },
    { type: "order.paid", organizationId: org, data: { ...orderData } },
    { type: "subscription.updated", organizationId: org, data: subData },
  ];
  // a processing debit's renewal kept the subscription active: it does not become active again
  if (l.sub.status !== "active") events.push({ type: "subscription.active", organizationId: org, data: subData });
  if (wasUnpaid) {
    // its benefits were revoked when it became unpaid: granted again (benefit_grant.created recorded there)
    const customer = await findCustomer(tx, org, active.customerId);
    const product = (await loadProducts(tx, org, [active.productId], deps.baseURL)).get(active.productId);
    await regrantSubscription(tx, org, { subscriptionId: active.id, customer: customer ?? null, benefits: product?.benefits ?? [] }, now);
  } else {
    // the declined renewal credited no meter credits: the new period's credit comes with the payment
    if (l.order.renewedPeriodStart) await cycleMeterCreditsOfLateRenewal(tx, active, l.order.renewedPeriodStart, now);
    // a renewal paid late cycles its grants; a plan change's order (subscription_update) starts no period
    const cycled = l.order.billingReason === "subscription_cycle" ? await cycleGrants(tx, org, active.id, now) : [];
    events.push(...cycled.map((r) => ({ type: "benefit_grant.cycled" as const, organizationId: org, data: toBenefitGrantWire(r.grant, r.benefit, r.customer, r.member) })));
  }
  events.push(customerStateChanged(org, active.customerId));
  await enqueue(tx, events);
}

/** The last retry failed: the subscription ends as the organization chose, its benefits revoked. */
async function giveUp(tx: Queryable, deps: DunningDeps, l: Locked, settings: DunningSettings, now: Date): Promise<void> {
  const org = l.order.organizationId;
  await repo.updateDunning(tx, org, l.order.id, { nextAttemptAt: null }, now);
  if (l.sub.status === "unpaid") return;
  const ended =
    settings.final_action === "cancel"
      ? await patchSubscriptionTerms(tx, org, l.sub.id, { status: "canceled", canceledAt: l.sub.canceledAt ?? now, endsAt: now, endedAt: now }, now)
      : await patchSubscriptionTerms(tx, org, l.sub.id, { status: "unpaid" }, now);
  const wire = await subscriptionWireOf(tx, ended, deps.baseURL);
  const events: OutboxEvent[] = [{ type: "subscription.updated", organizationId: org, data: wire }];
  if (settings.final_action === "cancel") events.push({ type: "subscription.canceled", organizationId: org, data: wire });
  // the revocation email (subscription_revoked) goes with this one
  events.push({ type: "subscription.revoked", organizationId: org, data: wire });
  await enqueue(tx, events);
  await revokeGrantsOfSubscription(tx, org, l.sub.id, now);
  await enqueue(tx, customerStateChanged(org, l.sub.customerId));
}

/**
 * One attempt at a locked dunning row in the caller's transaction: the schedule's (`retry`, which also ends
 * the subscription once the retries are spent) or the customer's (`manual`, which leaves the schedule as is).
 */
export async function attemptLocked(
  tx: Queryable,
  deps: DunningDeps,
  d: repo.DunningRow,
  now: Date,
  kind: "retry" | "manual",
  method?: payments.PaymentMethodRow,
): Promise<AttemptOutcome> {
  const l = await lockParts(tx, d, now);
  if (!l) return { kind: "stopped" };
  const settings = await settingsOf(tx, d.organizationId);
  const retries = settings.retry_intervals_days;
  if (kind === "retry" && (l.sub.status === "unpaid" || d.attempts > retries.length)) {
    await giveUp(tx, deps, l, settings, now);
    return { kind: "ended" };
  }
  // a debit of the order still on its way is not charged again beside it (its answer comes as an event)
  const last = await payments.lastPaymentOfOrder(tx, d.organizationId, l.order.id);
  if (payments.isProcessingPayment(last)) return { kind: "in_progress" };
  const amount = dueAmountOf(l.order);
  const outcome =
    amount > 0
      ? await payments.chargeSaved(
          tx,
          deps.processor,
          d.organizationId,
          l.order.customerId,
          // the customer retrying from the portal is there to authenticate: on-session
          { amount, currency: l.order.currency, description: `Order ${l.order.invoiceNumber}`, metadata: { order_id: l.order.id, subscription_id: l.sub.id }, onSession: kind === "manual" },
          method,
        )
      : { method: method ?? null, result: { ok: true as const, paymentId: null, paymentMethodId: "", paymentMethod: { brand: "", last4: "", expMonth: 0, expYear: 0 } } };
  const payment = await payments.recordCharge(
    tx,
    deps.processor,
    outcome,
    { organizationId: d.organizationId, customerId: l.order.customerId, orderId: l.order.id, checkoutId: null, amount, currency: l.order.currency, attempt: kind },
    now,
  );
  const counts = kind === "retry" ? { attempts: d.attempts + 1 } : { manualAttempts: d.manualAttempts + 1 };
  if (payments.isProcessing(outcome)) {
    // the schedule waits for the bank's answer: a refusal schedules the next retry (settleLatePayment)
    await repo.updateDunning(tx, d.organizationId, d.orderId, { ...counts, nextAttemptAt: null }, now);
    return { kind: "processing", payment };
  }
  if (outcome.result.ok) {
    await repo.updateDunning(tx, d.organizationId, d.orderId, { ...counts, nextAttemptAt: null }, now);
    await settle(tx, deps, l, now);
    return { kind: "paid", payment };
  }
  if (kind === "manual" && outcome.result.next?.status === "requires_action") {
    await repo.updateDunning(tx, d.organizationId, d.orderId, counts, now);
    return { kind: "action", payment, clientSecret: outcome.result.next.clientSecret };
  }
  if (kind === "manual") {
    await repo.updateDunning(tx, d.organizationId, d.orderId, counts, now);
    return { kind: "failed", payment, nextAttemptAt: d.nextAttemptAt, ended: false };
  }
  // retry number d.attempts failed; the next waits retries[d.attempts] days, or there is none
  const wait = retries[d.attempts];
  if (wait === undefined) {
    await repo.updateDunning(tx, d.organizationId, d.orderId, counts, now);
    await giveUp(tx, deps, l, settings, now);
    return { kind: "failed", payment, nextAttemptAt: null, ended: true };
  }
  const nextAttemptAt = later(now, wait);
  await repo.updateDunning(tx, d.organizationId, d.orderId, { ...counts, nextAttemptAt }, now);
  return { kind: "failed", payment, nextAttemptAt, ended: false };
}

// ---- the schedule ----------------------------------------------------------------------------------

export interface DunningRun extends DunningDeps, ScheduledPass {}

/**
 * Charges again every failed renewal order whose next attempt is due at `now`, each in a savepoint of the
 * claiming transaction (one that throws is rolled back alone and left for a later pass). Returns the number
 * of rows handled.
 */
export async function runDunning(run: DunningRun): Promise<number> {
  return runClaimLoop({
    db: run.db,
    batch: run.batch ?? 50,
    now: run.now,
    nowOf: orgNow,
    claim: (tx, wall, batch, failed) => repo.claimDue(tx, wall, batch, failed, run.organizationId),
    idOf: (d) => d.orderId,
    handle: async (sp, d, now) => {
      await attemptLocked(sp, run, d, now, "retry");
    },
    failed: (d, err) => run.log?.error(err, `dunning: order ${d.orderId} could not be charged again`),
  });
}

// ---- the customer's side (the portal) ---------------------------------------------------------------

export const ConfirmRetryInput = z.object({
  confirmation_token_id: z.string().min(1).max(1024).nullish(),
  payment_method_id: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "Input should be a valid UUID")
    .nullish(),
  payment_processor: z.literal("stripe").optional(),
});
export type ConfirmRetryInput = z.output<typeof ConfirmRetryInput>;

const notEligible = (detail: string) => new ApiError(422, { error: "OrderNotEligibleForRetry", detail });

async function customerOrder(db: Queryable, organizationId: string, customerId: string, orderId: string) {
  const row = await findOrder(db, organizationId, orderId);
  if (!row || row.customerId !== customerId) throw notFound("Order not found");
  return row;
}

/**
 * CustomerOrderPaymentStatus: the order's payment as the portal shows it, with till's `decline_reason` of a
 * failed one (the SDKs ignore it; the portal page asks for authentication on `authentication_required`).
 */
export async function paymentStatus(db: Db, organizationId: string, customerId: string, orderId: string) {
  const row = await customerOrder(db, organizationId, customerId, orderId);
  if (row.status !== "pending") return { status: "succeeded", error: null, decline_reason: null };
  const last = await payments.lastPaymentOfOrder(db, organizationId, orderId);
  if (!last) return { status: "pending", error: null, decline_reason: null };
  const failed = last.status === "failed";
  return { status: last.status, error: failed ? last.declineMessage : null, decline_reason: failed ? last.declineReason : null };
}

/**
 * The customer pays a past-due (or unpaid) renewal order now: with a new card (its token, saved and made the
 * default) or a saved method (its id), else the default. 409 while another attempt holds the order, 422 when
 * the order is not a failed renewal still owed, 429 after MANUAL_RETRY_LIMIT attempts.
 */
export async function confirmRetry(
  deps: DunningDeps & { db: Db },
  organizationId: string,
  customerId: string,
  orderId: string,
  input: ConfirmRetryInput,
) {
  const row = await customerOrder(deps.db, organizationId, customerId, orderId);
  const d = await repo.findDunning(deps.db, organizationId, orderId);
  if (!d || row.status !== "pending") throw notEligible("This order is not awaiting a payment.");
  if (d.manualAttempts >= MANUAL_RETRY_LIMIT) {
    throw new ApiError(429, { error: "ManualRetryLimitExceeded", detail: `This order was retried ${MANUAL_RETRY_LIMIT} times: contact the seller.` });
  }
  let method: payments.PaymentMethodRow | undefined;
  if (input.confirmation_token_id) {
    const added = await payments.addMethod(deps, organizationId, customerId, input.confirmation_token_id, true);
    // the card asks for 3-D Secure before it is saved: the page acts, then retries with the saved method
    if (added.status === "requires_action") return { status: "requires_action", client_secret: added.client_secret, error: null };
    method = await payments.findPaymentMethod(deps.db, organizationId, customerId, added.payment_method.id);
  } else if (input.payment_method_id) {
    method = await payments.findPaymentMethod(deps.db, organizationId, customerId, input.payment_method_id.toLowerCase());
    if (!method) throw notFound("Payment method not found");
  }
  let outcome: AttemptOutcome;
  try {
    outcome = await deps.db.transaction(async (tx) => {
      const locked = await repo.lockDunning(tx, organizationId, orderId, true);
      if (!locked) throw notEligible("This order is not awaiting a payment.");
      if (locked.manualAttempts >= MANUAL_RETRY_LIMIT) {
        throw new ApiError(429, { error: "ManualRetryLimitExceeded", detail: `This order was retried ${MANUAL_RETRY_LIMIT} times: contact the seller.` });
      }
      // stamped at the organization's now (a sandbox's test clock)
      return attemptLocked(tx, deps, locked, await orgNow(tx, organizationId), "manual", method);
    });
  } catch (err) {
    if (repo.isLockNotAvailable(err)) throw new ApiError(409, { error: "PaymentAlreadyInProgress", detail: "A payment of this order is already in progress." });
    throw err;
  }
  if (outcome.kind === "paid") return { status: "succeeded", client_secret: null, error: null };
  if (outcome.kind === "failed") return { status: "failed", client_secret: null, error: outcome.payment.declineMessage };
  if (outcome.kind === "action") return { status: "requires_action", client_secret: outcome.clientSecret, error: null };
  // the debit is on its way: the order is paid (or not) when the bank answers
  if (outcome.kind === "processing") return { status: "pending", client_secret: null, error: null };
  if (outcome.kind === "in_progress") throw new ApiError(409, { error: "PaymentAlreadyInProgress", detail: "A payment of this order is already in progress." });
  throw notEligible("This order is not awaiting a payment.");
}

/** What the payment's late outcome did: the order paid, the payment failed, nothing (`null`: already handled, or still on its way). */
export type LateOutcome = "paid" | "failed" | "not_recorded" | null;

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
    const d = await repo.lockDunning(tx, organizationId, ref.orderId, false);
    const sub = await lockSubscription(tx, organizationId, ref.subscriptionId);
    const order = await lockOrderRow(tx, organizationId, ref.orderId);
    if (!sub || !order) return "not_recorded";
    const now = await orgNow(tx, organizationId);
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
    await enqueue(tx, [{ type: "subscription.updated", organizationId: org, data: wire }, ...started, customerStateChanged(org, l.sub.customerId)]);
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

// ---- rows for other domains (they read this domain through its service, never its repository) ----------

/** Starts dunning for declined renewal orders (the renewal's writes). */
export const insertDunnings: typeof repo.insertDunnings = (...args) => repo.insertDunnings(...args);
