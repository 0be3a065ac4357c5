// One collection attempt at a failed subscription order (the schedule's retry or the customer's from the portal):
// the subscription and the order locked, the saved method charged, and then the order settled (paid: the
// subscription active again, its grants cycled or given back) or, after the last retry, the subscription ended as
// the organization chose. In the caller's transaction (`Queryable`); late.ts settles a charge the bank answers later.
import type { Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { processorErrorOf, type PaymentProcessor } from "../../payments/processor.js";
import { cycleGrants, regrantSubscription, revokeGrantsOfSubscription, seatHoldersChanged } from "../benefits/service.js";
import { toBenefitGrantWire } from "../benefits/wire.js";
import { findCustomer } from "../customers/service.js";
import { requestEmail } from "../customer-emails/service.js";
import { getOrder, lockOrderRow, settlePendingOrder } from "../orders/service.js";
import type { OrderRow } from "../orders/wire.js";
import * as payments from "../payments/service.js";
import { loadProducts } from "../products/service.js";
import { toWires } from "../subscriptions/load.js";
import { cycleMeterCreditsOfLateRenewal } from "../subscriptions/meter-credits.js";
import { lockSubscription, patchSubscriptionTerms } from "../subscriptions/service.js";
import type { SubscriptionRow, SubscriptionWire } from "../subscriptions/wire.js";
import { noteProcessorError, type ProcessorErrorLog } from "../processor-connections/processor-errors.js";
import * as repo from "./repository.js";
import { DAY_MS, dunningSettingsOf, type DunningSettings } from "../settings/dunning.js";

export interface DunningDeps {
  processor: PaymentProcessor;
  baseURL: string;
  /** Where a charge the processor could not process is logged for the operator. */
  log?: ProcessorErrorLog;
}

export const later = (now: Date, days: number) => new Date(now.getTime() + days * DAY_MS);

/**
 * When a charge the processor could not process (not a decline: the seller's or till's error, an outage) is tried
 * again, after the `errors`-th such attempt: 1, 4 and 12 hours, then daily until it goes through or is declined.
 * The customer is never dunned meanwhile: the subscription stays active and no email goes to them.
 */
export const PROCESSOR_RETRY_HOURS = [1, 4, 12, 24] as const;
export const processorRetryAt = (now: Date, errors: number) => new Date(now.getTime() + (PROCESSOR_RETRY_HOURS[errors - 1] ?? 24) * 3600_000);

/**
 * A dunning row held for the processor: its charges were never declined, only not processed (the subscription active).
 */
export const heldForProcessor = (d: Pick<repo.DunningRow, "attempts" | "processorErrors">) => d.attempts === 0 && d.processorErrors > 0;

/** The organization's dunning settings (stored, else the defaults). */
export async function settingsOf(db: Queryable, organizationId: string): Promise<DunningSettings> {
  return dunningSettingsOf(await repo.storedDunningSettings(db, organizationId));
}

export async function subscriptionWireOf(tx: Queryable, row: SubscriptionRow, baseURL: string): Promise<SubscriptionWire> {
  const [wire] = await toWires(tx, row.organizationId, [row], baseURL);
  if (!wire) throw new Error(`subscription ${row.id}: its customer or product is missing`);
  return wire;
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

export interface Locked {
  /** None for an order whose first charge is still processing (a bank debit): it never failed. */
  dunning: repo.DunningRow | undefined;
  order: OrderRow;
  sub: SubscriptionRow;
}

/** Locks the subscription then the order of a dunning row; null when there is nothing to collect any more. */
async function lockParts(tx: Queryable, d: repo.DunningRow, now: Date): Promise<Locked | null> {
  const sub = await lockSubscription(tx, d.organizationId, d.subscriptionId);
  const order = await lockOrderRow(tx, d.organizationId, d.orderId);
  const running = sub?.status === "active" || sub?.status === "trialing";
  // an invoice within its terms is owed by a subscription still active, as a charge held for the processor is
  const owed = sub && (sub.status === "past_due" || sub.status === "unpaid" || ((heldForProcessor(d) || order?.dueAt) && running));
  const collectible = sub && order && order.status === "pending" && owed;
  if (!collectible) {
    // paid meanwhile, refunded, or the subscription was canceled by the seller: dunning stops
    if (d.nextAttemptAt) await repo.updateDunning(tx, d.organizationId, d.orderId, { nextAttemptAt: null }, now);
    return null;
  }
  return { dunning: d, order, sub };
}

const dueAmountOf = (o: OrderRow) => Math.max(0, o.totalAmount + o.appliedBalanceAmount);

/**
 * The customer's past-due email ("update your payment method") for an order whose charge was declined only after
 * it was billed — a charge held for the processor, or a bank debit refused later: its order.created asked for none,
 * the subscription being active then (customer-emails/plan.ts). Once per order: its id names the cause.
 */
export async function requestPastDueEmail(tx: Queryable, organizationId: string, orderId: string): Promise<void> {
  const order = await getOrder(tx, organizationId, orderId);
  const recipient = order.customer.email;
  if (!recipient) return;
  await requestEmail(tx, { organizationId, causeId: order.id, type: "subscription_past_due", recipient, data: { ...order }, customerId: order.customer_id });
}

/** The order is paid: it and the subscription are written, the benefits kept (or given back), the events recorded. */
export async function settle(tx: Queryable, deps: DunningDeps, l: Locked, now: Date): Promise<void> {
  const org = l.order.organizationId;
  await settlePendingOrder(tx, org, l.order.id, "paid", now);
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
    // (an invoice with terms started its period when it was issued: nothing to cycle again)
    const late = l.order.dueAt === null;
    if (l.order.renewedPeriodStart && late) await cycleMeterCreditsOfLateRenewal(tx, active, l.order.renewedPeriodStart, now);
    // a renewal paid late cycles its grants; a plan change's order (subscription_update) starts no period
    const cycled = l.order.billingReason === "subscription_cycle" && late ? await cycleGrants(tx, org, active.id, now) : [];
    events.push(...cycled.map((r) => ({ type: "benefit_grant.cycled" as const, organizationId: org, data: toBenefitGrantWire(r.grant, r.benefit, r.customer, r.member) })));
  }
  events.push(customerStateChanged(org, active.customerId), ...(await seatHoldersChanged(tx, org, active)));
  await enqueue(tx, events);
}

/** The last retry failed: the subscription ends as the organization chose, its benefits revoked. */
export async function giveUp(tx: Queryable, deps: DunningDeps, l: Locked, settings: DunningSettings, now: Date): Promise<void> {
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
  await revokeGrantsOfSubscription(tx, org, l.sub.id, now, l.sub.customerId);
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
  // a debit of the order still on its way (the last payment or not: a transfer started beside it) is not charged
  // again beside it (its answer comes as an event)
  if (await payments.processingDebitOfOrder(tx, d.organizationId, l.order.id)) return { kind: "in_progress" };
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
  const processorError = processorErrorOf(outcome.result);
  if (processorError) {
    // not the customer's decline: tried again with backoff (the schedule's), never counted as a dunning attempt
    await noteProcessorError(tx, d.organizationId, processorError, { what: kind === "retry" ? "renewal" : "portal retry", id: l.order.id }, now, deps.log);
    const errors = d.processorErrors + 1;
    const nextAttemptAt = kind === "retry" ? processorRetryAt(now, errors) : d.nextAttemptAt;
    const manual = kind === "manual" ? { manualAttempts: d.manualAttempts + 1 } : {};
    await repo.updateDunning(tx, d.organizationId, d.orderId, { ...manual, processorErrors: errors, nextAttemptAt }, now);
    return { kind: "failed", payment, nextAttemptAt, ended: false };
  }
  if (heldForProcessor(d) && (l.sub.status === "active" || l.sub.status === "trialing")) {
    // the first decline of a charge held for the processor: dunning starts now, as a renewal's declined charge starts
    // it
    const pastDue = await patchSubscriptionTerms(tx, d.organizationId, l.sub.id, { status: "past_due" }, now);
    const data = await subscriptionWireOf(tx, pastDue, deps.baseURL);
    const changed = [customerStateChanged(d.organizationId, pastDue.customerId), ...(await seatHoldersChanged(tx, d.organizationId, pastDue))];
    await enqueue(tx, [{ type: "subscription.past_due", organizationId: d.organizationId, data }, ...changed]);
    await requestPastDueEmail(tx, d.organizationId, l.order.id);
    const first = retries[0];
    const nextAttemptAt = first === undefined ? now : later(now, first);
    const manual = kind === "manual" ? { manualAttempts: d.manualAttempts + 1 } : {};
    await repo.updateDunning(tx, d.organizationId, d.orderId, { ...manual, attempts: 1, nextAttemptAt }, now);
    return { kind: "failed", payment, nextAttemptAt, ended: false };
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
