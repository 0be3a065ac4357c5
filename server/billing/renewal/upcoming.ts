// The next renewal of a subscription as it stands, priced the renewal's way (renewal.ts: the period's lines, the
// usage so far at the meter prices beyond the meter credits, the carried prorations, discount, tax and what the
// customer's balance pays) and written nowhere, from reads alone: GET /v1/subscriptions/{id}/upcoming and a change's
// preview.
import type { Db, Queryable, Tx } from "../../db/client.js";
import { orgNow } from "../clock.js";
import { notFound } from "../errors.js";
import { findSubscription } from "../subscriptions/service.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import type { OrderItemRow, OrderRow } from "../orders/wire.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import type { Settlement } from "../balance/service.js";
import { addInterval } from "../subscriptions/period.js";
import { isMetered } from "../products/pricing.js";
import { billRenewal, embeds, settleRenewal, type Embeds } from "./renewal.js";
import { renewalOrder } from "./order.js";
import { pendingProrations } from "../balance/service.js";
import type { CarriedLine } from "./proration.js";
import { pendingAt, pendingTerms } from "./pending.js";

/** An order not (yet) written, as a preview answers it: its amounts as the order's, and its lines. */
export interface DraftOrderWire {
  billing_reason: string;
  currency: string;
  subtotal_amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number;
  total_amount: number;
  /** As an order's: −credit used, +credit the order leaves on the balance. */
  applied_balance_amount: number;
  /** What the payment method would be charged. */
  due_amount: number;
  items: Array<{
    label: string;
    amount: number;
    tax_amount: number;
    proration: boolean;
    product_price_id: string | null;
    quantity: number | null;
    period_start: string | null;
    period_end: string | null;
  }>;
}

/**
 * A line said in a reader's language from the facts kept beside its English label (server/i18n/lines); null keeps
 * the label. Left out, lines say their stored English labels (the API's).
 */
export type SayLine = (facts: Pick<OrderItemRow, "usage" | "prorationFacts" | "walletCredit">, currency: string) => string | null;

export function draftWire(row: OrderRow, items: OrderItemRow[], settlement: Settlement, say?: SayLine): DraftOrderWire {
  return {
    billing_reason: row.billingReason,
    currency: row.currency,
    subtotal_amount: row.subtotalAmount,
    discount_amount: row.discountAmount,
    net_amount: row.netAmount,
    tax_amount: row.taxAmount,
    total_amount: row.totalAmount,
    applied_balance_amount: settlement.applied,
    due_amount: settlement.due,
    items: items.map((i) => ({
      label: say?.(i, row.currency) ?? i.label,
      amount: i.amount,
      tax_amount: i.taxAmount,
      proration: i.proration,
      product_price_id: i.productPriceId,
      quantity: i.quantity,
      period_start: i.periodStart?.toISOString() ?? null,
      period_end: i.periodEnd?.toISOString() ?? null,
    })),
  };
}

export interface UpcomingWire extends DraftOrderWire {
  subscription_id: string;
  /** When the renewal bills: the current period's end. */
  renews_at: string;
  /** The period it starts. */
  period_start: string;
  period_end: string;
}

/** What a previewed change would leave for the renewal that it has not written: proration lines, a balance moved. */
export interface ChangeLeft {
  carried: CarriedLine[];
  /** What the change's order billed now moves the customer's balance by (its `applied_balance_amount`). */
  balanceMoved: number;
}

/**
 * The order the subscription's next renewal would bill, with its terms as they will be then (a pending change
 * applied, in memory); null when no renewal comes (ended, set to cancel at the period end, past due or unpaid).
 * Reads only, and locks nothing (the balance is read as a preview reads it). `left`: what a previewed change would
 * have written before the renewal reads it.
 */
export async function upcomingRenewal(
  db: Queryable,
  deps: { processor: PaymentProcessor; baseURL: string },
  current: SubscriptionRow,
  now: Date,
  left: ChangeLeft = { carried: [], balanceMoved: 0 },
  /** The row's embeds, when the caller read them already (a preview, for the subscription's wire too). */
  preloaded?: Embeds,
  say?: SayLine,
): Promise<UpcomingWire | null> {
  if (current.endedAt || current.cancelAtPeriodEnd || (current.status !== "active" && current.status !== "trialing")) return null;
  const newStart = current.currentPeriodEnd;
  const e = preloaded ?? (await embeds(db, current, deps.baseURL));
  let sub = current;
  let ran: Embeds = e;
  if (pendingAt(current, newStart) && current.pendingUpdate) {
    // the renewal writes the pending terms first, and bills the period ended's usage at the prices it ran under
    sub = { ...current, ...pendingTerms(current.pendingUpdate) };
    ran = { ...(await embeds(db, sub, deps.baseURL)), endedMetered: e.prices.filter(isMetered) };
  }
  const endsTrial = sub.status === "trialing";
  // the lines the change would store join those stored, after them (the renewal bills them oldest first)
  const prorations = left.carried.length > 0 ? [...(await pendingProrations(db, sub.organizationId, sub.id)), ...left.carried] : undefined;
  const { bill, firstCarried, tax, total } = await billRenewal(db, sub, ran, { newStart, endsTrial, now, ...(prorations ? { prorations } : {}) }, undefined);
  const minimum = deps.processor.minimumCharge(sub.currency);
  const { order: settlement } = await settleRenewal(db, sub, ran, total, undefined, minimum, { shift: left.balanceMoved });
  const planned = renewalOrder(sub, ran.customer, bill, tax, { settlement, firstCarried }, now);
  return {
    subscription_id: sub.id,
    renews_at: newStart.toISOString(),
    period_start: newStart.toISOString(),
    period_end: addInterval(newStart, sub.recurringInterval, sub.recurringIntervalCount).toISOString(),
    ...draftWire(planned.row, planned.items, settlement, say),
  };
}

/** A read that must write nothing: its transaction is rolled back with the answer. */
class Rollback<T> extends Error {
  constructor(readonly answer: T) {
    super("rolled back");
  }
}

/** Runs `fn` in a transaction that is rolled back whatever it did, and answers what it returned. */
export async function inRolledBack<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    await db.transaction(async (tx) => {
      throw new Rollback(await fn(tx));
    });
  } catch (err) {
    if (err instanceof Rollback) return err.answer as T;
    throw err;
  }
  throw new Error("a rolled-back transaction committed");
}

/** GET /v1/subscriptions/{id}/upcoming: the next renewal as it stands, or null when none comes. */
export async function upcomingOf(db: Db, deps: { processor: PaymentProcessor; baseURL: string }, organizationId: string, id: string): Promise<UpcomingWire | null> {
  const [sub, now] = await Promise.all([findSubscription(db, organizationId, id), orgNow(db, organizationId)]);
  if (!sub) throw notFound("Subscription not found");
  return upcomingRenewal(db, deps, sub, now);
}
